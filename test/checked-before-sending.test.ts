/**
 * Every path and time limit is checked before the first request. A run that could
 * not write its verdict, or a --recover of nothing, sends nothing (a proxy in front of the
 * reference counts); --run-timeout covers start-up: a target that never answers is given what is
 * left of the run, not the request timeout.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { logRequests, type RequestLog } from './support/network.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

let ref: RunningReference;
let proxy: RequestLog;
beforeAll(async () => {
  ref = await startReference({});
  proxy = await logRequests(ref.url);
});
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

const dir = mkdtempSync(join(tmpdir(), 'scr-paths-'));
const aFile = join(dir, 'a-file');
writeFileSync(aFile, 'not a folder');
mkdirSync(join(dir, 'a-folder'));
mkdirSync(join(dir, 'no-journal'));

describe('a path the run cannot use: exit 2, one line, and not one request', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['--summary into a folder that does not exist', ['--summary', join(dir, 'missing/summary.md')], {}, /^--summary \S+: its folder \S+missing does not exist; nothing was sent to the target$/],
    ['--summary that is a folder', ['--summary', join(dir, 'a-folder')], {}, /^--summary \S+: is a folder, not a file/],
    ['$GITHUB_STEP_SUMMARY into a folder that does not exist', [], { GITHUB_STEP_SUMMARY: join(dir, 'missing/step.md') }, /^GITHUB_STEP_SUMMARY \S+: its folder \S+ does not exist/],
    ['--report-dir under a file', ['--report-dir', join(aFile, 'reports')], {}, /^--report-dir \S+: cannot be created or written \(ENOTDIR\); nothing was sent to the target$/],
    ['--recover of a folder that does not exist', ['--recover', join(dir, 'missing')], {}, /^--recover \S+: no run-journal\.jsonl there/],
    ['--recover of a folder without a journal', ['--recover', join(dir, 'no-journal')], {}, /^--recover \S+: no run-journal\.jsonl there/],
    ['--config that does not exist', ['--config', join(dir, 'missing.json')], {}, /^--config \S+|missing\.json.*cannot be read/],
    ['--expect that does not exist', ['--expect', join(dir, 'missing.json')], {}, /missing\.json.*cannot be read/],
    ['--ca that does not exist', ['--ca', join(dir, 'missing.pem')], {}, /^--ca \S+: cannot be read \(ENOENT\)/],
    ['--ca that is not PEM', ['--ca', aFile], {}, /^--ca \S+: not a PEM file/],
  ];
  test.for(cases)('%s', async ([, args, env, message]) => {
    const before = proxy.requests.length;
    const run = await runInProcess(['--base-url', proxy.url, ...args], { SCHEDULING_API_KEY: ref.apiKey, ...env });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0].replace(/^scheduling-conformance: /, '')).toMatch(message);
    expect(proxy.requests.slice(before)).toEqual([]);
  });

  test('the same command with a usable path does send (the count above can see requests)', async () => {
    const before = proxy.requests.length;
    const run = await runInProcess(['--base-url', proxy.url, '--only', '^OP-DOCUMENTED:listCustomers', '--summary', join(dir, 'summary.md')], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.requests.length).toBeGreaterThan(before);
  });
});

describe('--run-timeout covers start-up', () => {
  let silent: Server;
  const seen: string[] = [];
  beforeAll(async () => {
    // Takes every request and never answers.
    silent = createServer((req) => void seen.push(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
  });

  test('a target that never answers is given what is left of the run, not the 10 s request timeout', async () => {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const run = await runInProcess(['--base-url', url, '--run-timeout', '3'], { SCHEDULING_API_KEY: 'sk_never_answered_1234' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // Proven without the clock: the one request's timeout was cut to the run's remaining time (at most 3 s).
    const cut = /^scheduling-conformance: run timeout: the --run-timeout ran out during start-up: \S+ gave no answer in ([\d.]+) s \(the time left of the run\); nothing was changed$/.exec(run.stderr.trim());
    expect(cut, run.stderr).not.toBeNull();
    expect(Number(cut![1])).toBeLessThanOrEqual(3);
    expect(seen).toEqual(['GET /api/v1/business']);
    // Its own verdict says so (own-verdict.test.ts): stopped by the run timeout, the one request on the record.
    expect(readResult(run)).toMatchObject({ verdict: 'incomplete', exitCode: 2, stopped: 'run-timeout', counts: { requests: 1 } });
  });
});
