/**
 * The customer and team member suites against the reference implementation: they pass, and they
 * leave the customers and team members exactly as they found them, also in a --read-only run
 * (which sends them nothing but GET). When a broken target lets a team member be created or
 * deleted, the check says what it undid and what it could not. Interrupted while several of its
 * customers are created, the run leaves none of them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runConformance } from '../helpers/api.ts';
import type { Row } from '../helpers/contract/record.ts';
import type { FaultName } from '../reference/faults/index.ts';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { idsWith, readResult } from './support/verdicts.ts';
import { wholeListReads, type LoggedRequest } from '../helpers/results/list-reads.ts';
import { REQUEST_LOG_FILE } from '../helpers/results/report-files.ts';

const SUITES = ['customers', 'team-members'];
/**
 * The whole-list reads of a run against the reference (docs/environment.md, "How often a run reads
 * a list whole"): the safety machinery's, exactly, at its fixed moments; the checks' at most this
 * many. The customer checks read at three moments (before the writes, after the creates and
 * changes, after the deletes: 24 reads before issue 35); the team members' lane goes one check
 * after another, each judging its own write, and is not bounded to three yet (20 before).
 */
const SAFETY_READS = {
  customers: { baseline: 1, lease: 1, 'after-run clean-up': 2 },
  'team-members': { baseline: 1, 'after-run clean-up': 2 },
};
const CHECK_READS = { customers: 3, 'team-members': 3 };
/**
 * The operations pass's (OP-DOCUMENTED: is each operation served?) and the observations': a GET of
 * the list that stops at the first record listed, which the other operations are then asked for.
 */
const FIRST_RECORD_READS = { customers: 1, 'team-members': 2 };
/** The frame at each lane's end and the suites' end, a lane's closing verification (the team members': two at once, and a settle). */
const SUITE_READS = { customers: 5, 'team-members': 7 };
/**
 * Every whole-list read of the run, all phases (the run here explores nothing: exploration's walk
 * reads as it goes): 13 customers and 13 team members before the baseline's read held the lease's
 * first look-up and the frame's reading at the customers lane's end its closing verification.
 */
const TOTAL_READS = { customers: 11, 'team-members': 13 };
const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

async function run(args: string[], fault?: FaultName, variations?: string[], whole = false) {
  const ref = await startReference({ fault, variations });
  running.push(ref);
  const before = ref.state.snapshot();
  // These resources' checks alone (and what they need), unless the whole run is looked at: the business lanes judge nothing looked at here.
  const lanes = whole ? [] : ['--only', '^(CUS-|TM-|AUTH-UNDOCUMENTED:\\w+(Customers?|TeamMembers?) )'];
  const cli = await runInProcess(['--base-url', ref.url, ...lanes, ...args], { SCHEDULING_API_KEY: ref.apiKey }, undefined, { resultOnly: true });
  const after = ref.state.snapshot();
  await ref.close();
  const result = readResult(cli) as ReturnType<typeof readResult> & { observations: { resource: string; text: string; exchanges: { request: { method: string } }[] }[] };
  const ours = result.checks.filter((c) => SUITES.includes(c.resource));
  return { cli, before, after, result, ours };
}

