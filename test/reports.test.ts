/**
 * Every format of one run against the reference with a fault switched on, validated as the tools
 * that read it would: result.json against spec/result.schema.json, junit.xml against a JUnit XSD
 * (libxml2), the HAR against HAR 1.2 (har-schema), and the certification bundle's manifest.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess, type CliRun } from './support/cli.ts';
import { harProblems, hasXmllint, junitProblems, resultProblems } from './support/validators.ts';
import { sampleRun } from './support/sample-run.ts';
import { writeReports } from '../helpers/results/write-reports.ts';
import { sha256 } from '../helpers/results/reporters/certification.ts';
import { shellWord } from '../helpers/results/reporters/curl.ts';
import { useColour } from '../helpers/results/reporters/terminal.ts';
import { faultNamed } from '../reference/faults/index.ts';
import { matches } from './support/verdicts.ts';
import { buildRunResult, incompleteText, notTestedText, type RunResult } from '../helpers/results/run-result.ts';
import { toSummaryMarkdown } from '../helpers/results/reporters/summary.ts';
import type { CollectedCheck } from '../helpers/results/check-outcomes.ts';
import { dependsOnUnselected } from '../helpers/core/selection.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';

const KEY = 'sk_reports_secret_0815';
const FAULT = 'route-missing:retrieveBusiness';
// The fault catalog says which checks this fault kills; the reports must show exactly those as failed.
const KILLS = faultNamed(FAULT)!.kills;
const KILLED = ['OP-DOCUMENTED:retrieveBusiness'];
const PRODUCT = ['--vendor', 'Acme', '--product', 'Acme Scheduling', '--product-version', '2.4.1', '--contact', 'qa@acme.example'];

let ref: RunningReference;
let run: CliRun;
const file = (name: string) => join(run.reportDir, name);
const read = (name: string) => readFileSync(file(name), 'utf8');

beforeAll(async () => {
  ref = await startReference({ fault: FAULT, apiKey: KEY });
  run = await runInProcess(['--base-url', ref.url, '--certify', ...PRODUCT], { SCHEDULING_API_KEY: KEY, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
});
afterAll(() => ref?.close());

describe(`one certification run against the reference with ${FAULT}`, () => {
  test('exits 1, prints the failures and the left-on-target section, and never the key', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/✗ FAIL MUST\s+OP-DOCUMENTED:retrieveBusiness/);
    expect(run.stdout).toMatch(/verdict NOT CONFORMANT/);
    // One root cause, one failure: what needs the retrieval first is blocked, not failed.
    expect(run.stdout).toMatch(/⊘ BLKD MUST\s+OP-DOCUMENTED:updateBusiness .*\n\s+blocked by OP-DOCUMENTED:retrieveBusiness: cannot snapshot/);
    expect(run.stdout).toMatch(/\d+ not applicable, \d+ blocked, \d+ skipped/);
    expect(run.stdout).toMatch(/Left on the target\n {2}nothing/);
    expect(run.stdout).not.toMatch(/\x1b\[/); // CI=true: no colours
    for (const name of ['result.json', 'junit.xml', 'report.html', 'exchanges.har', ...readdirSync(file('certification')).map((f) => `certification/${f}`)]) {
      expect(read(name), name).not.toContain(KEY);
    }
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  test('result.json follows spec/result.schema.json and tells the story', () => {
    const result = JSON.parse(read('result.json')) as RunResult;
    expect(resultProblems(result)).toEqual([]);
    expect(result.verdict).toBe('not-conformant');
    expect(result.target.origin).toBe(new URL(ref.url).origin);
    const failed = result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id);
    expect(failed).toContain(KILLED[0]);
    expect(failed.filter((id) => !KILLS.some((p) => matches(p, id)))).toEqual([]);
    expect(result.counts.must.failed).toBe(failed.length);
    // The retrieval's own checks and its 401 matrix (every near miss of the header is a check of its own).
    expect(failed.length).toBeLessThanOrEqual(25);
    const blocked = result.checks.filter((c) => c.outcome === 'blocked');
    expect(result.counts.blocked).toBe(blocked.length);
    expect(blocked.map((c) => c.id)).toEqual(expect.arrayContaining(['BUS-GET-CONTENT-TYPE', 'BUS-UPDATE-200:name', 'BUS-UPDATE-APPLIES:name', 'BUS-AUTH-MISSING:updateBusiness', 'BUS-AUTH-REJECTED-NO-CHANGE:missing']));
    for (const c of blocked) expect(c.reason, c.id).toMatch(/^blocked by (BUS-GET-200|OP-DOCUMENTED:retrieveBusiness): /);
    expect(result.leftOnTarget).toEqual([]);
    const first = result.checks.find((c) => c.id === KILLED[0])!;
    expect(first.exchanges[0].request.headers.authorization).toBe('Bearer $SCHEDULING_API_KEY');
  });

  test.skipIf(!hasXmllint)('junit.xml validates against the JUnit XSD and carries id, level, expected/actual and the exchange', () => {
    expect(junitProblems(file('junit.xml'))).toBe('');
    const xml = read('junit.xml');
    const result = JSON.parse(read('result.json')) as RunResult;
    expect(xml.match(/<testcase /g)).toHaveLength(result.checks.length);
    expect(xml.match(/<failure /g)).toHaveLength(result.checks.filter((c) => c.outcome === 'failed').length);
    expect(xml.match(/<skipped message="blocked by /g)).toHaveLength(result.counts.blocked);
    expect(xml).toContain('name="OP-DOCUMENTED:retrieveBusiness [MUST] GET /api/v1/business answers 200"');
    expect(xml).toMatch(/<failure type="MUST" message="GET \/api\/v1\/business answered 405, documented success is 200/);
    expect(xml).toContain('&gt; GET ' + ref.url + '/api/v1/business');
    expect(xml).toContain("curl -i --request GET");
  });

  test('the HAR is HAR 1.2 with every exchange of the run', () => {
    const har = JSON.parse(read('exchanges.har'));
    expect(harProblems(har)).toEqual([]);
    const result = JSON.parse(read('result.json')) as RunResult;
    expect(har.log.entries).toHaveLength(result.counts.requests);
    expect(har.log.entries.some((e: { response: { status: number } }) => e.response.status === 405)).toBe(true);
  });

  test('the certification bundle has the product, a summary and a manifest that matches its files', () => {
    const bundle = file('certification');
    expect(readdirSync(bundle).sort()).toEqual(['PRODUCT.json', 'SUMMARY.md', 'junit.xml', 'report.html', 'result.json']);
    expect(JSON.parse(readFileSync(join(bundle, 'PRODUCT.json'), 'utf8'))).toEqual({ vendor: 'Acme', product: 'Acme Scheduling', version: '2.4.1', contact: 'qa@acme.example' });
    const summary = readFileSync(join(bundle, 'SUMMARY.md'), 'utf8');
    expect(summary).toMatch(/\*\*Verdict: NOT CONFORMANT\*\*/);
    expect(summary).toMatch(/\*\*Certified: no — a MUST check failed\*\*/);
    const { must } = (JSON.parse(read('result.json')) as RunResult).counts;
    expect(summary).toContain(`| MUST | ${must.passed} | ${must.failed} |`);
    const manifest = [...summary.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => [m[2], m[1]]);
    expect(manifest.map(([f]) => f).sort()).toEqual(['PRODUCT.json', 'junit.xml', 'report.html', 'result.json']);
    for (const [name, hash] of manifest) expect(sha256(readFileSync(join(bundle, name))), name).toBe(hash);
  });

  // Asynchronously: the reference answers from this very process.
  test('the cURL reproduction of a failure repeats it with the key from the environment', async () => {
    const result = JSON.parse(read('result.json')) as RunResult;
    const exchange = result.checks.find((c) => c.id === KILLED[0])!.exchanges.at(-1)!;
    const html = read('report.html');
    const command = /<pre>(curl -i --request GET [^<]*business[^<]*)<\/pre>/.exec(html)![1].replace(/&#39;/g, "'").replace(/&quot;/g, '"');
    const { stdout } = await promisify(execFile)('bash', ['-c', `${command} --max-time 10`], { env: { PATH: process.env.PATH, SCHEDULING_API_KEY: KEY } });
    expect(stdout).toMatch(new RegExp(`^HTTP/1.1 ${exchange.response!.status}`));
  });
});

