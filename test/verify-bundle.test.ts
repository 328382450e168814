/**
 * `scheduling-conformance verify <bundle-dir>` on bundles written the way --certify writes them,
 * from synthetic runs (no suite run): a whole bundle of a complete run holds, and every way of
 * not holding is named.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildRunResult, type RunFacts, type RunResult } from '../helpers/results/run-result.ts';
import { writeReports } from '../helpers/results/write-reports.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { suiteVersion } from '../helpers/core/version.ts';
import { runReasons, verifyBundle } from '../helpers/results/verify-bundle.ts';
import { main } from '../helpers/command/cli.ts';
import type { Outcome } from '../helpers/core/outcome.ts';

let specSha256 = '';
beforeAll(async () => void (specSha256 = (await loadSpec()).sha256));

const product = { vendor: 'Example Ltd', product: 'Example Scheduler', version: '1.0.0' };

/** A certification bundle of a run with one passed check per requirement, changed by `change`. */
function bundle(change: (f: RunFacts) => void = () => undefined): string {
  const catalog = loadCatalog();
  const facts: RunFacts = {
    suiteVersion, specSha256, baseUrl: 'https://staging.example.com', embeddedReference: false,
    startedAt: new Date('2026-01-02T03:04:05Z'), endedAt: new Date('2026-01-02T03:05:05Z'),
    strict: false, readOnly: false, certify: true,
    checks: catalog.requirements.map((r) => ({
      id: r.id, requirement: r.id, level: r.level, clause: r.clause, title: `title of ${r.id}`, resource: 'business',
      outcome: 'passed' as Outcome, durationMs: 1, exchanges: [], notes: [],
    })),
    observations: [], suiteErrors: [],
  };
  change(facts);
  const dir = mkdtempSync(join(tmpdir(), 'scr-bundle-'));
  return writeReports(dir, buildRunResult(facts), { redact: (t) => t, certify: product }).bundle!;
}

const mustCheck = (f: RunFacts) => f.checks.find((c) => c.level === 'MUST')!;
/** A run given no expired key: BUS-AUTH-EXPIRED not applicable, for the reason the catalog allows. */
const expiredUntested = (f: RunFacts) => void Object.assign(f.checks.find((c) => c.requirement === 'BUS-AUTH-EXPIRED')!, { outcome: 'not-applicable', reason: 'no expired key was given (--expired-key)' });

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {}, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

