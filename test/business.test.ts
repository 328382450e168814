/**
 * The business lane against the reference implementation: every business check passes and the
 * record is byte-for-byte as it was before the run (the variations are in variations.test.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startReference, type ReferenceOptions } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

const configDir = mkdtempSync(join(tmpdir(), 'scr-business-'));

/** Runs the command against a fresh reference; returns the business checks and the record before and after. */
async function runAgainst(options: ReferenceOptions, extra: { args?: string[]; vendorConfig?: Record<string, unknown>; expiredKey?: boolean } = {}) {
  const ref = await startReference(options);
  try {
    const before = JSON.stringify(ref.state.business);
    const args = ['--base-url', ref.url, ...(extra.args ?? [])];
    if (extra.vendorConfig) {
      const file = join(configDir, `${Object.keys(extra.vendorConfig).join('-')}-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify(extra.vendorConfig));
      args.push('--config', file);
    }
    const env: Record<string, string> = { SCHEDULING_API_KEY: ref.apiKey };
    if (extra.expiredKey !== false) env.SCHEDULING_EXPIRED_KEY = ref.expiredKey;
    const run = await runInProcess(args, env);
    const checks = readResult(run).checks.filter((c) => c.resource === 'business');
    return { run, checks, before, after: JSON.stringify(ref.state.business) };
  } finally {
    await ref.close();
  }
}

const outcomes = (checks: { checkId: string; outcome: string }[], wanted: string[]) =>
  checks.filter((c) => wanted.includes(c.outcome)).map((c) => c.checkId);

describe.concurrent('business lane against the reference implementation', () => {
  test('passes every business check and leaves the record byte-for-byte as before', async () => {
    const { run, checks, before, after } = await runAgainst({});
    expect(run.code, run.stderr).toBe(0);
    expect(checks.length).toBeGreaterThan(100);
    expect(outcomes(checks, ['failed', 'warning', 'not-applicable', 'skipped'])).toEqual([]);
    expect(after).toBe(before);
  });

  test('reports the expired-key checks not applicable, with the reason, when no expired key is given', async () => {
    const { run, checks } = await runAgainst({}, { expiredKey: false });
    expect(run.code, run.stderr).toBe(0);
    const na = checks.filter((c) => c.outcome === 'not-applicable');
    expect(na.map((c) => c.checkId).sort()).toEqual([
      'BUS-AUTH-EXPIRED:retrieveBusiness', 'BUS-AUTH-EXPIRED:updateBusiness',
      'BUS-AUTH-NO-ECHO:retrieveBusiness:expired-key', 'BUS-AUTH-NO-ECHO:updateBusiness:expired-key',
      'BUS-AUTH-REJECTED-NO-CHANGE:expired-key',
    ]);
    for (const c of na) expect(c.reason, c.checkId).toMatch(/no expired key was given/);
  });

  test('reports the email checks not applicable when the retrieval has no field of the configured name', async () => {
    const { run, checks, before, after } = await runAgainst({}, { vendorConfig: { businessEmailField: 'contactEmail' } });
    expect(run.code, run.stderr).toBe(0);
    const na = checks.filter((c) => c.outcome === 'not-applicable');
    expect(na.map((c) => c.checkId).sort()).toEqual(['BUS-GET-TYPES:contactEmail', 'BUS-UPDATE-200:contactEmail', 'BUS-UPDATE-APPLIES:contactEmail', 'BUS-UPDATE-PARTIAL:contactEmail']);
    expect(na.find((c) => c.checkId === 'BUS-UPDATE-200:contactEmail')?.reason).toMatch(/businessEmailField/);
    expect(after).toBe(before);
  });

  test('changes nothing and sends no update under --read-only', async () => {
    const { run, checks, before, after } = await runAgainst({}, { args: ['--read-only'] });
    expect(run.code, run.stderr).toBe(0);
    const sent = checks.flatMap((c) => c.exchanges.map((e) => e.request.method));
    expect(sent).not.toContain('PATCH');
    expect(outcomes(checks, ['skipped']).length).toBeGreaterThan(50);
    expect(after).toBe(before);
  });
});
