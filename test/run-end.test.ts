/**
 * What a user meets at the end of a run: the failures repeated at the verdict, a
 * read-back that shows the write it judges, a redirect's Location, a recovery command that runs
 * as printed, and `npm pack`'s tarball kept out of git. In process, against the reference.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { commandLine, relaunchOf } from '../helpers/command/relaunch.ts';
import { readArgv } from '../helpers/command/options.ts';
import type { RunResult } from '../helpers/results/run-result.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));
async function reference(options: Parameters<typeof startReference>[0]): Promise<RunningReference> {
  const ref = await startReference(options);
  running.push(ref);
  return ref;
}
const env = (ref: RunningReference) => ({ SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
const result = (run: { reportDir: string }) => JSON.parse(readFileSync(join(run.reportDir, 'result.json'), 'utf8')) as RunResult;

describe('a failed read-back', () => {
  test('repeats every failure at the verdict, and shows the PATCH it judges before its GET (HTML, JUnit, cURL)', async () => {
    const ref = await reference({ fault: 'business-field-ignored' });
    // Exploration finds the same ignored field again in its own sequences (EXPLORE-UPDATE-APPLIES): as in the fault matrix, this run leaves it out (--explore 0).
    // The business lane, where the fault is (the fault matrix holds it to exactly these two checks in a whole run): what is
    // looked at is how the failures are repeated and shown.
    const run = await runInProcess(['--base-url', ref.url, '--explore', '0', '--only', '^BUS-'], env(ref), undefined, { resultOnly: false });
    expect(run.code, run.stderr).toBe(1);
    // The recap: after the counts, right before the verdict, one line per failure with its clause and reason.
    const tail = run.stdout.slice(run.stdout.lastIndexOf('\nMUST '));
    expect(tail).toMatch(/\nFailed \(2\)\n {2}✗ BUS-UPDATE-APPLIES:address \[MUST, clause [^\]]*\]: address reads back .*\n {2}✗ BUS-UPDATE-NULLABLE:address \[MUST, clause [^\]]*\]: .*\nverdict NOT CONFORMANT/);

    const check = result(run).checks.find((c) => c.id === 'BUS-UPDATE-APPLIES:address')!;
    expect(check.outcome).toBe('failed');
    const methods = check.exchanges.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`);
    // The PATCH it judges, then its read-back; what follows are reads only (asked again before the target is blamed).
    expect(methods.slice(0, 2)).toEqual(['PATCH /api/v1/business', 'GET /api/v1/business']);
    expect(methods.slice(2).filter((m) => !m.startsWith('GET '))).toEqual([]);
    expect(check.exchanges[0].request.body).toContain('"address"');
    const html = readFileSync(join(run.reportDir, 'report.html'), 'utf8');
    const entry = html.slice(html.indexOf('BUS-UPDATE-APPLIES:address'), html.indexOf('BUS-UPDATE-PARTIAL:address'));
    expect(entry).toMatch(/curl -i --request PATCH[\s\S]*--data-raw[\s\S]*address[\s\S]*curl -i --request GET/);
    const junit = readFileSync(join(run.reportDir, 'junit.xml'), 'utf8');
    const testcase = junit.slice(junit.indexOf('name="BUS-UPDATE-APPLIES:address'), junit.indexOf('</testcase>', junit.indexOf('name="BUS-UPDATE-APPLIES:address')));
    expect(testcase).toMatch(/curl -i --request PATCH/);
    // The write is still one request on the wire: the count and the HAR hold it once.
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: unknown[] } };
    expect(har.log.entries).toHaveLength(result(run).counts.requests);
  });

  test('a passing run repeats nothing', async () => {
    const ref = await reference({});
    const run = await runInProcess(['--base-url', ref.url, '--only', '^OP-DOCUMENTED:list'], env(ref));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/^Failed \(/m);
  });
});

test('a redirect\'s Location is in the reason of the check it fails', async () => {
  // Nothing listens there, and nothing is sent there: the suite follows no redirect.
  const ref = await reference({ robustness: ['redirect:retrieveBusiness'], redirectTo: 'http://127.0.0.1:9' });
  const run = await runInProcess(['--base-url', ref.url, '--only', '^OP-DOCUMENTED:retrieveBusiness'], env(ref));
  expect(run.code, run.stderr).toBe(1);
  const check = readResult(run).checks.find((c) => c.id === 'OP-DOCUMENTED:retrieveBusiness')!;
  expect(check.reason).toMatch(/answered 307.*\(GET \/api\/v1\/business answered 307 with Location: http:\/\/127\.0\.0\.1:9\/api\/v1\/business\)/);
  expect(run.stdout).toContain('Location: http://127.0.0.1:9/api/v1/business');
});

test('a base URL that redirects every path (http to https): the preflight names where it pointed', async () => {
  const moved = createServer((req, res) => {
    res.writeHead(301, { location: `https://staging.example.test${req.url}`, 'content-type': 'text/html' });
    res.end('<html><body>Moved Permanently</body></html>');
  });
  await new Promise<void>((resolve) => moved.listen(0, '127.0.0.1', resolve));
  try {
    const run = await runInProcess(['--base-url', `http://127.0.0.1:${(moved.address() as AddressInfo).port}`], { SCHEDULING_API_KEY: 'sk_redirected_1234' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^scheduling-conformance: no Scheduling API v1 at \S+: every documented path answered an HTML page \(GET \/api\/v1\/business answered 301 with Location: https:\/\/staging\.example\.test\/api\/v1\/business; no redirect is followed\) — is the base URL right\?$/);
  } finally {
    moved.close();
  }
});

describe('the printed recovery command', () => {
  test('runs as printed: the same target, base path included, the flags that reach it, the report directory', async () => {
    // A boolean sent as true is ignored: the record cannot be put back, and is left on the target.
    const ref = await reference({ fault: 'business-true-ignored' });
    // The business lane alone: the record it cannot put back is the business's; --only is no flag that reaches the target, so not printed.
    const run = await runInProcess(['--base-url', ref.url, '--cleanup-timeout', '0', '--timeout', '20000', '--header', 'X-Tenant: $TENANT', '--only', '^BUS-'], { ...env(ref), TENANT: 'acme' });
    expect(run.code, run.stderr).toBe(1);
    const line = /to finish later what is left: (.*)\n/.exec(run.stderr)?.[1];
    expect(line).toBe(`node ${join(projectRoot, 'bin/scheduling-conformance.js')} --header 'X-Tenant: $TENANT' --timeout 20000 --base-url ${ref.url} --recover ${run.reportDir}`);
    // As a shell runs it, with the key and the header's variable in the environment again.
    const again = await promisify(execFile)('bash', ['-c', `${line!} || echo "exit $?"`], { env: { PATH: process.env.PATH, ...env(ref), TENANT: 'acme' } });
    expect(again.stdout).toMatch(/Left on the target/);
    expect(again.stdout).toMatch(/exit 2/);
    expect(again.stderr).not.toMatch(/command not found|Usage|unknown/i);
  });

  test('is `npm run conformance --` from the project\'s script and `npx scheduling-conformance` from npx; never carries the key', () => {
    const argv = ['--api-key', 'sk_secret', '--config', 'my config.json', '--ca', 'ca.pem', '--strict'];
    expect(commandLine(relaunchOf(readArgv(argv), { npm_command: 'run-script', npm_lifecycle_event: 'conformance' }))).toBe(`npm run conformance -- --config 'my config.json' --ca ca.pem`);
    expect(commandLine(relaunchOf(readArgv(argv), { npm_command: 'exec', npm_lifecycle_event: 'npx' }))).toBe(`npx scheduling-conformance --config 'my config.json' --ca ca.pem`);
    // Another script of the user's (its own flags would come again): the bin by its path.
    expect(relaunchOf(readArgv([]), { npm_command: 'run-script', npm_lifecycle_event: 'test:staging' })[0]).toBe('node');
  });
});

test('`npm pack`\'s tarball is ignored by git', () => {
  const ignored = execFileSync('git', ['check-ignore', '--no-index', 'scheduling-conformance-0.1.0.tgz'], { cwd: projectRoot, encoding: 'utf8' });
  expect(ignored.trim()).toBe('scheduling-conformance-0.1.0.tgz');
});
