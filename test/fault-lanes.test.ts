/**
 * Why the fault matrix may hold one fault per lane in a run (test/support/fault-matrix.ts): a
 * fault's code lies in its own resource's routes, and a lane's checks ask only its own resource.
 * Should either stop holding, a fault of one lane could flag (or hide) a check of another, and
 * the matrix's attribution by lane would no longer be exact.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { FAULTS } from '../reference/faults/index.ts';
import { startReference } from '../reference/server.ts';
import { faultRuns, laneOf, laneOfCheck, sharesFamilyRun, type Lane } from './support/fault-matrix.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';
import { projectRoot } from '../helpers/core/paths.ts';

/** Where each lane's faults may be consulted: its routes (the key check guards the business only). */
const LANE_FILES: Record<Lane, string[]> = {
  business: ['reference/routes/business.ts', 'reference/routes/auth.ts'],
  customers: ['reference/routes/customers.ts'],
  'team-members': ['reference/routes/team-members.ts'],
};
/** Faults named "<kind>:<operationId>" act on that operation only (reference/server.ts, faults/robustness.ts). */
const PER_OPERATION = /^(route-missing|html|truncated-json|server-error|not-json):(\w+)$/;

const sources = readdirSync(join(projectRoot, 'reference'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts') && !relative(projectRoot, e.parentPath).startsWith('reference/faults'))
  .map((e) => ({ file: relative(projectRoot, join(e.parentPath, e.name)), text: readFileSync(join(e.parentPath, e.name), 'utf8') }));

test('a fault that shares runs is consulted only in the routes of its lane', () => {
  const shared = FAULTS.filter((f) => laneOf(f));
  expect(shared.length).toBeGreaterThan(0);
  for (const fault of shared) {
    const lane = laneOf(fault)!;
    const op = PER_OPERATION.exec(fault.name)?.[2];
    if (op) {
      expect(laneOfCheck(`OP-DOCUMENTED:${op}`), fault.name).toBe(lane);
      continue;
    }
    const at = sources.filter((s) => s.text.includes(`'${fault.name}'`)).map((s) => s.file);
    expect(at.length, `${fault.name} is consulted nowhere by its name`).toBeGreaterThan(0);
    expect(at.filter((f) => !LANE_FILES[lane].includes(f)), `${fault.name} (${lane})`).toEqual([]);
  }
});

test('every fault is in exactly one run, and no run holds two faults of one lane', () => {
  const runs = faultRuns(FAULTS);
  expect(runs.flat().map((f) => f.name).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  for (const run of runs) {
    if (run.length > 1 && run.every(sharesFamilyRun)) expect(new Set(run.map((f) => f.name.split(':')[0])).size, run.map((f) => f.name).join(' + ')).toBe(1);
    else expect(new Set(run.map((f) => laneOf(f) ?? f.name)).size, run.map((f) => f.name).join(' + ')).toBe(run.length);
  }
  expect(runs.length).toBeLessThan(FAULTS.length);
});

const PATHS: Record<Lane, RegExp> = {
  business: /^\/api\/v1\/business$/,
  customers: /^\/api\/v1\/customers(\/|$)/,
  'team-members': /^\/api\/v1\/team-members(\/|$)/,
};

let checks: ReturnType<typeof readResult>['checks'];
beforeAll(async () => {
  const ref = await startReference();
  try {
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
    expect(run.code, run.stderr).toBe(0);
    checks = readResult(run).checks;
  } finally {
    await ref.close();
  }
});

test("a lane's checks ask only its own resource", () => {
  const strays: string[] = [];
  for (const c of checks) {
    const lane = laneOfCheck(c.id);
    expect(lane, `${c.id} belongs to no lane`).toBeDefined();
    for (const e of c.exchanges) {
      const path = new URL(e.request.url).pathname;
      if (!PATHS[lane!].test(path)) strays.push(`${c.id}: ${e.request.method} ${path}`);
    }
  }
  expect(strays).toEqual([]);
});