describe.concurrent('customer and team member suites', () => {
  test('pass the reference and leave its customers and team members exactly as before', async () => {
    // The whole run: its list reads are counted below, the frame's among them.
    const { cli, before, after, ours, result } = await run([], undefined, undefined, true);
    expect(cli.code, cli.stderr).toBe(0);
    expect(result.suiteErrors).toEqual([]);
    expect(idsWith(ours, ['failed', 'warning', 'not-applicable', 'skipped'])).toEqual([]);
    expect(ours.length).toBe(41);
    expect(result.observations.filter((o) => SUITES.includes(o.resource))).toHaveLength(8);
    expect(after.customers).toEqual(before.customers);
    expect(after.teamMembers).toEqual(before.teamMembers);
    // Issue 35: how often a run reads each list whole, counted from its request log (the README's
    // "How often a run reads a list whole" names each read and why).
    const log = readFileSync(join(cli.reportDir, REQUEST_LOG_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoggedRequest);
    const idsOf = (of: { exchanges: unknown[] }[]) => new Set(of.flatMap((c) => (c.exchanges as { id?: string }[]).map((e) => e.id ?? '')));
    const operationsPass = (c: { id?: string }) => c.id?.startsWith('OP-');
    const reads = wholeListReads(log, idsOf(result.checks.filter((c) => !operationsPass(c))), idsOf([...result.checks.filter(operationsPass), ...result.observations]));
    for (const list of ['customers', 'team-members'] as const) {
      const { checks = 0, suites = 0, 'first record': firstRecord = 0, ...safety } = reads[list];
      expect(safety, list).toEqual(SAFETY_READS[list]);
      expect(firstRecord, `${list}: first-record reads of the operations pass and the observations`).toBeLessThanOrEqual(FIRST_RECORD_READS[list]);
      expect(checks, `${list}: whole-list reads in the checks`).toBeLessThanOrEqual(CHECK_READS[list]);
      expect(checks, `${list}: whole-list reads in the checks`).toBeGreaterThan(0);
      expect(suites, `${list}: whole-list reads around the checks`).toBeLessThanOrEqual(SUITE_READS[list]);
      expect(Object.values(reads[list]).reduce((a, b) => a + b, 0), `${list}: whole-list reads of the run, all phases`).toBe(TOTAL_READS[list]);
    }
  });

  test('--read-only runs only the checks that change nothing, and sends these resources only GET', async () => {
    const { cli, before, after, ours, result } = await run(['--read-only']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(idsWith(ours, ['passed'])).toEqual(['CUS-LIST:array', 'TM-FIND', ...['find:leading-zero', 'find:other-case', 'find:prefix', 'find:suffix'].map((v) => `TM-ID-NEAR-MISS:${v}`), 'TM-LIST']);
    expect(idsWith(ours, ['skipped'])).toHaveLength(34);
    const methods = new Set([...ours, ...result.observations.filter((o) => SUITES.includes(o.resource))].flatMap((c) => c.exchanges.map((e) => e.request.method)));
    expect([...methods]).toEqual(['GET']);
    expect(after.customers).toEqual(before.customers);
    expect(after.teamMembers).toEqual(before.teamMembers);
  });

  test.for([
    ['ids-canonical-case', 'other-case', /\/[A-Z]+_\d+$/],
    ['ids-canonical-zeros', 'leading-zero', /\/0\d+$/],
  ] as const)('a target that canonicalises ids (%s): the near miss finds the same record, and passes', async ([variation, miss, nearPath]) => {
    const { cli, ours } = await run([], undefined, [variation]);
    expect(cli.code, cli.stderr).toBe(0);
    for (const id of [`CUS-ID-NEAR-MISS:find:${miss}`, `TM-ID-NEAR-MISS:find:${miss}`]) {
      const c = ours.find((o) => o.id === id);
      expect(c?.outcome, id).toBe('passed');
      const asked = c?.exchanges.filter((e) => e.request.method === 'GET' && nearPath.test(e.request.url));
      expect(asked?.map((e) => e.response?.status), id).toEqual([200]);
    }
  });

  // A target that lets a member be created or deleted: the fault matrix holds the check to saying
  // what it could not undo (the fault's `says`), and the run to naming it as left on the target.

  // One root cause, one failure (what needs a missing operation is blocked by the check that
  // found it missing): the fault matrix holds each route-missing fault to its `blocks`.

  test('a target that lets team members be created and deleted: both undone as far as the API allows, and said so', async () => {
    const { cli, result, before, after } = await run([], 'team-members-writable');
    expect(cli.code).toBe(1);
    const reason = (id: string) => result.checks.find((c) => c.id === id)?.reason;
    expect(reason('TM-NO-CREATE')).toMatch(/Undo: member \S+ was deleted again/);
    expect(reason('TM-NO-DELETE')).toMatch(/Undo: member \S+ was re-created as a new member \S+ with the same fields .* its original id \S+ could not be restored/);
    // The fields are back; only the id of the deleted member is new.
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ id: _id, ...fields }) => fields);
    expect(strip(after.teamMembers)).toEqual(strip(before.teamMembers));
    // And the run names both as left on the target: the id it could not restore, and the stand-in it keeps.
    const left = (result as unknown as { leftOnTarget: { record: string; problem: string }[] }).leftOnTarget;
    expect(left.map((l) => l.problem).toSorted()).toEqual([
      expect.stringMatching(/^created by the run in place of member \S+, which the target let the run delete: kept$/),
      expect.stringMatching(/^deleted by the run \(the target let it\) and re-created with the same fields as \S+: its id could not be restored$/),
    ]);
  });

  /**
   * The deletion and the unknown-id probes go as one batch (helpers/resources/after-delete.ts): its
   * customers are created at once, and deleted at once. An interruption at any point of it leaves
   * nothing behind. One run passes two points; at each, the customers and the journal are taken as
   * they stand, as a run stopped there at once (a second SIGINT, a crash) would leave them: every
   * customer of the run then on the target was journalled, and --recover deletes it from that
   * journal alone. The run is stopped at the last point, as Ctrl-C does, and deletes them itself.
   */
  test('an interruption during the after-delete batch: every customer of the run is journalled, and none is left', async () => {
    const labels = ['delete', 'unknown find', 'unknown update', 'unknown delete'];
    const ref = await startReference({ latencyMs: 50 });
    running.push(ref);
    const inBatch = () => [...ref.state.customers.values()].filter((c) => labels.some((l) => String(c.lastName).endsWith(` ${l}`))).length;
    const points: [string, () => boolean][] = [
      ['its customers created, none deleted yet', () => inBatch() === labels.length],
      ['its customers deleted, the probes under way', () => inBatch() === 0],
    ];
    const before = ref.state.snapshot().customers;
    const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-interrupted-')), 'reports');
    const seen: { point: string; customers: [string, Row][]; journal: string }[] = [];
    const stop = new AbortController();
    // Each state lasts at least a round trip of 50 ms: a poll every few milliseconds meets it.
    const poll = setInterval(() => {
      const next = points[seen.length];
      if (!next?.[1]()) return;
      seen.push({ point: next[0], customers: structuredClone([...ref.state.customers]), journal: readFileSync(join(reportDir, 'run-journal.jsonl'), 'utf8') });
      if (seen.length === points.length) stop.abort();
    }, 2);
    const result = await runConformance({ baseUrl: ref.url, apiKey: ref.apiKey, only: '^CUS-(DELETE|UNKNOWN)', reportDir, signal: stop.signal }).finally(() => clearInterval(poll));
    expect({ stopped: result.stopped, exitCode: result.exitCode, leftOnTarget: result.leftOnTarget }).toEqual({ stopped: 'interrupted', exitCode: 130, leftOnTarget: [] });
    expect(ref.state.snapshot().customers).toEqual(before);
    expect(seen.map((s) => s.point)).toEqual(points.map(([point]) => point));
    for (const { point, customers, journal } of seen) {
      expect(customers.length, point).toBeGreaterThan(before.length);
      // Journalled by id once its create was answered; before that, the create was journalled as going out, and the run's marker finds it.
      const entries = journal.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; path?: string; listPath?: string; runId?: string });
      const created = new Set(entries.filter((e) => e.kind === 'created').map((e) => e.path));
      const creating = entries.some((e) => e.kind === 'creating' && e.listPath === '/api/v1/customers');
      const runId = entries.find((e) => e.kind === 'run')!.runId!;
      const known = new Set(before.map((c) => String(c.id)));
      const unjournalled = customers.filter(([id, c]) => !known.has(id) && !created.has(`/api/v1/customers/${id}`) && !(creating && String(c.lastName).includes(runId)));
      expect(unjournalled.map(([id]) => id), point).toEqual([]);
      ref.state.customers.clear();
      for (const [id, row] of customers) ref.state.customers.set(id, row);
      const dir = mkdtempSync(join(tmpdir(), 'scr-stopped-'));
      writeFileSync(join(dir, 'run-journal.jsonl'), journal);
      const recovered = await runInProcess(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
      expect(recovered.code, `${point}: ${recovered.stdout}${recovered.stderr}`).toBe(0);
      expect(ref.state.snapshot().customers, point).toEqual(before);
    }
  });
});
