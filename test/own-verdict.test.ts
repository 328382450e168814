/**
 * Every run writes its own verdict, "could not test" included. A reused report
 * folder holding a conformant run's reports, then a run that exits 2: its result.json, JUnit,
 * HTML and the Action's outputs all say INCOMPLETE and why; nothing of the earlier run is passed
 * off as this one's (its journal is kept aside, as the record of what it changed).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readAction, runAction } from './support/action-runner.ts';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { harProblems, hasXmllint, junitProblems, resultProblems } from './support/validators.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import type { RunResult } from '../helpers/results/run-result.ts';

const KEY = 'sk_own_verdict_2468';
let ref: RunningReference;
beforeAll(async () => void (ref = await startReference({ apiKey: KEY })));
afterAll(() => ref?.close());

const result = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;

async function certifiedRun(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'scr-certified-')), 'conformance-report');
  const first = await runInProcess(['--base-url', ref.url, '--report-dir', dir, '--certify', '--vendor', 'A', '--product', 'B', '--product-version', '1'], { SCHEDULING_API_KEY: KEY, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  expect(first.code, first.stderr).toBe(0);
  expect(result(dir).verdict).toBe('conformant');
  return dir;
}
let certified: Promise<string> | undefined;

/**
 * A report folder holding a conformant certification run, as a reused folder of a CI job would:
 * each test gets its own copy of the one run's folder (the run that exits 2 changes it).
 */
async function conformantFolder(): Promise<string> {
  certified ??= certifiedRun();
  const dir = join(mkdtempSync(join(tmpdir(), 'scr-reused-')), 'conformance-report');
  cpSync(await certified, dir, { recursive: true });
  expect(result(dir).verdict).toBe('conformant');
  return dir;
}

describe('a run that exits 2 in a reused report folder', () => {
  test.for([
    ['an unreachable target', ['--base-url', 'http://127.0.0.1:1'], /^could not be tested: target unreachable: http:\/\/127\.0\.0\.1:1: connection refused$/],
    ['a usage error after the options were read', ['--base-url', 'http://127.0.0.1:1', '--only', 'NO-SUCH-CHECK'], /^could not be tested: --only "NO-SUCH-CHECK" matches none/],
    ['options that cannot be read at all', ['--base-url', 'http://127.0.0.1:1', '--concurrency', 'x'], /^could not be tested: --concurrency must be a whole number/],
  ] as const)('%s: its own INCOMPLETE verdict, in every report, and the earlier one gone', async ([, args, why]) => {
    const dir = await conformantFolder();
    const run = await runInProcess([...args, '--report-dir', dir], { SCHEDULING_API_KEY: KEY });
    expect(run.code).toBe(2);
    const own = result(dir);
    expect(own).toMatchObject({ verdict: 'incomplete', exitCode: 2, checks: [] });
    expect(own.suiteErrors[0]).toMatch(why);
    // Whole reports, as the tools that read them validate them.
    expect(resultProblems(own)).toEqual([]);
    expect(harProblems(JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')))).toEqual([]);
    if (hasXmllint) expect(junitProblems(join(dir, 'junit.xml'))).toBe('');
    expect(own.startedAt >= new Date(Date.now() - 600_000).toISOString()).toBe(true);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites name="scheduling-conformance [^"]*: INCOMPLETE"/);
    expect(junit).toMatch(/<error message="could not be tested: /);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('could not be tested: ');
    // The earlier run's bundle is not this run's; its journal stays, the record of what that run changed.
    expect(existsSync(join(dir, 'certification'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('run-journal'))).toEqual(['run-journal.jsonl']);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8') + readFileSync(join(dir, 'result.json'), 'utf8')).not.toContain(KEY);
  });

  test('the Action\'s steps (this checkout as its path): outputs verdict=incomplete with exit-code=2, not the earlier conformant verdict', async () => {
    const dir = await conformantFolder();
    const workspace = join(dir, '..');
    const action = readAction(join(projectRoot, 'action.yml'));
    // Prepare and run only: the suite is installed here already.
    const steps = { ...action, runs: { ...action.runs, steps: action.runs.steps.filter((s) => s.id === 'prepare' || s.id === 'run') } };
    const runner = { root: workspace, workspace, temp: mkdtempSync(join(tmpdir(), 'scr-runner-temp-')), actionPath: projectRoot };
    const ran = await runAction(steps, runner, { 'base-url': 'http://127.0.0.1:1', 'api-key': KEY, 'report-dir': 'conformance-report', 'upload-artifact': 'false' });
    expect(ran.steps.map((s) => `${s.name} ${s.outcome}`)).toEqual(['Prepare success', 'Run the conformance suite failure']);
    expect(ran.steps[1].code).toBe(2);
    expect(ran.outputs).toMatchObject({ verdict: 'incomplete', 'exit-code': '2', 'report-dir': dir });
  });
});