describe('every outcome renders in every format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scr-sample-'));
  const sample = sampleRun();
  writeReports(dir, sample, { redact: (t) => t, certify: { vendor: 'V', product: 'P', version: '1' } });

  test('the model: a pinned failure passes the run, a stale pin and an unknown pin are reported', () => {
    expect(sample.exitCode).toBe(1); // an unpinned failure proves non-conformance, even beside a suite error
    expect(sample.counts.knownDeviations).toBe(1);
    expect(sample.checks.find((c) => c.id === 'OP-DOCUMENTED:listCustomers')!.expected!.status).toBe('now-passes');
    expect(sample.unmatchedExpectations).toEqual(['GONE-CHECK']);
    expect(resultProblems(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')))).toEqual([]);
    expect(harProblems(JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')))).toEqual([]);
  });

  test.skipIf(!hasXmllint)('JUnit: warnings pass, n/a, blocked, skipped and known deviations are skipped, suite errors are errors', () => {
    expect(junitProblems(join(dir, 'junit.xml'))).toBe('');
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml.match(/<skipped /g)).toHaveLength(4);
    expect(xml).toContain('<skipped message="blocked by BUS-GET-200: no change is made without a snapshot to restore"/>');
    expect(xml.match(/<error /g)).toHaveLength(1);
    expect(xml).toContain('WARNING (SHOULD; fails only with --strict): labelled text/plain');
    expect(xml).toContain('known deviation (--expect): tracked https://example.com/issues/1');
    expect(xml).not.toMatch(/[\u0001]/);
  });

  test('HTML and SUMMARY.md end with what was left on the target', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<code>customer 42</code></td><td>delete answered 500');
    expect(html).toContain('O&#39;Brien &amp; &lt;Sons&gt;');
    expect(html).toContain('<span class="badge blocked">blocked</span>');
    expect(readFileSync(join(dir, 'certification', 'SUMMARY.md'), 'utf8')).toContain('- `customer 42`: delete answered 500');
  });
});

