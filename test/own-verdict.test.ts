/**
 * Issue 21 §5: every run writes its own verdict, "could not test" included. A reused report
 * folder holding a conformant run's reports, then a run that exits 2: its result.json, JUnit,
 * HTML and the Action's outputs all say INCOMPLETE and why; nothing of the earlier run is passed
 * off as this one's (its journal is kept aside, as the record of what it changed).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { harProblems, hasXmllint, junitProblems, resultProblems } from './support/validators.ts';
import { projectRoot } from '../helpers/command/paths.ts';
import type { RunResult } from '../helpers/results/run-result.ts';

const KEY = 'sk_own_verdict_2468';
let ref: RunningReference;
beforeAll(async () => void (ref = await startReference({ apiKey: KEY })));
afterAll(() => ref?.close());

const result = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;

/** A report folder holding a conformant certification run, as a reused folder of a CI job would. */
async function conformantFolder(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'scr-reused-')), 'conformance-report');
  const first = await runInProcess(['--base-url', ref.url, '--report-dir', dir, '--certify', '--vendor', 'A', '--product', 'B', '--product-version', '1'], { SCHEDULING_API_KEY: KEY, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  expect(first.code, first.stderr).toBe(0);
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

  test('the Action\'s run step: outputs verdict=incomplete with exit-code=2, not the earlier conformant verdict', async () => {
    const dir = await conformantFolder();
    const workspace = join(dir, '..');
    const action = parseYaml(readFileSync(join(projectRoot, 'action.yml'), 'utf8')) as { runs: { steps: { id?: string; run?: string; env?: Record<string, string> }[] } };
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const inputs: Record<string, string> = { 'base-url': 'http://127.0.0.1:1', 'api-key': KEY, 'report-dir': 'conformance-report' };
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, v.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_m, name: string) => inputs[name] ?? '')]));
    const output = join(workspace, 'github-output');
    writeFileSync(output, '');
    const script = join(workspace, 'run-step.sh');
    writeFileSync(script, step.run!);
    const ran = await promisify(execFile)('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: workspace,
      env: { PATH: process.env.PATH, CI: 'true', ...env, GITHUB_ACTION_PATH: projectRoot, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'), GITHUB_WORKSPACE: workspace },
    }).then(() => 0, (e: { code: number }) => e.code);
    expect(ran).toBe(2);
    const outputs = Object.fromEntries(readFileSync(output, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(outputs).toMatchObject({ verdict: 'incomplete', 'exit-code': '2', 'report-dir': dir });
  });
});
