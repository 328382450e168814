/**
 * The suite as people outside this repository get it (run by .ci/run, not by `npm test`: packing,
 * installing and two real runs take minutes on a loaded machine):
 * - the tarball `npm pack` writes installs into an empty project from the npm cache and runs:
 *   `--version`, a certification run of a target, `verify` of its bundle, and
 *   the typed API through the package's `exports`, type-checked from its `types`;
 * - an install from git carries the typed API's declarations (built by `prepare`);
 * - action.yml's steps run as the GitHub runner runs them (test/support/action-runner.ts): on a
 *   runner's directories, the Action checked out under _actions/, its uses: steps included.
 */
import { execFile, execFileSync, type ExecFileException } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { layOutRunner, readAction, runAction, type ActionRun, type Runner } from '../support/action-runner.ts';
import type { RunResult } from '../../helpers/results/run-result.ts';
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
    for (const f of ['package/package.json', 'package/index.js', 'package/types/helpers/api.d.ts', 'package/bin/scheduling-conformance.js', 'package/suites/resources.test.ts', 'package/spec/openapi.yaml', 'package/reference/server.ts', 'package/action.yml', 'package/README.md']) {
      expect(files).toContain(f);
    }
    // Only the build script of scripts/ ships (bin/ and index.js compile the sources with it).
    expect(files.filter((f) => /^package\/(test|scripts|examples|docs|reports)\//.test(f) && f !== 'package/scripts/build.mjs')).toEqual([]);
  });

  test('installs into an empty project and runs: --version, a certification of a target (both keys), verify, the typed API', async () => {
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

    // A certification is of a vendor's deployment (the embedded reference is a self-test): the reference on a port stands in.
    const ref = await startReference({});
    let certify: Ran;
    try {
      certify = await run(bin, ['--base-url', ref.url, '--certify', '--vendor', 'Example Ltd', '--product', 'Example Scheduler', '--product-version', '1.0.0', '--report-dir', 'reports', '--summary', 'summary.md'], { cwd: project, env: { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey } });
    } finally {
      await ref.close();
    }
    expect(certify.code, certify.stderr).toBe(0);
    expect(certify.stdout).toContain('CONFORMANT');
    expect(certify.stdout).toMatch(/^Certified: yes$/m);
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
  const action = readAction(join(projectRoot, 'action.yml'));
  /** The Action with only the steps of these ids (the suite is installed by the first test). */
  const only = (...ids: string[]) => ({ ...action, runs: { ...action.runs, steps: action.runs.steps.filter((s) => s.id !== undefined && ids.includes(s.id)) } });
  let runner: Runner;

  beforeAll(() => {
    // An Action is checked out from git at its ref: the repository's files, not the packed tarball.
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: projectRoot, encoding: 'utf8' })
      .split('\n').filter((f) => f && existsSync(join(projectRoot, f)));
    runner = layOutRunner(scratch, projectRoot, files);
  });

  test('installs from its checkout under _actions/, runs with every staging input, sets its outputs, uploads the reports and leaves PATH as it was', async () => {
    const ref = await startReference({});
    const path = process.env.PATH ?? '';
    let ran: ActionRun;
    try {
      ran = await runAction(action, runner, {
        'base-url': ref.url, 'api-key': ref.apiKey, 'expired-key': ref.expiredKey,
        certify: 'true', vendor: 'Example Ltd', product: 'Example Scheduler', 'product-version': '1.0.0',
        header: 'X-Tenant: acme\r\n\nX-Gateway-Token: $GATEWAY_TOKEN\n', rate: '500', timeout: '20000', 'run-timeout': '900', 'cleanup-timeout': '30', 'wait-for-target': '5', concurrency: '1',
      }, { path, env: { GATEWAY_TOKEN: 'gw_secret_token_77' } });
    } finally {
      await ref.close();
    }
    const step = (name: string) => ran.steps.find((s) => s.name.includes(name))!;
    expect(ran.steps.map((s) => `${s.name}: ${s.outcome}`), step('Run').stderr + step('Install').stderr).toEqual([
      'Prepare: success', 'actions/setup-node@v4: skipped', 'Install the suite: success', 'Run the conformance suite: success', 'actions/upload-artifact@v4: success',
    ]);
    const dir = join(runner.workspace, 'conformance-report');
    expect(ran.outputs).toEqual({ verdict: 'conformant', 'exit-code': '0', certified: 'yes', 'report-dir': dir });
    expect(ran.summary).toMatch(/^## Scheduling API v1 conformance: CONFORMANT/);
    expect(readFileSync(join(dir, 'certification/SUMMARY.md'), 'utf8')).toContain('Example Scheduler 1.0.0');
    // Every header line became a --header; the secret one shows as its variable.
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    const headers = result.checks.find((c) => c.exchanges.length)!.exchanges[0].request.headers;
    expect(headers).toMatchObject({ 'x-tenant': 'acme', 'x-gateway-token': '$GATEWAY_TOKEN' });
    expect(readFileSync(join(dir, 'result.json'), 'utf8')).not.toContain('gw_secret_token_77');
    // The reports, journal included, are the artifact.
    expect(ran.uploads).toEqual([{ name: 'conformance-report-conformance', path: dir, files: expect.arrayContaining(['result.json', 'junit.xml', 'run-journal.jsonl', 'certification/SUMMARY.md']) }]);
    // The caller's Node (this one, 20.19 or later) is left as it was: nothing was put on PATH.
    expect(ran.path).toBe(path);
  });

  test('on a runner whose Node is older than 20.19, setup-node runs with nothing it would fail on, and says Node 20 stays', async () => {
    const shim = mkdtempSync(join(scratch, 'old-node-'));
    writeFileSync(join(shim, 'node'), '#!/bin/sh\necho v18.20.4\n', { mode: 0o755 });
    const ran = await runAction(only('prepare', 'setup-node'), runner, { 'base-url': 'http://127.0.0.1:1' }, { path: `${shim}:${process.env.PATH ?? ''}` });
    expect(ran.steps.map((s) => `${s.name}: ${s.outcome}`)).toEqual(['Prepare: success', 'actions/setup-node@v4: success']);
    expect(ran.steps[0].stdout).toMatch(/::notice title=Node\.js::v18\.20\.4 on PATH is older than 20\.19: setting up Node 20, which stays on PATH/);
    expect(ran.path.split(':')[0]).toBe(dirname(process.execPath));
    // What the runner saw before (issue 21 §1): an npm cache keyed on the Action's lock file, outside the workspace.
    const before = { ...action, runs: { ...action.runs, steps: [{ uses: 'actions/setup-node@v4', with: { 'node-version': 20, cache: 'npm', 'cache-dependency-path': '${{ github.action_path }}/package-lock.json' } }] } };
    const failed = await runAction(before, runner, { 'base-url': 'http://127.0.0.1:1' });
    expect(failed.steps[0]).toMatchObject({ outcome: 'failure', stderr: expect.stringMatching(/Some specified paths were not resolved/) });
  });

  // The run and upload steps alone, on the installation the first test made.
  test('fails the step on exit 1 and on exit 2, with different messages, and uploads the reports even so, and when the job is cancelled', async () => {
    const ref = await startReference({ fault: 'route-missing:retrieveBusiness' });
    let broken: ActionRun;
    try {
      broken = await runAction(only('prepare', 'run', 'upload'), runner, { 'base-url': ref.url, 'api-key': ref.apiKey, 'expired-key': ref.expiredKey, 'report-dir': 'broken' });
    } finally {
      await ref.close();
    }
    expect(broken.steps.map((s) => s.outcome)).toEqual(['success', 'failure', 'success']);
    expect(broken.steps[1].code).toBe(1);
    expect(broken.outputs).toMatchObject({ verdict: 'not-conformant', 'exit-code': '1' });
    expect(broken.steps[1].stdout).toContain('::error title=Not conformant::');
    expect(broken.summary).toContain('`OP-DOCUMENTED:retrieveBusiness`');
    expect(broken.uploads[0].files).toEqual(expect.arrayContaining(['result.json', 'run-journal.jsonl']));

    const unusable = await runAction(only('prepare', 'run', 'upload'), runner, { 'base-url': 'http://127.0.0.1:1', config: 'no-such-config.json', 'report-dir': 'unusable' });
    expect(unusable.steps[1].code).toBe(2);
    // Its own verdict (issue 21 §5): incomplete, in agreement with the exit code.
    expect(unusable.outputs).toEqual({ verdict: 'incomplete', 'exit-code': '2', certified: '', 'report-dir': join(runner.workspace, 'unusable') });
    expect(unusable.steps[1].stdout).toContain('::error title=Could not be tested::');
    expect(unusable.steps[1].stderr).toMatch(/^scheduling-conformance: .*no-such-config\.json/m);
    expect(unusable.summary).toMatch(/^## Scheduling API v1 conformance: could not be tested\n\nExit code 2: .*no-such-config\.json/);
    expect(unusable.uploads[0].files).toEqual(expect.arrayContaining(['result.json', 'junit.xml']));

    // A base-url from a variable that is not set: exit 2, not a run against the suite's own reference.
    const unset = await runAction(only('prepare', 'run'), runner, { 'base-url': '', 'report-dir': 'unset' });
    expect(unset.steps[1].code).toBe(2);
    expect(unset.steps[1].stderr).toMatch(/SCHEDULING_BASE_URL is set but empty/);

    // Cancelled while the run step ran: the upload still runs (always(), not !cancelled()).
    const cancelled = await runAction(only('prepare', 'run', 'upload'), runner, { 'base-url': 'http://127.0.0.1:1', 'report-dir': 'cancelled' }, { cancelAfter: 'run' });
    expect(cancelled.steps.map((s) => s.outcome)).toEqual(['success', 'failure', 'success']);
    expect(cancelled.uploads.map((u) => u.name)).toEqual(['cancelled-conformance']);
  });

  test('a certify step that is not certified (no expired key) fails, saying why', async () => {
    const ref = await startReference({});
    let ran: ActionRun;
    try {
      ran = await runAction(only('prepare', 'run'), runner, { 'base-url': ref.url, 'api-key': ref.apiKey, certify: 'true', vendor: 'V', product: 'P', 'product-version': '1', 'report-dir': 'uncertified' });
    } finally {
      await ref.close();
    }
    expect(ran.outputs).toMatchObject({ verdict: 'conformant', 'exit-code': '0', certified: 'no' });
    expect(ran.steps[1].code).toBe(2);
    expect(ran.steps[1].stdout).toMatch(/::error title=Not certified::Certified: no — not every MUST requirement was tested: BUS-AUTH-EXPIRED/);
  });
});
