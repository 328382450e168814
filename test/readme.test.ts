/**
 * The paths a user takes from the README, as written: the typed API example, the vendor
 * configuration example (with --summary and $GITHUB_STEP_SUMMARY), --list, and the CI examples
 * and Action inputs they name. Runs are in process, against the embedded reference.
 */
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HELP } from '../helpers/command/options.ts';
import { OPTIONS } from '../helpers/command/option-table.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { escapeRegExp } from '../helpers/core/selection.ts';
import { suiteVersion } from '../helpers/core/version.ts';
import type { RunResult } from '../helpers/results/run-result.ts';
import { runMain } from './support/cli.ts';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
/** The documents under docs/ the README links to. */
const docs = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((m) => m[1]).filter((f, i, all) => all.indexOf(f) === i).map((f): [string, string] => [f, readFileSync(join(projectRoot, f), 'utf8')]);

describe('the README', () => {
  test('is what a user needs, under 15 KB; the rest is in the documents it links, each of which exists and links back', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
    expect(docs.length).toBeGreaterThanOrEqual(6);
    for (const [file, text] of docs) expect(text, file).toContain('[README](../README.md)');
    for (const heading of ['## The two commands', '## Running against a target', '## Safe on staging', '## Exit codes', '## In CI', '## Reports', '## Certification (`--certify`)']) expect(readme).toContain(`\n${heading}\n`);
  });
});
const scratch = mkdtempSync(join(tmpdir(), 'scr-readme-'));

/** The first fenced block of `lang` under the heading `heading`, in the README or a document it links. */
function block(heading: string, lang: string, text = readme): string {
  const section = text.split(`\n${heading}\n`)[1];
  const found = section?.match(new RegExp('```' + lang + '\\n([\\s\\S]*?)```'));
  if (!found) throw new Error(`README: no ${lang} block under "${heading}"`);
  return found[1];
}

const cli = runMain;

let exampleResult: RunResult | undefined;

describe('the typed API example', () => {
  const cwd = process.cwd();
  afterAll(() => process.chdir(cwd));

  test('runs as printed (the package name pointing at this checkout): lists, runs the reference with --certify, and verify refuses the self-test, never exiting', async () => {
    const code = block('## Typed API', 'ts');
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(11);
    const file = join(scratch, 'example.ts');
    // The package's entry (package.json "exports"), as an installed package resolves the name.
    writeFileSync(file, code.replace(`from 'scheduling-conformance'`, `from ${JSON.stringify(join(projectRoot, 'index.js'))}`));
    const logs: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => {
      throw new Error('process.exit called');
    });
    vi.stubEnv('STAGING_URL', undefined);
    vi.stubEnv('SCHEDULING_API_KEY', undefined);
    process.chdir(scratch);
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
      exit.mockRestore();
      vi.unstubAllEnvs();
      process.chdir(cwd);
    }
    expect(exit).not.toHaveBeenCalled();
    expect(logs[0]).toMatch(/^\d+ business checks, \d+ change data$/);
    expect(logs[1]).toMatch(/^conformant \[object Object\]$/);
    // The embedded reference is no vendor's implementation: the bundle says so, and verify does not hold it.
    expect(logs.at(-1)).toMatch(/^the run tested the suite's own embedded reference implementation \(a self-test\), not a vendor's implementation$/);
    expect(readFileSync(join(scratch, 'conformance/certification/SUMMARY.md'), 'utf8')).toMatch(/\*\*Certified: no — a self-test/);
    exampleResult = JSON.parse(readFileSync(join(scratch, 'conformance/result.json'), 'utf8')) as RunResult;
    expect(exampleResult.verdict).toBe('conformant');
    expect(exampleResult.options.certify).toBe(true);
  });
});

