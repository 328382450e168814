/**
 * The CI examples run as copied: the GitHub example's conformance step, its `with:` as written
 * (only the repository's variables and secrets filled in), in a runner's layout whose workspace is
 * an implementation's checkout holding nothing of this project, against the embedded reference.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readAction, runAction } from './support/action-runner.ts';
import { startReference } from '../reference/server.ts';
import { projectRoot } from '../helpers/core/paths.ts';

interface Step { uses?: string; with?: Record<string, string> }

test('the GitHub example\'s conformance step, as copied, passes a conformant target and writes the JUnit its next step reads', async () => {
  const example = parseYaml(readFileSync(join(projectRoot, 'examples/github-actions.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const steps = example.jobs.conformance.steps;
  const ours = steps.find((s) => s.uses?.includes('scheduling-conformance@'))!;
  const junit = steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report'))!.with!.report_paths;
  const ref = await startReference({});
  const values: Record<string, string> = { 'vars.STAGING_URL': ref.url, 'secrets.SCHEDULING_API_KEY': ref.apiKey, 'secrets.SCHEDULING_EXPIRED_KEY': ref.expiredKey };
  const inputs = Object.fromEntries(Object.entries(ours.with ?? {}).map(([k, v]) => [k, String(v).replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`the example names ${name}, which this test does not fill in`);
    return values[name];
  })]));
  const root = mkdtempSync(join(tmpdir(), 'scr-example-'));
  const workspace = join(root, 'implementation');
  mkdirSync(workspace);
  const action = readAction(join(projectRoot, 'action.yml'));
  // Prepare and run only: the suite is installed in this checkout already (test/package installs it from scratch).
  const run = { ...action, runs: { ...action.runs, steps: action.runs.steps.filter((s) => s.id === 'prepare' || s.id === 'run') } };
  try {
    const ran = await runAction(run, { root, workspace, temp: mkdtempSync(join(root, 'temp-')), actionPath: projectRoot }, { ...inputs, 'upload-artifact': 'false' });
    expect(ran.steps.map((s) => `${s.name}: ${s.outcome}`), ran.steps.map((s) => s.stderr).join('')).toEqual(['Prepare: success', 'Run the conformance suite: success']);
    expect(ran.outputs).toMatchObject({ verdict: 'conformant', 'exit-code': '0' });
    expect(existsSync(join(workspace, junit))).toBe(true);
  } finally {
    await ref.close();
  }
});
