/**
 * The business lane against the reference implementation: every business check passes and the
 * record is byte-for-byte as it was before the run (the variations are in variations.test.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startReference, type ReferenceOptions } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { runConformance } from '../helpers/api.ts';
import { readResult } from './support/verdicts.ts';
import { nearMissKeys } from '../helpers/http/redact.ts';
import { readRequestLog } from '../helpers/http/exchanges.ts';
import { REQUEST_LOG_FILE } from '../helpers/results/report-files.ts';
import { HEADER_NEAR_MISS_NAMES } from '../helpers/http/authorization.ts';

const configDir = mkdtempSync(join(tmpdir(), 'scr-business-'));

/** Runs the command against a fresh reference; returns the business checks and the record before and after. */
async function runAgainst(options: ReferenceOptions, extra: { args?: string[]; vendorConfig?: Record<string, unknown>; expiredKey?: boolean } = {}) {
  const ref = await startReference(options);
  try {
    const before = JSON.stringify(ref.state.business);
    // The business's checks alone (and what they need): the customers' and team members' lanes
    // judge nothing these tests look at, and would double a run's requests.
    const args = ['--base-url', ref.url, ...(extra.args?.includes('--only') ? [] : ['--only', '^BUS-']), ...(extra.args ?? [])];
    if (extra.vendorConfig) {
      const file = join(configDir, `${Object.keys(extra.vendorConfig).join('-')}-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify(extra.vendorConfig));
      args.push('--config', file);
    }
    const env: Record<string, string> = { SCHEDULING_API_KEY: ref.apiKey };
    if (extra.expiredKey !== false) env.SCHEDULING_EXPIRED_KEY = ref.expiredKey;
    const run = await runInProcess(args, env, undefined, { resultOnly: true });
    const checks = readResult(run).checks.filter((c) => c.resource === 'business');
    return { run, checks, before, after: JSON.stringify(ref.state.business), apiKey: ref.apiKey };
  } finally {
    await ref.close();
  }
}

const outcomes = (checks: { id: string; outcome: string }[], wanted: string[]) =>
  checks.filter((c) => wanted.includes(c.outcome)).map((c) => c.id);

describe.concurrent('business lane against the reference implementation', () => {
  test('passes every business check and leaves the record byte-for-byte as before; no report shows a near miss of the key', async () => {
    const { run, checks, before, after, apiKey } = await runAgainst({});
    expect(run.code, run.stderr).toBe(0);
    expect(checks.length).toBeGreaterThan(100);
    expect(outcomes(checks, ['failed', 'warning', 'not-applicable', 'skipped'])).toEqual([]);
    expect(after).toBe(before);
    const misses = nearMissKeys(apiKey);
    expect(misses.map((m) => m.name)).toEqual(['key-without-first-character', 'key-without-last-character', 'key-with-middle-character-changed', 'key-with-one-character-changed', 'key-with-case-changed']);
    for (const file of readdirSync(run.reportDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile())) {
      const text = readFileSync(join(file.parentPath, file.name), 'utf8');
      for (const m of misses) expect(text.includes(m.key), `${file.name} shows ${m.name}`).toBe(false);
    }
  });

  test('a product that refuses every currency but its own: the change checks are not applicable, naming the values tried and businessValues', async () => {
    const { run, checks, before, after } = await runAgainst({ variations: ['currency-single'] });
    expect(run.code, run.stderr).toBe(0);
    const reason = checks.find((c) => c.id === 'BUS-UPDATE-200:currencyIso')?.reason;
    expect(reason).toMatch(/refused every value tried for currencyIso \("EUR" \(plausible\) answered 422; "GBP" \(plausible\) answered 422;/);
    expect(reason).toMatch(/businessValues\.currencyIso/);
    expect(checks.find((c) => c.id === 'BUS-UPDATE-CURRENCY-ONLY')?.outcome).toBe('passed');
    expect(after).toBe(before);
  });

  test('a product that validates its formats: the values it refused first are noted, the one it took is used', async () => {
    const { run, checks } = await runAgainst({ variations: ['currency-whitelist'] });
    expect(run.code, run.stderr).toBe(0);
    const step = checks.find((c) => c.id === 'BUS-UPDATE-200:currencyIso');
    expect(step?.notes.join('\n')).toMatch(/refused before: "EUR" \(plausible\) answered 422; "GBP" \(plausible\) answered 422/);
    expect(step?.exchanges.at(-1)?.request.body).toBe('{"currencyIso":"CAD"}');
  });

  test('a list read back in another order passes, noting the form it took; one that drops an element sent fails', async () => {
    // One element more is one the list lacks (the day of another, its own times): a set keeps it, in its own order.
    const sorted = await runAgainst({ variations: ['business-hours-as-set'] });
    expect(sorted.run.code, sorted.run.stderr).toBe(0);
    const more = sorted.checks.find((c) => c.id === 'BUS-UPDATE-BOUNDARY:businessHours:more');
    expect(more?.outcome).toBe('passed');
    expect(more?.exchanges[0]?.request.body).toMatch(/"WEDNESDAY","startTime":"10:00".*"WEDNESDAY","startTime":"09:00"/);
    expect(more?.notes.join('\n')).toMatch(/businessHours reads back .*WEDNESDAY.*09:00.*WEDNESDAY.*10:00.*: the target's own form, taken as the value sent \(list in another order; not shown/);
    const dropped = await runAgainst({ variations: ['business-hours-weekday-order'], faults: ['business-hours-one-per-day'] });
    expect(dropped.run.code).toBe(1);
    expect(outcomes(dropped.checks, ['failed'])).toEqual(['BUS-UPDATE-BOUNDARY:businessHours:more']);
  });

  test('a business whose nullable fields are all null: one field shows null round-tripping, then every other is tested; null kept as text fails that field, naming it and the request that frees it', async () => {
    const fresh = await runAgainst({ variations: ['business-nullable-unset'] });
    expect(fresh.run.code, fresh.run.stderr).toBe(0);
    expect(outcomes(fresh.checks, ['failed', 'not-applicable', 'blocked'])).toEqual([]);
    expect(fresh.after).toBe(fresh.before);
    const text = await runAgainst({ variations: ['business-nullable-unset'], faults: ['business-null-as-text'] });
    expect(text.run.code).not.toBe(0);
    expect(outcomes(text.checks, ['failed'])).toEqual(['BUS-UPDATE-NULLABLE:phoneNumber']);
    const reason = text.checks.find((c) => c.id === 'BUS-UPDATE-NULLABLE:phoneNumber')?.reason;
    expect(reason).toMatch(/reads back "null"; phoneNumber is left holding ".*", this run's value: PATCH \/api\/v1\/business \{"phoneNumber":null\} frees it/);
    // Null did not round-trip: no other field null before the run is changed.
    expect(text.checks.find((c) => c.id === 'BUS-UPDATE-200:address')?.reason).toMatch(/null did not round-trip on phoneNumber/);
  });

  test('a refusal of text beyond ASCII, of a charset parameter or of {} is no failure; each noted', async () => {
    const { run, checks, before, after } = await runAgainst({ variations: ['business-text-ascii-only', 'business-media-type-exact', 'business-empty-update-refused'] });
    expect(run.code, run.stderr).toBe(0);
    const note = (id: string) => checks.find((c) => c.id === id)?.notes.join('\n');
    // Text with the characters markup and quoting treat specially and beyond ASCII, then beyond ASCII alone, each refused.
    expect(note('BUS-UPDATE-200:name')).toMatch(/refused before: "Conformance Check Business <&> \\"'\\\\ % Zürich Ελλάδα 東京 𝄞 scr-\d{8}-[0-9a-f]{8}" \(plausible\) answered 422; "Conformance Check Business Zürich Ελλάδα 東京 𝄞 scr-\d{8}-[0-9a-f]{8}" \(plausible\) answered 422/);
    expect(note('BUS-UPDATE-MEDIA-TYPE')).toMatch(/with Content-Type application\/json; charset=utf-8 answered 415: the target refuses the parameter/);
    expect(note('BUS-UPDATE-EMPTY')).toMatch(/PATCH \/api\/v1\/business \{\} answered 422/);
    expect(after).toBe(before);
  });

  test('text cut to ASCII, a null that clears another field, an update ignored for its charset, {} that clears: each fails its check, naming what changed', async () => {
    const { checks } = await runAgainst({ faults: ['business-drops-non-ascii', 'business-null-clears-next', 'business-patch-charset-ignored', 'business-empty-body-resets'] });
    const reason = (id: string) => checks.find((c) => c.id === id)?.reason;
    expect(reason('BUS-UPDATE-APPLIES:name')).toMatch(/name reads back "Conformance Check Business <&> \\"'\\\\ % Zrich +scr-.*" after an update to "Conformance Check Business <&> \\"'\\\\ % Zürich Ελλάδα 東京 𝄞 scr-/);
    expect(reason('BUS-UPDATE-PARTIAL:phoneNumber:null')).toMatch(/PATCH \/api\/v1\/business \{"phoneNumber":null\} also changed address \(was "1 Example Street, Springfield", now null\)/);
    expect(reason('BUS-UPDATE-MEDIA-TYPE')).toMatch(/with Content-Type application\/json; charset=utf-8 answered 200, and \w+ reads .*: the update was not applied/);
    expect(reason('BUS-UPDATE-EMPTY')).toMatch(/PATCH \/api\/v1\/business \{\} answered 200 and changed .*businessHours/);
  });

  test('reads the record from a single-property envelope and says so', async () => {
    const { run, checks, before, after } = await runAgainst({ variations: ['business-envelope-data'] });
    expect(run.code, run.stderr).toBe(0);
    expect(checks.find((c) => c.id === 'BUS-GET-200')?.notes).toEqual(['the record is read from `data`, the one property of the answer holding documented fields']);
    expect(after).toBe(before);
  });

  test('asks for businessEnvelope (exit 2, one line) when two properties could hold the record', async () => {
    const record = { name: 'Two Shops', currencyIso: 'USD' };
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: record, business: record })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const run = await runInProcess(['--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`], { SCHEDULING_API_KEY: 'test_key_0123456789' });
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toMatch(/^[^\n]*the answer could hold the business record under "data" or "business"; name the property in the vendor config \(businessEnvelope\)$/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('refuses businessValues for a field that is not documented (exit 2)', async () => {
    const file = join(configDir, 'values-unknown.json');
    writeFileSync(file, JSON.stringify({ businessValues: { currency: ['EUR'] } }));
    const run = await runInProcess(['--base-url', 'http://127.0.0.1:9', '--config', file], { SCHEDULING_API_KEY: 'test_key_0123456789' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/businessValues: currency is not a documented business field/);
  });

  test('reports the expired-key checks not applicable, with the reason, when no expired key is given', async () => {
    const { run, checks } = await runAgainst({}, { expiredKey: false });
    expect(run.code, run.stderr).toBe(0);
    const na = checks.filter((c) => c.outcome === 'not-applicable');
    expect(na.map((c) => c.id).sort()).toEqual([
      'BUS-AUTH-EXPIRED:retrieveBusiness', 'BUS-AUTH-EXPIRED:updateBusiness',
      'BUS-AUTH-NO-ECHO:retrieveBusiness:expired-key', 'BUS-AUTH-NO-ECHO:updateBusiness:expired-key',
      'BUS-AUTH-REJECTED-NO-CHANGE:expired-key',
    ]);
    for (const c of na) expect(c.reason, c.id).toMatch(/no expired key was given/);
  });

  test('reports the email checks not applicable when the retrieval has no field of the configured name', async () => {
    const { run, checks, before, after } = await runAgainst({}, { vendorConfig: { businessEmailField: 'contactEmail' } });
    expect(run.code, run.stderr).toBe(0);
    const na = checks.filter((c) => c.outcome === 'not-applicable');
    expect(na.map((c) => c.id).sort()).toEqual(['BUS-GET-TYPES:contactEmail', 'BUS-UPDATE-200:contactEmail', 'BUS-UPDATE-APPLIES:contactEmail', 'BUS-UPDATE-BOUNDARY:contactEmail:empty', 'BUS-UPDATE-PARTIAL:contactEmail']);
    expect(na.find((c) => c.id === 'BUS-UPDATE-200:contactEmail')?.reason).toMatch(/businessEmailField/);
    expect(after).toBe(before);
  });

  test('the refused requests go out together, retrievals and updates, each reported by its own check, and only the selected ones', async () => {
    // 1 s per answer: were they sent one after another, no instant would lie inside all of them.
    const only = '^BUS-AUTH-(MISSING|INVALID):(retrieve|update)Business(?!:token-scheme)';
    const { run, before, after } = await runAgainst({ latencyMs: 1000 }, { args: ['--only', only] });
    expect(run.code, run.stderr).toBe(0);
    expect(after).toBe(before);
    const checks = readResult(run).checks.filter((c) => c.outcome === 'passed');
    for (const op of ['retrieveBusiness', 'updateBusiness']) {
      const refusals = checks.filter((c) => c.id.includes(`:${op}`)).map((c) => ({ id: c.id, sent: c.exchanges.filter((e) => e.response?.status === 401) }));
      // The missing key and every near miss of the header, but the one left out.
      expect(refusals.map((r) => r.id), op).toHaveLength(1 + HEADER_NEAR_MISS_NAMES.length - 1);
      // Each kind of refusal in every way it is sent: at least one per Accept value (six), a fresh
      // connection and one that has just carried the valid key (a retrieval first); each carried
      // by one case (the missing key, the unknown key), every other case sent as the contract writes it.
      const carriers = [`BUS-AUTH-MISSING:${op}`, `BUS-AUTH-INVALID:${op}:unknown-key`];
      for (const r of refusals) expect(r.sent.length, r.id).toBe(carriers.includes(r.id) ? Math.max(6, r.sent.length) : 1);
      const spans = refusals.flatMap((r) => r.sent).map((e) => [Date.parse(e.startedAt), Date.parse(e.startedAt) + e.durationMs]);
      // Those on a fresh connection go at once, the others after one retrieval: about 2 s (more on
      // a loaded machine), where one after another they would take over 100.
      expect(Math.max(...spans.map(([, end]) => end)) - Math.min(...spans.map(([start]) => start)), op).toBeLessThan(10_000);
    }
    // The case --only left out was not sent at all.
    expect(checks.flatMap((c) => c.exchanges).map((e) => e.request.headers.authorization)).not.toContainEqual(expect.stringMatching(/^Token /));
  });

  test('authorization is a function of the key alone: a retrieval served without a key when Accept is not application/json fails each kind of refusal, naming the crossing', async () => {
    const { run, checks, before, after } = await runAgainst({ fault: 'auth-json-accept-only' }, { args: ['--only', '^BUS-AUTH'] });
    expect(run.code, run.stderr).toBe(1);
    expect(after).toBe(before);
    const failed = checks.filter((c) => c.outcome === 'failed');
    expect(failed.map((c) => c.id).sort()).toEqual(['BUS-AUTH-MISSING:retrieveBusiness', 'BUS-AUTH-EXPIRED:retrieveBusiness', 'BUS-AUTH-INVALID:retrieveBusiness:unknown-key'].sort());
    for (const c of failed) {
      // Only the ways sent with an Accept that does not name JSON were served; the reason names them, not the others.
      expect(c.reason, c.id).toMatch(/answered 200 with (no Accept header|Accept: (\*\/\*|text\/html|application\/xml))/);
      expect(c.reason, c.id).not.toMatch(/answered 200 with (the declared headers|Accept: application\/json)/);
    }
    const missing = failed.find((c) => c.id === 'BUS-AUTH-MISSING:retrieveBusiness')!;
    const accepts = new Set(missing.exchanges.filter((e) => e.request.headers.authorization === undefined).map((e) => e.request.headers.accept ?? 'none'));
    expect(accepts).toEqual(new Set(['application/json', 'none', '*/*', 'application/json; charset=utf-8', 'text/html', 'application/xml']));
  });

  test('changes nothing and sends nothing but GET under --read-only, on the wire as in the reports', async () => {
    const { run, checks, before, after } = await runAgainst({}, { args: ['--read-only'] });
    expect(run.code, run.stderr).toBe(0);
    // Every request the run sent (the request log), not only those a report shows: a refused
    // update no selected check reports was sent all the same.
    const wire = readRequestLog(join(run.reportDir, REQUEST_LOG_FILE)).map((e) => e.exchange.request.method);
    expect(wire.length).toBeGreaterThan(10);
    expect([...new Set(wire)]).toEqual(['GET']);
    expect(outcomes(checks, ['skipped']).length).toBeGreaterThan(50);
    expect(after).toBe(before);
  });
});

/**
 * The lane leaves several fields changed at once (each stays at its new value until the
 * multi-field update restores them all): an interruption at any point of it still restores
 * everything. One run passes three points of the lane; at each, the record and the journal are
 * taken as they stand, as a run stopped there at once (a second SIGINT, a crash) would leave
 * them: every field that then differs was journalled before its write, and --recover puts the
 * record back from that journal alone. The run is stopped at the last point, as Ctrl-C does, and
 * restores the record itself. (test/safety.test.ts sends real signals to the command.)
 */
test('an interruption at any point of the business lane: every changed field is journalled, and the record is put back', async () => {
  type Business = Record<string, unknown>;
  const marked = (v: unknown) => typeof v === 'string' && /scr-\d{8}-[0-9a-f]{8}/.test(v);
  const points: [string, (now: Business, before: Business) => boolean][] = [
    ['at a null sent alone, before its field step', (now, before) => now.phoneNumber === null && before.phoneNumber !== null],
    ['half-way through the field steps', (now) => marked(now.termsAndConditionsUrl)],
    ['after the last field step, before the multi-field update restores them', (now) => marked(now.facebookUrl)],
  ];
  const ref = await startReference({ latencyMs: 50 });
  try {
    const before = structuredClone(ref.state.business);
    const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-interrupted-')), 'reports');
    const seen: { point: string; business: Business; journal: string }[] = [];
    const stop = new AbortController();
    // Each state lasts at least a round trip of 50 ms: a poll every few milliseconds meets it.
    const poll = setInterval(() => {
      const next = points[seen.length];
      if (!next?.[1](ref.state.business, before)) return;
      seen.push({ point: next[0], business: structuredClone(ref.state.business), journal: readFileSync(join(reportDir, 'run-journal.jsonl'), 'utf8') });
      if (seen.length === points.length) stop.abort();
    }, 2);
    const result = await runConformance({ baseUrl: ref.url, apiKey: ref.apiKey, expiredKey: ref.expiredKey, only: '^BUS-', reportDir, signal: stop.signal }).finally(() => clearInterval(poll));
    expect({ stopped: result.stopped, exitCode: result.exitCode, leftOnTarget: result.leftOnTarget }).toEqual({ stopped: 'interrupted', exitCode: 130, leftOnTarget: [] });
    expect(ref.state.business).toEqual(before);
    expect(seen.map((s) => s.point)).toEqual(points.map(([point]) => point));
    for (const { point, business, journal } of seen) {
      const changed = Object.keys(before).filter((f) => JSON.stringify(business[f]) !== JSON.stringify(before[f]));
      expect(changed.length, point).toBeGreaterThan(3);
      const entries = journal.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; path?: string; fields?: string[] });
      const written = new Set(entries.filter((e) => e.kind === 'wrote' && e.path === '/api/v1/business').flatMap((e) => e.fields ?? []));
      expect(changed.filter((f) => !written.has(f)), point).toEqual([]);
      ref.state.business = structuredClone(business);
      const dir = mkdtempSync(join(tmpdir(), 'scr-stopped-'));
      writeFileSync(join(dir, 'run-journal.jsonl'), journal);
      const recovered = await runInProcess(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
      expect(recovered.code, `${point}: ${recovered.stdout}${recovered.stderr}`).toBe(0);
      expect(ref.state.business, point).toEqual(before);
    }
  } finally {
    await ref.close();
  }
});