describe('no pass without proof', () => {
  const checkOf = (checkId: string, outcome: CollectedCheck['outcome'], reason?: string): CollectedCheck => {
    const requirement = loadCatalog().byId.get(checkId.split(':')[0])!;
    return { id: checkId, requirement: requirement.id, level: requirement.level, clause: requirement.clause, title: checkId, resource: 'business', outcome, reason, durationMs: 1, exchanges: [], notes: [] };
  };
  const runOf = (checks: CollectedCheck[], extra: Partial<Parameters<typeof buildRunResult>[0]> = {}) => buildRunResult({
    suiteVersion: '0.1.0', specSha256: 'a'.repeat(64), baseUrl: 'http://127.0.0.1:4010', embeddedReference: false,
    startedAt: new Date(0), endedAt: new Date(1), strict: false, readOnly: false, certify: false, checks, observations: [],
    suiteErrors: [], ...extra,
  });

  test('a MUST requirement with no check that passed, for a reason the catalog does not allow: INCOMPLETE, exit 2', () => {
    const run = runOf([checkOf('BUS-UPDATE-200:name', 'not-applicable', 'the retrieval does not return name'), checkOf('BUS-GET-200', 'passed')]);
    expect(run.verdict).toBe('incomplete');
    expect(run.exitCode).toBe(2);
    expect(run.untested).toEqual([{ requirement: 'BUS-UPDATE-200', reason: 'no check of it ran and passed: BUS-UPDATE-200:name not-applicable: the retrieval does not return name', allowed: false }]);
  });

  test('the expired key may stay untested: CONFORMANT, and the verdict line says "not tested"', () => {
    const run = runOf([checkOf('BUS-AUTH-EXPIRED:retrieveBusiness', 'not-applicable', 'no expired key was given: set --expired-key'), checkOf('BUS-GET-200', 'passed')]);
    expect(run.verdict).toBe('conformant');
    expect(run.exitCode).toBe(0);
    expect(notTestedText(run)).toBe('not tested: BUS-AUTH-EXPIRED (no expired key was given: set --expired-key)');
  });

  test('a blocked MUST check makes a run without failures INCOMPLETE, even when its requirement passed elsewhere', () => {
    const run = runOf([checkOf('BUS-AUTH-MISSING:retrieveBusiness', 'passed'), checkOf('BUS-AUTH-MISSING:updateBusiness', 'blocked', 'blocked by BUS-UPDATE-200: no field')]);
    expect(run.verdict).toBe('incomplete');
    expect(run.untested.map((u) => u.requirement)).toEqual(['BUS-AUTH-MISSING']);
  });

  test('a requirement none of whose checks the run selected (--read-only, --only) is outside the run', () => {
    const run = runOf([checkOf('BUS-UPDATE-200:name', 'skipped', 'left out of a --read-only run'), checkOf('BUS-GET-200', 'passed')], { readOnly: true });
    expect(run.verdict).toBe('conformant');
    expect(run.untested).toEqual([]);
    // Nor is a check --only selected whose prerequisite --only left out.
    const only = runOf([checkOf('BUS-UPDATE-APPLIES:name', 'not-applicable', dependsOnUnselected('BUS-UPDATE-200:name')), checkOf('BUS-GET-200', 'passed')], { only: 'BUS-UPDATE-APPLIES:name|BUS-GET-200' });
    expect(only.verdict).toBe('conformant');
    expect(only.untested).toEqual([]);
  });

  test('a blocked SHOULD check is no proof either: under --strict, where it could fail the run, the run is incomplete', () => {
    const checks = () => [checkOf('BUS-GET-200', 'passed'), checkOf('CUS-UNKNOWN-404:update', 'blocked', 'blocked by the target: PATCH /api/v1/customers/c1 answered 503 each of the 4 times it was asked')];
    expect(runOf(checks())).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    const strict = runOf(checks(), { strict: true });
    expect(strict).toMatchObject({ verdict: 'incomplete', exitCode: 2 });
    expect(strict.untested).toEqual([expect.objectContaining({ requirement: 'CUS-UNKNOWN-404', allowed: false })]);
  });

  test('a run that judged no check proves nothing: incomplete, exit 2, and it says why', () => {
    const run = runOf([checkOf('BUS-UPDATE-APPLIES:name', 'not-applicable', dependsOnUnselected('BUS-UPDATE-200:name'))], { only: 'BUS-UPDATE-APPLIES:name' });
    expect(run).toMatchObject({ verdict: 'incomplete', exitCode: 2, untested: [] });
    expect(incompleteText(run)).toMatch(/^no check was judged/);
    expect(toSummaryMarkdown(run)).toMatch(/^## Scheduling API v1 conformance: INCOMPLETE for the checks selected by --only "BUS-UPDATE-APPLIES:name"\n\nIncomplete: no check was judged/);
  });
});

describe('small parts', () => {
  test('shellWord quotes literals and leaves the key placeholders to the shell', () => {
    expect(shellWord(`Bearer $SCHEDULING_API_KEY`)).toBe(`'Bearer '"$SCHEDULING_API_KEY"`);
    expect(shellWord(`it's $HOME`)).toBe(`'it'\\''s $HOME'`);
    const echoed = execFileSync('bash', ['-c', `printf %s ${shellWord(`a'b "$SCHEDULING_EXPIRED_KEY" $(x)`)}`], { env: { SCHEDULING_EXPIRED_KEY: 'E' }, encoding: 'utf8' });
    expect(echoed).toBe(`a'b "E" $(x)`);
  });

  test('colours only on a TTY without CI or NO_COLOR', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(useColour(tty, {})).toBe(true);
    expect(useColour(tty, { CI: 'true' })).toBe(false);
    expect(useColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
  });
});
