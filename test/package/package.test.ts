/**
 * The suite as people outside this repository get it (run by .ci/run, not by `npm test`: packing,
 * installing and two real runs take minutes on a loaded machine):
 * - the tarball `npm pack` writes installs into an empty project from the npm cache and runs:
 *   `--version`, a certification run against the embedded reference, `verify` of its bundle, and
 *   the typed API through the package's `exports`, type-checked from its `types`;
 * - an install from git carries the typed API's declarations (built by `prepare`);
 * - action.yml's steps run as the GitHub runner runs them, with GITHUB_ACTION_PATH at a copy of the
 *   packed package and temporary GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { projectRoot } from '../../helpers/core/paths.ts';
import { suiteVersion } from '../../helpers/core/version.ts';
import { startReference } from '../../reference/server.ts';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...options.env }, maxBuffer: 64 << 20 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr });
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'scr-package-'));
let tarball = '';

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--pack-destination', scratch, '--json'], { cwd: projectRoot });
  expect(packed.code, packed.stderr).toBe(0);
  tarball = join(scratch, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
}, 600_000);

describe('the packed tarball', () => {
  test('holds what runs, and nothing of the project\'s own tests', async () => {
    const files = (await run('tar', ['-tzf', tarball], { cwd: scratch })).stdout.split('\n').filter(Boolean);
    for (const f of ['package/package.json', 'package/index.js', 'package/types/helpers/api.d.ts', 'package/bin/scheduling-conformance.js', 'package/suites/business.test.ts', 'package/spec/openapi.yaml', 'package/reference/server.ts', 'package/action.yml', 'package/README.md']) {
      expect(files).toContain(f);
    }
    // Only the build script of scripts/ ships (bin/ and index.js compile the sources with it).
    expect(files.filter((f) => /^package\/(test|scripts|examples|docs|reports)\//.test(f) && f !== 'package/scripts/build.mjs')).toEqual([]);
  });

  test('installs into an empty project and runs: --version, certification against the embedded reference, verify, the typed API', async () => {
    const project = join(scratch, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The npm cache holds every dependency after `npm ci` here; a cold cache may fetch metadata.
    let install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    if (install.code !== 0 && /ENOTCACHED/.test(install.stderr)) install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    expect(install.code, install.stderr).toBe(0);

    const bin = join(project, 'node_modules/.bin/scheduling-conformance');
    const version = await run(bin, ['--version'], { cwd: project });
    expect(version).toMatchObject({ code: 0, stdout: `${suiteVersion}\n` });

    const certify = await run(bin, ['--certify', '--vendor', 'Example Ltd', '--product', 'Example Scheduler', '--product-version', '1.0.0', '--report-dir', 'reports', '--summary', 'summary.md'], { cwd: project });
    expect(certify.code, certify.stderr).toBe(0);
    expect(certify.stdout).toContain('CONFORMANT');
    expect(readFileSync(join(project, 'summary.md'), 'utf8')).toMatch(/^## Scheduling API v1 conformance: CONFORMANT/);

    const verify = await run(bin, ['verify', 'reports/certification'], { cwd: project });
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain('This bundle proves that Example Scheduler 1.0.0 of Example Ltd');

    // The typed API through the package's exports, and its types through `types`, strict (skipLibCheck as
    // `tsc --init` sets it: the types reach vitest's, which need @types/node this project may not have).
    writeFileSync(join(project, 'api.ts'), `import { listChecks, verifyBundle, type DeclaredCheck, type RunResult, type BundleVerification } from 'scheduling-conformance';
const checks: DeclaredCheck[] = await listChecks({ only: '^BUS-AUTH' });
const bundle: BundleVerification = await verifyBundle('reports/certification');
const verdict: RunResult['verdict'] = JSON.parse('"conformant"');
console.log(JSON.stringify({ checks: checks.length, holds: bundle.holds, verdict }));
`);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['api.ts'] }));
    const tsc = await run(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project });
    expect(tsc.code, tsc.stdout).toBe(0);
    writeFileSync(join(project, 'api.mjs'), readFileSync(join(project, 'api.ts'), 'utf8').replace(/, type \w+/g, '').replace(/: [\w[\]']+ =/g, ' ='));
    const api = await run(process.execPath, ['api.mjs'], { cwd: project });
    expect(api.code, api.stderr).toBe(0);
    const out = JSON.parse(api.stdout) as { checks: number; holds: boolean };
    expect(out.checks).toBeGreaterThan(0);
    expect(out.holds).toBe(true);
  });
});

describe('an install from git (as examples/gitlab-ci.yml installs it)', () => {
  // npm runs `prepare` (not `prepack`) for a git dependency: the declarations come from prepare.
  test('carries the typed API\'s declarations and runs', async () => {
    const project = join(scratch, 'from-git');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'from-git', private: true, type: 'module' }));
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `git+file://${projectRoot}`], { cwd: project });
    expect(install.code, install.stderr).toBe(0);
    const installed = join(project, 'node_modules/scheduling-conformance');
    expect(readFileSync(join(installed, 'types/helpers/api.d.ts'), 'utf8')).toContain('runConformance');
    const version = await run(join(project, 'node_modules/.bin/scheduling-conformance'), ['--version'], { cwd: project });
    expect(version).toMatchObject({ code: 0, stdout: `${suiteVersion}\n` });
  });
});

describe('action.yml, run as the runner runs it', () => {
  interface Step { uses?: string; id?: string; run?: string; env?: Record<string, string>; shell?: string }
  const action = parseYaml(readFileSync(join(projectRoot, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { steps: Step[] };
  };
  let actionPath = '';

  beforeAll(async () => {
    // A checkout of the Action is the package's files and its lock file.
    const unpacked = join(scratch, 'action');
    mkdirSync(unpacked);
    expect((await run('tar', ['-xzf', tarball, '-C', unpacked], { cwd: scratch })).code).toBe(0);
    actionPath = join(unpacked, 'package');
    copyFileSync(join(projectRoot, 'package-lock.json'), join(actionPath, 'package-lock.json'));
  }, 600_000);

  /**
   * Runs the Action's shell steps with these inputs (GitHub's expressions substituted as the runner
   * would), skipping `uses:` steps (setup-node: this Node is on PATH). Returns the outputs, the
   * summary and how the last step ended.
   */
  async function runAction(inputs: Record<string, string>, workspace: string, from = 0) {
    const output = join(workspace, 'github-output');
    const summary = join(workspace, 'step-summary.md');
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const value = (name: string) => inputs[name] ?? action.inputs[name]?.default ?? '';
    const expand = (text: string) =>
      text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_m, name: string) => value(name)).replace(/\$\{\{\s*github\.action_path\s*\}\}/g, actionPath);
    let last: Ran = { code: 0, stdout: '', stderr: '' };
    for (const step of action.runs.steps.slice(from)) {
      if (!step.run) continue;
      expect(step.shell).toBe('bash');
      const script = join(workspace, `step-${step.id ?? 'x'}.sh`);
      writeFileSync(script, expand(step.run));
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)]));
      last = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd: workspace,
        env: { ...env, GITHUB_ACTION_PATH: actionPath, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: workspace },
      });
      if (last.code !== 0) break;
    }
    const written = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, o]) => [name, written[/steps\.run\.outputs\.([\w-]+)/.exec(o.value)![1]]]));
    return { outputs, summary: readFileSync(summary, 'utf8'), last };
  }

  test('installs from its checkout, certifies the target, sets its outputs and writes the step summary', async () => {
    const workspace = mkdtempSync(join(scratch, 'ws-'));
    const ref = await startReference({});
    let ran: Awaited<ReturnType<typeof runAction>>;
    try {
      ran = await runAction({ 'base-url': ref.url, 'api-key': ref.apiKey, 'expired-key': ref.expiredKey, certify: 'true', vendor: 'Example Ltd', product: 'Example Scheduler', 'product-version': '1.0.0' }, workspace);
    } finally {
      await ref.close();
    }
    const { outputs, summary, last } = ran;
    expect(last.code, last.stderr).toBe(0);
    expect(outputs).toEqual({ verdict: 'conformant', 'exit-code': '0', 'report-dir': join(workspace, 'conformance-report') });
    expect(summary).toMatch(/^## Scheduling API v1 conformance: CONFORMANT/);
    expect(readFileSync(join(workspace, 'conformance-report/certification/SUMMARY.md'), 'utf8')).toContain('Example Scheduler 1.0.0');
  });

  // Runs the run step alone, on the installation the test above made.
  test('fails the step on exit 1 and on exit 2, with different messages', async () => {
    const runStep = action.runs.steps.findIndex((s) => s.id === 'run');
    const ref = await startReference({ fault: 'route-missing:retrieveBusiness' });
    try {
      const broken = await runAction({ 'base-url': ref.url, 'api-key': ref.apiKey, 'expired-key': ref.expiredKey }, mkdtempSync(join(scratch, 'ws-')), runStep);
      expect(broken.last.code).toBe(1);
      expect(broken.outputs).toMatchObject({ verdict: 'not-conformant', 'exit-code': '1' });
      expect(broken.last.stdout).toContain('::error title=Not conformant::');
      expect(broken.summary).toContain('`OP-DOCUMENTED:retrieveBusiness`');
    } finally {
      await ref.close();
    }
    const workspace = mkdtempSync(join(scratch, 'ws-'));
    const unusable = await runAction({ 'base-url': 'http://127.0.0.1:1', config: 'no-such-config.json' }, workspace, runStep);
    expect(unusable.last.code).toBe(2);
    expect(unusable.outputs).toEqual({ verdict: '', 'exit-code': '2', 'report-dir': join(workspace, 'conformance-report') });
    expect(unusable.last.stdout).toContain('::error title=Could not be tested::');
    expect(unusable.last.stderr).toMatch(/^scheduling-conformance: .*no-such-config\.json/m);
    expect(unusable.summary).toMatch(/^## Scheduling API v1 conformance: could not be tested\n\nExit code 2: .*no-such-config\.json/);
    // A base-url from a variable that is not set: exit 2, not a run against the suite's own reference.
    const unset = await runAction({ 'base-url': '' }, mkdtempSync(join(scratch, 'ws-')), runStep);
    expect(unset.last.code).toBe(2);
    expect(unset.last.stderr).toMatch(/SCHEDULING_BASE_URL is set but empty/);
  });
});
