/**
 * Why the fault matrix may hold one fault per lane in a run (test/support/fault-matrix.ts): a
 * fault's code lies in its own resource's routes, and a lane's checks ask only its own resource.
 * The business's two lanes share a resource and are kept apart by the key instead: a fault of
 * the key check changes no answer to the valid key, the business's other checks send only that
 * key, and they all run before the key checks (whose wrong-key updates such a fault may let
 * through); a fault of the business's fields changes no answer to the key checks' requests
 * without the valid key; the key checks that also read with the valid key belong to both lanes. Should any of this stop holding, a fault of
 * one lane could flag (or hide) a check of another, and the matrix's attribution by lane would
 * no longer be exact.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { FAULTS } from '../reference/faults/index.ts';
import { startReference } from '../reference/server.ts';
import { faultRuns, isKeyCheckFault, laneArgs, lanesOf, lanesOfCheck, laneOfCheck, READ_WITH_THE_KEY, RUN_LEVEL, sharesFamilyRun, type Lane } from './support/fault-matrix.ts';
import { selects } from '../helpers/core/selection.ts';
import type { FaultName } from '../reference/faults/index.ts';
import type { RunningReference } from '../reference/server.ts';
import { requirementOf } from '../helpers/contract/catalog.ts';
import { KEY_PLACEHOLDERS, nearMissKeys, secretPlaceholders } from '../helpers/http/redact.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';
import { projectRoot } from '../helpers/core/paths.ts';

/** Where each lane's faults may be consulted: its routes (the key check guards the business only). */
const LANE_FILES: Record<Lane, string[]> = {
  business: ['reference/routes/business.ts'],
  'business-key': ['reference/routes/auth.ts'],
  customers: ['reference/routes/customers.ts'],
  'team-members': ['reference/routes/team-members.ts'],
};
/** Faults named "<kind>:<operationId>" act on that operation only (reference/server.ts, faults/robustness.ts). */
const PER_OPERATION = /^(route-missing|html|truncated-json|server-error|not-json):(\w+)$/;