describe('--list', () => {
  test('prints every check a run holds the target to, sending nothing, and --json and --only apply', async () => {
    let requests = 0;
    const server = createServer((_req, res) => void (requests++, res.end('{}')));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address() as { port: number };
    try {
      const text = await cli(['--list', '--base-url', `http://127.0.0.1:${address.port}`]);
      expect(text.code).toBe(0);
      expect(text.stderr).toBe('');
      const json = await cli(['--list', '--json', '--base-url', `http://127.0.0.1:${address.port}`]);
      const list = JSON.parse(json.stdout) as { suite: { version: string }; checks: { id: string; level: string; clause: string; title: string; changesData: boolean }[] };
      expect(list.suite.version).toBe(suiteVersion);
      // The same checks a whole run reports (a run reports them as they finish, in any order).
      if (exampleResult) expect(list.checks.map((c) => c.id).sort()).toEqual(exampleResult.checks.map((c) => c.id).sort());
      for (const c of list.checks) {
        expect(Object.keys(c).sort()).toEqual(['changesData', 'clause', 'id', 'level', 'needs', 'requirement', 'resource', 'title']);
        expect(text.stdout).toMatch(new RegExp(`^${c.level} +${escapeRegExp(c.clause)} +${c.changesData ? 'changes' : 'reads'} +${escapeRegExp(c.id)} +`, 'm'));
      }
      expect(text.stdout).toContain(`${list.checks.length} checks (`);
      const only = JSON.parse((await cli(['--list', '--json', '--only', '^BUS-AUTH'])).stdout) as typeof list;
      expect(only.checks.length).toBeGreaterThan(0);
      expect(only.checks.every((c) => /^BUS-AUTH/.test(c.id))).toBe(true);
      const readOnly = JSON.parse((await cli(['--list', '--json', '--read-only'])).stdout) as typeof list;
      expect(readOnly.checks.length).toBe(list.checks.filter((c) => !c.changesData).length);
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
    const none = await cli(['--list', '--only', '^NO-SUCH-CHECK']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^scheduling-conformance: --only "\^NO-SUCH-CHECK" matches none of the \d+ checks/);
    expect((await cli(['--json'])).code).toBe(2);
  });
});

describe('the vendor configuration example', () => {
  test('passes the embedded reference as printed: no failure, no warning, nothing not applicable; --summary and $GITHUB_STEP_SUMMARY get the summary', async () => {
    const config = join(scratch, 'vendor-config.json');
    writeFileSync(config, block('## Vendor configuration', 'json', readFileSync(join(projectRoot, 'docs/vendor-config.md'), 'utf8')));
    const step = join(scratch, 'step-summary.md');
    writeFileSync(step, '# an earlier step\n');
    const summary = join(scratch, 'summary.md');
    const reportDir = join(scratch, 'vendor-run');
    const run = await cli(['--config', config, '--summary', summary, '--report-dir', reportDir], { GITHUB_STEP_SUMMARY: step, CI: 'true' });
    const result = JSON.parse(readFileSync(join(reportDir, 'result.json'), 'utf8')) as RunResult;
    expect(result.checks.filter((c) => c.outcome !== 'passed').map((c) => `${c.id} ${c.outcome}: ${c.reason}`)).toEqual([]);
    expect(run.code).toBe(0);
    const written = readFileSync(summary, 'utf8');
    expect(readFileSync(step, 'utf8')).toBe(`# an earlier step\n${written}`);
    expect(written).toMatch(/^## Scheduling API v1 conformance: CONFORMANT\n/);
    expect(written).toContain(`| MUST | ${result.counts.must.passed} | 0 |`);
    expect(written).toContain('No check failed or warned.');
    expect(written).toMatch(/### Left on the target\n\nNothing\./);
  });
});

describe('CI examples and the Action', () => {
  const action = parseYaml(readFileSync(join(projectRoot, 'action.yml'), 'utf8')) as {
    inputs: Record<string, unknown>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: { id?: string; run?: string; env?: Record<string, string>; with?: Record<string, unknown>; if?: string }[] };
  };
  const flags = (text: string) => [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]);
  const helpFlags = new Set(flags(HELP));

  /** Every step that uses this Action, wherever it sits in a parsed document. */
  function actionSteps(doc: unknown): { uses: string; with?: Record<string, unknown> }[] {
    if (Array.isArray(doc)) return doc.flatMap(actionSteps);
    if (!doc || typeof doc !== 'object') return [];
    const o = doc as Record<string, unknown>;
    const own = typeof o.uses === 'string' && /(^|\/)scheduling-conformance@/.test(o.uses) ? [o as { uses: string; with?: Record<string, unknown> }] : [];
    return [...own, ...Object.values(o).flatMap(actionSteps)];
  }
  /** `scheduling-conformance ...` command lines in a text. */
  const commands = (text: string) => [...text.matchAll(/scheduling-conformance(?:\.js"?)? ((?:--|verify)[^\n]*)/g)].map((m) => m[1]);

  test('action.yml is a composite action whose outputs its steps write, with flags the command has', () => {
    expect(action.runs.using).toBe('composite');
    const run = action.runs.steps.find((s) => s.id === 'run')!;
    for (const [name, output] of Object.entries(action.outputs)) {
      const [, step] = /^\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}$/.exec(output.value) ?? [];
      expect(action.runs.steps.find((s) => s.id === step)?.run, name).toContain(`echo "${name}=`);
    }
    // Every option of a run has its input (the modes that are not a CI run, and the summary the
    // Action writes to $GITHUB_STEP_SUMMARY itself, aside); the Action adds its upload.
    const notInputs = new Set(['sweep', 'yes', 'recover', 'release', 'from', 'rerun-failed', 'list', 'json', 'help', 'version', 'summary']);
    const inputOf: Record<string, string> = { cert: 'client-cert', key: 'client-key' };
    const expected = OPTIONS.map((o) => o.flag as string).filter((f) => !notInputs.has(f)).map((f) => inputOf[f] ?? f);
    expect(Object.keys(action.inputs).sort()).toEqual([...expected, 'artifact-name', 'upload-artifact'].sort());
    for (const f of flags(run.run!)) expect(helpFlags, `--${f}`).toContain(f);
    // Every input reaches a step through its environment, its `with` or its condition, never spliced into a script.
    const reached = JSON.stringify(action.runs.steps.map((s) => [s.env, s.with, s.if]));
    for (const input of Object.keys(action.inputs)) expect(reached, input).toMatch(new RegExp(`inputs\\.${input}\\b`));
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('${{');
  });

  const yamlBlocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  const documents: [string, string][] = [
    ['examples/github-actions.yml', readFileSync(join(projectRoot, 'examples/github-actions.yml'), 'utf8')],
    ['examples/gitlab-ci.yml', readFileSync(join(projectRoot, 'examples/gitlab-ci.yml'), 'utf8')],
    ...yamlBlocks.map((b, i): [string, string] => [`README yaml block ${i + 1}`, b]),
  ];
  test.each(documents)('%s parses as YAML and names only inputs and flags that exist', (_name, text) => {
    const doc = parseYaml(text) as unknown;
    expect(doc).toBeTruthy();
    for (const step of actionSteps(doc)) {
      expect(step.uses).toBe(`OWNER/scheduling-conformance@v${suiteVersion}`);
      for (const key of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), key).toContain(key);
    }
    for (const command of commands(text)) for (const f of flags(command)) expect(helpFlags, `--${f} in ${command}`).toContain(f);
  });

  test('the GitHub example publishes JUnit, uploads the reports and certifies in a matrix; the GitLab one reports JUnit', () => {
    const gh = parseYaml(documents[0][1]) as { jobs: Record<string, { strategy?: { matrix?: unknown }; steps: { uses?: string; with?: Record<string, string> }[] }> };
    const steps = Object.values(gh.jobs).flatMap((j) => j.steps);
    expect(steps.some((s) => s.uses?.startsWith('mikepenz/action-junit-report') && s.with?.report_paths?.endsWith('junit.xml'))).toBe(true);
    // The Action uploads the report directory itself; a second upload of the same name would fail the job.
    expect(action.runs.steps.some((s) => (s as { uses?: string }).uses?.startsWith('actions/upload-artifact'))).toBe(true);
    expect(steps.some((s) => s.uses?.startsWith('actions/upload-artifact'))).toBe(false);
    expect(Object.values(gh.jobs).some((j) => j.strategy?.matrix && j.steps.some((s) => s.with?.certify === 'true'))).toBe(true);
    // No certification without the expired key (BUS-AUTH-EXPIRED would stay untested).
    for (const s of steps.filter((s) => s.with?.certify === 'true')) expect(s.with?.['expired-key'], 'a certify step').toMatch(/^\$\{\{ secrets/);
    const gl = parseYaml(documents[1][1]) as Record<string, { artifacts: { reports: { junit: string }; paths: string[] } }>;
    expect(gl.conformance.artifacts.reports.junit).toBe('conformance-report/junit.xml');
    expect(gl.conformance.artifacts.paths).toContain('conformance-report/');
  });

  test('every command line in the README and its documents names flags the command has', () => {
    for (const text of [readme, ...docs.map(([, t]) => t)]) for (const command of commands(text)) for (const f of flags(command)) expect(helpFlags, `--${f} in ${command}`).toContain(f);
  });
});