describe('verify <bundle-dir>', () => {
  test('a whole bundle of a complete run that failed no MUST check holds: exit 0 and a statement of what it proves', async () => {
    const dir = bundle();
    expect((await verifyBundle(dir)).reasons).toEqual([]);
    const run = await cli(['verify', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the certification holds');
    expect(run.stdout).toMatch(/This bundle proves that Example Scheduler 1\.0\.0 of Example Ltd, tested at https:\/\/staging\.example\.com/);
    expect(run.stdout).toContain(specSha256);
    // The report directory that holds the bundle is accepted too.
    expect((await cli(['verify', join(dir, '..')])).code).toBe(0);
  });

  test('a changed byte in any file of the bundle fails it, naming the file', async () => {
    const files = readdirSync(bundle());
    expect(files.sort()).toEqual(['PRODUCT.json', 'SUMMARY.md', 'junit.xml', 'report.html', 'result.json']);
    for (const file of files) {
      const dir = bundle();
      const bytes = readFileSync(join(dir, file));
      const i = Math.floor(bytes.length / 2);
      bytes[i] = bytes[i] === 0x41 ? 0x42 : 0x41;
      writeFileSync(join(dir, file), bytes);
      const result = await verifyBundle(dir);
      expect(result.holds, file).toBe(false);
      expect(result.reasons.join('\n'), file).toContain(file);
      expect((await cli(['verify', dir])).code, file).toBe(1);
    }
  });

  test('a file the manifest does not list fails it', async () => {
    const dir = bundle();
    writeFileSync(join(dir, 'extra.txt'), 'x');
    expect((await verifyBundle(dir)).reasons).toEqual(['extra.txt is in the bundle but not in the manifest']);
  });

  test('a run that was not complete, or failed a MUST check, does not hold, and every reason is named', async () => {
    const cases: [string, (f: RunFacts) => void, RegExp][] = [
      ['--only', (f) => void (f.only = '^BUS-'), /only some checks ran \(--only \^BUS-\)/],
      ['--read-only', (f) => void (f.readOnly = true), /--read-only/],
      ['--expect', (f) => void (f.expectFile = 'expect.json'), /known deviations were pinned \(--expect expect\.json\)/],
      ['stopped', (f) => void (f.stopped = 'run-timeout'), /the run was stopped \(run-timeout\)[\s\S]*INCOMPLETE/],
      ['suite error', (f) => void f.suiteErrors.push('business.test.ts: boom'), /suite error/],
      ['MUST failure', (f) => void Object.assign(mustCheck(f), { outcome: 'failed', reason: 'answered 500' }), /MUST check \S+ failed \(clause [^)]+\): answered 500/],
      // An outcome this version does not know (another engineer's "blocked") is not a pass.
      ['blocked MUST', (f) => void Object.assign(mustCheck(f), { outcome: 'blocked', reason: 'its setup failed' }), /MUST check \S+ did not run to an outcome \(blocked: its setup failed\)/],
      ['skipped MUST', (f) => void Object.assign(mustCheck(f), { outcome: 'skipped', reason: 'not run' }), /did not run to an outcome \(skipped/],
      ['a missing requirement', (f) => void f.checks.splice(f.checks.indexOf(mustCheck(f)), 1), /MUST requirement \S+ \(clause [^)]+\) has no check/],
      ['another suite version', (f) => void (f.suiteVersion = '0.0.1'), /made by scheduling-conformance 0\.0\.1, not by this suite/],
      ['another spec', (f) => void (f.specSha256 = 'b'.repeat(64)), /made against a spec with SHA-256 b{64}/],
      ['not a certification', (f) => void (f.certify = false), /not a certification run/],
      // The suite's own reference is a self-test, and no MUST may stay untested.
      ['the embedded reference', (f) => void (f.embeddedReference = true), /the run tested the suite's own embedded reference implementation \(a self-test\), not a vendor's implementation/],
      ['no expired key', expiredUntested, /MUST requirement BUS-AUTH-EXPIRED has no proof \(not tested\): no check of it ran and passed: BUS-AUTH-EXPIRED not-applicable: no expired key was given/],
    ];
    // A requirement without proof, as result.json names it where the run model has "untested".
    const unproven = bundle();
    const result = JSON.parse(readFileSync(join(unproven, 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(runReasons({ ...result, untested: [{ requirement: 'BUS-UPDATE-200', reason: '2 of its checks blocked', allowed: false }] } as Partial<RunResult>, specSha256)).toContain('MUST requirement BUS-UPDATE-200 has no proof: 2 of its checks blocked');
    for (const [name, change, reason] of cases) {
      const result = await verifyBundle(bundle(change));
      expect(result.holds, name).toBe(false);
      expect(result.reasons.join('\n'), name).toMatch(reason);
      expect(result.statement, name).toMatch(/^This bundle does not prove/);
    }
    // What the bundle itself says of an incomplete run: not certified, and why.
    const blockedDir = bundle((f) => void Object.assign(mustCheck(f), { outcome: 'blocked', reason: 'blocked by BUS-GET-200: the retrieval answered 404' }));
    expect(readFileSync(join(blockedDir, 'SUMMARY.md'), 'utf8')).toMatch(/Certified: no — the run is incomplete: .+/);
    expect(readFileSync(join(bundle((f) => void Object.assign(mustCheck(f), { outcome: 'failed', reason: 'answered 500' })), 'SUMMARY.md'), 'utf8')).toContain('Certified: no — a MUST check failed');
    expect(readFileSync(join(bundle(), 'SUMMARY.md'), 'utf8')).toMatch(/Certified: yes/);
    // A conformant verdict that leaves a MUST untested, or a self-test, is not a certification.
    const untested = bundle(expiredUntested);
    expect(JSON.parse(readFileSync(join(untested, 'result.json'), 'utf8'))).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    expect(readFileSync(join(untested, 'SUMMARY.md'), 'utf8')).toContain('**Certified: no — not every MUST requirement was tested: BUS-AUTH-EXPIRED (no expired key was given (--expired-key))**');
    expect(readFileSync(join(bundle((f) => void (f.embeddedReference = true)), 'SUMMARY.md'), 'utf8')).toMatch(/\*\*Certified: no — a self-test: the run tested the suite's own embedded reference implementation, not the product named here/);
    // Several reasons at once: all of them, not the first.
    const many = await verifyBundle(bundle((f) => Object.assign(f, { only: 'x', expectFile: 'e.json' })));
    expect(many.reasons.filter((r) => /--only|--expect/.test(r))).toHaveLength(2);
  });

  test('a missing SUMMARY.md or a path that is no directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scr-bundle-'));
    appendFileSync(join(dir, 'result.json'), '{}');
    const run = await cli(['verify', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('SUMMARY.md is missing');
    const none = await cli(['verify', join(dir, 'nope')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`scheduling-conformance: verify: ${join(dir, 'nope')} is not a directory\n`);
    expect((await cli(['verify'])).code).toBe(2);
  });
});