const sources = readdirSync(join(projectRoot, 'reference'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts') && !relative(projectRoot, e.parentPath).startsWith('reference/faults'))
  .map((e) => ({ file: relative(projectRoot, join(e.parentPath, e.name)), text: readFileSync(join(e.parentPath, e.name), 'utf8') }));

test('a fault that shares runs is consulted only in the routes of its lanes', () => {
  const shared = FAULTS.filter((f) => lanesOf(f));
  expect(shared.length).toBeGreaterThan(0);
  for (const fault of shared) {
    const lanes = lanesOf(fault)!;
    const op = PER_OPERATION.exec(fault.name)?.[2];
    if (op) {
      expect(lanes, fault.name).toContain(laneOfCheck(`OP-DOCUMENTED:${op}`));
      continue;
    }
    // A generated family's members (business-get-wrong-type:<field>) are consulted by the family's name.
    const named = fault.name.includes(':') ? `${fault.name.split(':')[0]}:` : `'${fault.name}'`;
    const at = sources.filter((s) => s.text.includes(named)).map((s) => s.file);
    expect(at.length, `${fault.name} is consulted nowhere by its name`).toBeGreaterThan(0);
    expect(at.filter((f) => !lanes.some((l) => LANE_FILES[l].includes(f))), `${fault.name} (${lanes.join(', ')})`).toEqual([]);
  }
});

test('every fault is in exactly one run, and no run holds two faults of one lane', () => {
  const runs = faultRuns(FAULTS);
  expect(runs.flat().map((f) => f.name).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  for (const run of runs) {
    const taken = run.flatMap((f) => lanesOf(f) ?? [f.name]);
    if (run.length > 1 && run.every(sharesFamilyRun)) expect(new Set(run.map((f) => f.name.split(':')[0])).size, run.map((f) => f.name).join(' + ')).toBe(1);
    else expect(new Set(taken).size, run.map((f) => f.name).join(' + ')).toBe(taken.length);
  }
  // The business's faults alone would need a run each: its two lanes share them out.
  const business = FAULTS.filter((f) => lanesOf(f)?.some((l) => l.startsWith('business')));
  expect(runs.length).toBeLessThan(FAULTS.length);
  expect(runs.filter((run) => run.some((f) => business.includes(f))).length).toBeLessThan(business.length);
});

const PATHS: Record<Lane, RegExp> = {
  business: /^\/api\/v1\/business$/,
  'business-key': /^\/api\/v1\/business$/,
  customers: /^\/api\/v1\/customers(\/|$)/,
  'team-members': /^\/api\/v1\/team-members(\/|$)/,
};

let checks: ReturnType<typeof readResult>['checks'];
beforeAll(async () => {
  const ref = await startReference(KEYS);
  try {
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: KEYS.apiKey, SCHEDULING_EXPIRED_KEY: KEYS.expiredKey }, undefined, { resultOnly: true });
    expect(run.code, run.stderr).toBe(0);
    checks = readResult(run).checks;
  } finally {
    await ref.close();
  }
});

test("a lane's checks ask only its own resource (the run-level checks, in no lane, read them all)", () => {
  const strays: string[] = [];
  for (const c of checks.filter((k) => !RUN_LEVEL.includes(requirementOf(k.id)))) {
    const lane = laneOfCheck(c.id);
    expect(lane, `${c.id} belongs to no lane`).toBeDefined();
    for (const e of c.exchanges) {
      const path = new URL(e.request.url).pathname;
      if (!PATHS[lane!].test(path)) strays.push(`${c.id}: ${e.request.method} ${path}`);
    }
  }
  expect(strays).toEqual([]);
});

test("a run of faults that share it runs exactly their lanes' checks and the frame; a fault judged by the whole run, every check", () => {
  const runs = faultRuns(FAULTS);
  for (const run of runs) {
    const args = laneArgs(run);
    const name = run.map((f) => f.name).join(' + ');
    if (!run.every((f) => lanesOf(f))) {
      expect(args, name).toEqual([]);
      continue;
    }
    const taken = new Set(run.flatMap((f) => lanesOf(f)!));
    const selected = checks.filter((c) => selects(args[1], c)).map((c) => c.id);
    expect(selected, name).toEqual(checks.filter((c) => c.id === 'WRITE-FRAME' || lanesOfCheck(c.id).some((l) => taken.has(l))).map((c) => c.id));
  }
  expect(runs.filter((run) => laneArgs(run).length).length).toBeGreaterThan(30);
});

/** How the reports show the valid key in a request (helpers/http/redact.ts). */
const VALID = `Bearer ${KEY_PLACEHOLDERS.apiKey}`;
const sendsTheKey = (c: (typeof checks)[number]) => c.exchanges.some((e) => e.request.headers.authorization === VALID);
/**
 * The 401 checks send a retrieval with the valid key on a connection before a refused request on
 * it (a key check cached on the connection): they judge only the refusal, never the retrieval's answer.
 */
const KEYING = ['BUS-AUTH-MISSING', 'BUS-AUTH-INVALID', 'BUS-AUTH-EXPIRED'];
const readsWithTheKey = (c: (typeof checks)[number]) =>
  c.exchanges.some((e) => e.request.headers.authorization === VALID && !(KEYING.includes(requirementOf(c.id)) && e.request.method === 'GET'));

test("the business's checks outside its key checks send only the valid key", () => {
  const business = checks.filter((c) => laneOfCheck(c.id) === 'business');
  expect(business.length).toBeGreaterThan(20);
  const other = business.flatMap((c) => c.exchanges.filter((e) => e.request.headers.authorization !== VALID).map((e) => `${c.id}: ${e.request.method} with ${e.request.headers.authorization}`));
  expect(other).toEqual([]);
});

test('the key checks that read with the valid key are exactly those of READ_WITH_THE_KEY, which belong to both business lanes', () => {
  const keyChecks = checks.filter((c) => laneOfCheck(c.id) === 'business-key');
  expect(keyChecks.length).toBeGreaterThan(20);
  expect([...new Set(keyChecks.filter(readsWithTheKey).map((c) => requirementOf(c.id)))].sort()).toEqual([...READ_WITH_THE_KEY].sort());
  expect([...new Set(keyChecks.filter(sendsTheKey).map((c) => requirementOf(c.id)))].sort()).toEqual([...KEYING, ...READ_WITH_THE_KEY].sort());
  for (const c of keyChecks) expect(lanesOfCheck(c.id).length, c.id).toBe(READ_WITH_THE_KEY.includes(requirementOf(c.id)) ? 2 : 1);
});

test('every key check runs after every other business check: what a key fault lets through changes the record only after them', () => {
  const business = checks.filter((c) => c.resource === 'business' || c.id.includes('Business'));
  const lastField = business.findLastIndex((c) => laneOfCheck(c.id) === 'business');
  const firstKey = business.findIndex((c) => laneOfCheck(c.id) === 'business-key');
  expect(firstKey).toBeGreaterThan(0);
  expect(lastField, `${business[lastField]?.id} comes after ${business[firstKey]?.id}`).toBeLessThan(firstKey);
});

/** The keys of every reference here: the answers of several are compared, and the run's requests replayed. */
const KEYS = { apiKey: 'ref_live_0123456789abcdef', expiredKey: 'ref_expired_0123456789' };

/** A request as a report shows it, with the keys put back in place of their placeholders (helpers/http/redact.ts). */
const unredacted = (text: string) =>
  [...secretPlaceholders(KEYS), ...nearMissKeys(KEYS.apiKey).map((m) => [m.key, m.placeholder] as const)]
    .sort((a, b) => b[1].length - a[1].length)
    .reduce((out, [key, placeholder]) => out.split(placeholder).join(key), text);

interface Asked {
  method: string;
  path: string;
  authorization?: string;
  body?: string;
}

/** What the target answers to each request (status, headers but the date, body), and the record it holds afterwards. */
async function answers(fault: FaultName | undefined, requests: Asked[]) {
  const ref = await startReference({ fault, ...KEYS });
  try {
    const said: string[] = [];
    for (const r of requests) {
      const res = await fetch(`${ref.url}${r.path}`, {
        method: r.method,
        headers: { ...(r.authorization === undefined ? {} : { authorization: r.authorization }), ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: r.body,
      });
      const headers = [...res.headers].filter(([name]) => name !== 'date').map(([name, value]) => `${name}: ${value}`);
      said.push(`${r.method} ${r.authorization} ${r.body}: ${res.status} ${headers.join(', ')} ${await res.text()}`);
    }
    return { said, holds: ref.state.business };
  } finally {
    await ref.close();
  }
}

test('a fault of the key check changes no answer to the valid key', async () => {
  const keyFaults = FAULTS.filter((f) => lanesOf(f)?.join() === 'business-key');
  expect(keyFaults.length).toBeGreaterThan(10);
  expect(keyFaults.every(isKeyCheckFault)).toBe(true);
  const body = JSON.stringify({ name: 'Conformance Lane Proof', useGdprCompliance: false });
  const withKey = ['GET', 'PATCH', 'GET'].map((method) => ({ method, path: '/api/v1/business', authorization: `Bearer ${KEYS.apiKey}`, body: method === 'PATCH' ? body : undefined }));
  const clean = await answers(undefined, withKey);
  for (const fault of keyFaults) expect(await answers(fault.name, withKey), fault.name).toEqual(clean);
});

test('a fault of the business outside its key checks changes no answer to the requests the key checks send without the valid key', async () => {
  const fieldFaults = FAULTS.filter((f) => lanesOf(f)?.join() === 'business');
  expect(fieldFaults.length).toBeGreaterThan(10);
  // The key checks' own requests, as the clean run sent them.
  const sent = checks.filter((c) => laneOfCheck(c.id) === 'business-key').flatMap((c) => c.exchanges).filter((e) => e.request.headers.authorization !== VALID);
  const asked = [...new Map(sent.map((e) => {
    const r: Asked = { method: e.request.method, path: new URL(e.request.url).pathname, authorization: e.request.headers.authorization && unredacted(e.request.headers.authorization), body: e.request.body };
    return [JSON.stringify(r), r] as const;
  })).values()];
  expect(asked.filter((r) => r.method === 'PATCH').length).toBeGreaterThan(10);
  expect(asked.filter((r) => r.authorization?.includes('SCHEDULING_')), 'a placeholder left in a key').toEqual([]);
  const clean = await answers(undefined, asked);
  expect(clean.said.filter((s) => !/: 401 /.test(s))).toEqual([]);
  for (const fault of fieldFaults) expect(await answers(fault.name, asked), fault.name).toEqual(clean);
});
