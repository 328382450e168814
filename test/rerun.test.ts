/**
 * A selection takes what its checks need (issue 33 §8): --only of a check whose prerequisite it
 * does not match runs the prerequisite too, --list shows it, and --rerun-failed runs again the
 * checks that failed, warned or were blocked in the last run of a report folder.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

test('--only of a check that needs another runs both and judges it; --list --json names the need', async () => {
  const ref = await startReference();
  running.push(ref);
  const only = ['--only', '^BUS-UPDATE-APPLIES:twitterUrl '];
  const run = await runInProcess(['--base-url', ref.url, ...only], { SCHEDULING_API_KEY: ref.apiKey });
  expect(run.code, run.stdout).toBe(0);
  expect(readResult(run).checks.map((c) => `${c.id} ${c.outcome}`)).toEqual(['BUS-UPDATE-200:twitterUrl passed', 'BUS-UPDATE-APPLIES:twitterUrl passed']);
  const listed = await runInProcess(['--base-url', ref.url, '--list', '--json', ...only]);
  const checks = (JSON.parse(listed.stdout) as { checks: { id: string; needs: string[] }[] }).checks;
  expect(checks.map((c) => [c.id, c.needs])).toEqual([['BUS-UPDATE-200:twitterUrl', []], ['BUS-UPDATE-APPLIES:twitterUrl', ['BUS-UPDATE-200:twitterUrl']]]);
});

test('--rerun-failed DIR runs again exactly what failed, warned or was blocked in the last run there, with what it needs', async () => {
  const ref = await startReference({ fault: 'business-name-required' });
  running.push(ref);
  const folder = mkdtempSync(join(tmpdir(), 'scr-rerun-'));
  const env = { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey };
  // The business's checks, where the fault is: failed ones, and ones blocked by them, to run again; passed ones not to.
  const first = await runInProcess(['--base-url', ref.url, '--report-dir', join(folder, 'first'), '--only', '^BUS-'], env);
  expect(first.code).toBe(1);
  const again = readResult({ ...first, reportDir: join(folder, 'first') }).checks.filter((c) => ['failed', 'warning', 'blocked'].includes(c.outcome)).map((c) => c.id);
  const rerun = await runInProcess(['--base-url', ref.url, '--report-dir', join(folder, 'second'), '--rerun-failed', folder], env);
  expect(rerun.code).toBe(1);
  const ran = readResult({ ...rerun, reportDir: join(folder, 'second') }).checks.map((c) => c.id);
  expect(ran).toEqual(expect.arrayContaining(again));
  // Only what they need besides them: the prerequisites of the failed read-backs had failed too.
  expect(ran.filter((id) => !again.includes(id))).toEqual([]);
  // A run with nothing to run again says so, before sending anything.
  const clean = await startReference();
  running.push(clean);
  const passed = await runInProcess(['--base-url', clean.url, '--report-dir', join(folder, 'third'), '--only', '^BUS-GET-200'], { SCHEDULING_API_KEY: clean.apiKey });
  expect(passed.code).toBe(0);
  const nothing = await runInProcess(['--base-url', clean.url, '--rerun-failed', join(folder, 'third')], { SCHEDULING_API_KEY: clean.apiKey });
  expect(nothing.code).toBe(2);
  expect(nothing.stderr).toMatch(/^scheduling-conformance: --rerun-failed: no check failed, warned or was blocked in \S+result\.json: nothing to run again\n$/);
});
