/**
 * Certification means a vendor's implementation was tested whole. The embedded
 * reference is a self-test and never "Certified: yes"; a MUST left untested (no expired key)
 * means "Certified: no" with the reason; verify refuses both. Whole runs, in process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess, runMain } from './support/cli.ts';

const PRODUCT = ['--certify', '--vendor', 'Acme', '--product', 'AcmeSched', '--product-version', '1.0.0'];
let ref: RunningReference;
beforeAll(async () => void (ref = await startReference({})));
afterAll(() => ref?.close());

const verify = (dir: string) => runMain(['verify', join(dir, 'certification')]);
const summaryOf = (dir: string) => readFileSync(join(dir, 'certification/SUMMARY.md'), 'utf8');

test('without --base-url: a self-test of the embedded reference, never a certification of the product named', async () => {
  const run = await runInProcess(PRODUCT, {});
  // The reference conforms: the verdict says so, the certification does not.
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^Certified: no — a self-test: the run tested the suite's own embedded reference implementation, not the product named here/m);
  expect(run.stderr).toMatch(/^scheduling-conformance: not certified: a self-test/m);
  expect(summaryOf(run.reportDir)).toMatch(/\*\*Certified: no — a self-test: .*\(certify with --base-url of the product's deployment\)\*\*/);
  expect(summaryOf(run.reportDir)).not.toContain('Certified: yes');
  const verified = await verify(run.reportDir);
  expect(verified.code).toBe(1);
  expect(verified.stdout).toContain('the run tested the suite\'s own embedded reference implementation (a self-test), not a vendor\'s implementation');
  expect(verified.stdout).toMatch(/This bundle does not prove that AcmeSched 1\.0\.0 of Acme conforms/);
});

test('a vendor\'s target without an expired key: conformant as far as tested, not certified, and verify says which MUST was not tested', async () => {
  const run = await runInProcess(['--base-url', ref.url, ...PRODUCT], { SCHEDULING_API_KEY: ref.apiKey });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/verdict CONFORMANT; not tested: BUS-AUTH-EXPIRED/);
  expect(summaryOf(run.reportDir)).toContain('**Certified: no — not every MUST requirement was tested: BUS-AUTH-EXPIRED (no expired key was given');
  const verified = await verify(run.reportDir);
  expect(verified.code).toBe(1);
  expect(verified.stdout).toMatch(/MUST requirement BUS-AUTH-EXPIRED has no proof \(not tested\)/);
});

test('a vendor\'s target with both keys: certified, and verify holds', async () => {
  const run = await runInProcess(['--base-url', ref.url, ...PRODUCT], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toBe('');
  expect(run.stdout).toMatch(/^Certified: yes$/m);
  expect(summaryOf(run.reportDir)).toContain('**Certified: yes**');
  const verified = await verify(run.reportDir);
  expect(verified.code, verified.stdout).toBe(0);
  expect(verified.stdout).toMatch(/This bundle proves that AcmeSched 1\.0\.0 of Acme, tested at http:\/\/127\.0\.0\.1:\d+ on /);
});
