/**
 * --expect (known deviations as data), --only and the guards of --certify, through the command
 * against the reference with a fault switched on.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess, type CliRun } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

const KEY = 'sk_options_secret_1234';
const dir = mkdtempSync(join(tmpdir(), 'scr-expect-'));
const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};

let ref: RunningReference;
const env = () => ({ SCHEDULING_API_KEY: KEY });
beforeAll(async () => {
  ref = await startReference({ fault: 'route-missing:retrieveBusiness', apiKey: KEY });
});
afterAll(() => ref?.close());

/** One certification run of the target, shared: its product from the config file, and an --expect file it ignores. */
let certified: Promise<CliRun> | undefined;
const certification = () => (certified ??= runInProcess([
  '--base-url', ref.url, '--certify', '--config', write('vendor.json', { product: { vendor: 'Acme', product: 'Sched', version: '3.0.0' } }), '--contact', 'qa@acme.example',
  '--expect', write('cert.json', { 'OP-DOCUMENTED:retrieveBusiness': { outcome: 'failed', reason: 'known' } }),
], env()));

describe('--expect FILE', () => {
  test('pinned failures do not fail the run; a pin that now passes is reported', async () => {
    const file = write('expect.json', {
      'OP-DOCUMENTED:retrieveBusiness': { outcome: 'failed', reason: 'route not deployed yet', link: 'https://tracker.example/ISSUE-1' },
      'OP-DOCUMENTED:updateBusiness': { outcome: 'failed', reason: 'needs the retrieval' },
      'OP-DOCUMENTED:listCustomers': { outcome: 'failed', reason: 'was broken last week' },
    });
    const run = await runInProcess(['--base-url', ref.url, '--only', 'OP-DOCUMENTED:', '--expect', file], env());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/KNWN MUST\s+OP-DOCUMENTED:retrieveBusiness/);
    expect(run.stdout).toMatch(/now passing, remove from the --expect file: OP-DOCUMENTED:listCustomers/);
    expect(run.stdout).toMatch(/verdict NOT CONFORMANT for the checks selected by --only "OP-DOCUMENTED:" \(only known deviations: the run passes\)/);
    const result = readResult(run);
    expect(result.exitCode).toBe(0);
    // OP-DOCUMENTED:updateBusiness is blocked by the missing retrieval, not failed: one root cause, one failure.
    expect((result.counts as { knownDeviations: number }).knownDeviations).toBe(1);
    expect(result.checks.find((c) => c.id === 'OP-DOCUMENTED:updateBusiness')?.outcome).toBe('blocked');
  });

  test('an unpinned failure still fails the run', async () => {
    const file = write('one.json', { 'OP-DOCUMENTED:retrieveBusiness': { outcome: 'failed', reason: 'known' } });
    // The pinned failure beside one that is not (the retrieval's own check): the run fails for the second.
    const run = await runInProcess(['--base-url', ref.url, '--expect', file, '--only', '^(OP-DOCUMENTED:retrieveBusiness|BUS-GET-200) '], env());
    expect(run.code).toBe(1);
    expect((readResult(run).counts as { knownDeviations: number }).knownDeviations).toBe(1);
  });

  test.for([
    ['an unknown key in a pin', { 'OP-DOCUMENTED:x': { outcome: 'failed', reason: 'r', ticket: 1 } }, /unknown key "ticket"/],
    ['an outcome that is not one', { 'OP-DOCUMENTED:x': { outcome: 'broken', reason: 'r' } }, /outcome must be equal to one of the allowed values/],
    ['a pin without a reason', { 'OP-DOCUMENTED:x': { outcome: 'failed' } }, /must have required property 'reason'/],
    ['not JSON', '{ nope', /not valid JSON/],
  ] as const)('a file with %s is a usage error (exit 2)', async ([name, content, message]) => {
    const run = await runInProcess(['--base-url', ref.url, '--expect', write(`${name.replace(/\W/g, '-')}.json`, content)], env());
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  test('a certification run ignores the file and says so', async () => {
    const run = await certification();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--expect .* is ignored/);
    expect(readResult(run).checks.every((c) => !('expected' in c))).toBe(true);
  });
});

describe('--only PATTERN', () => {
  test('runs and reports only the matching checks', async () => {
    const run = await runInProcess(['--base-url', ref.url, '--only', 'OP-DOCUMENTED:list'], env());
    expect(run.code, run.stderr).toBe(0);
    const result = readResult(run);
    expect(result.checks.map((c) => c.id).sort()).toEqual(['OP-DOCUMENTED:listCustomers', 'OP-DOCUMENTED:listTeamMembers']);
    expect((result.options as { only: string }).only).toBe('OP-DOCUMENTED:list');
  });

  test('a check whose earlier step --only does not match runs with that step, and is judged', async () => {
    const sound = await startReference({ apiKey: KEY });
    try {
      const run = await runInProcess(['--base-url', sound.url, '--only', 'BUS-UPDATE-APPLIES:name |BUS-AUTH-NO-ECHO:retrieveBusiness:unknown-key'], env());
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^verdict CONFORMANT for the checks selected by --only/m);
      const outcomes = Object.fromEntries(readResult(run).checks.map((c) => [c.id, c.outcome]));
      expect(outcomes).toEqual({
        'BUS-UPDATE-200:name': 'passed',
        'BUS-UPDATE-APPLIES:name': 'passed',
        'BUS-AUTH-INVALID:retrieveBusiness:unknown-key': 'passed',
        'BUS-AUTH-NO-ECHO:retrieveBusiness:unknown-key': 'passed',
      });
    } finally {
      await sound.close();
    }
  });

  test('a pattern that is not a regular expression is a usage error', async () => {
    const run = await runInProcess(['--base-url', ref.url, '--only', '(['], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not a regular expression/);
  });
});

describe('--certify', () => {
  const product = ['--vendor', 'A', '--product', 'B', '--product-version', '1'];
  test.for([
    ['--only', ['--only', 'OP'], /cannot be combined with --only or --read-only/],
    ['--read-only', ['--read-only'], /cannot be combined with --only or --read-only/],
  ] as const)('refuses %s (exit 2)', async ([, flags, message]) => {
    const run = await runInProcess(['--base-url', ref.url, '--certify', ...product, ...flags], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  test('needs the product from flags or the config file', async () => {
    const missing = await runInProcess(['--base-url', ref.url, '--certify', '--vendor', 'A'], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/needs product, version/);
    const fromConfig = await certification();
    expect(fromConfig.code).toBe(1);
    expect(fromConfig.stdout).toMatch(/Certification bundle: /);
  });
});
