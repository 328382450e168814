/**
 * The customer and team member suites against the reference implementation: they pass, and they
 * leave the customers and team members exactly as they found them, also in a --read-only run
 * (which sends them nothing but GET). When a broken target lets a team member be created or
 * deleted, the check says what it undid and what it could not.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { FaultName } from '../reference/faults/index.ts';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { idsWith, readResult } from './support/verdicts.ts';

const SUITES = ['customers', 'team-members'];
const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

async function run(args: string[], fault?: FaultName, variations?: string[]) {
  const ref = await startReference({ fault, variations });
  running.push(ref);
  const before = ref.state.snapshot();
  const cli = await runInProcess(['--base-url', ref.url, ...args], { SCHEDULING_API_KEY: ref.apiKey });
  const after = ref.state.snapshot();
  await ref.close();
  const result = readResult(cli) as ReturnType<typeof readResult> & { observations: { resource: string; text: string; exchanges: { request: { method: string } }[] }[] };
  const ours = result.checks.filter((c) => SUITES.includes(c.resource));
  return { cli, before, after, result, ours };
}

describe.concurrent('customer and team member suites', () => {
  test('pass the reference and leave its customers and team members exactly as before', async () => {
    const { cli, before, after, ours, result } = await run([]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(result.suiteErrors).toEqual([]);
    expect(idsWith(ours, ['failed', 'warning', 'not-applicable', 'skipped'])).toEqual([]);
    expect(ours.length).toBe(40);
    expect(result.observations.filter((o) => SUITES.includes(o.resource))).toHaveLength(8);
    expect(after.customers).toEqual(before.customers);
    expect(after.teamMembers).toEqual(before.teamMembers);
  });

  test('--read-only runs only the checks that change nothing, and sends these resources only GET', async () => {
    const { cli, before, after, ours, result } = await run(['--read-only']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(idsWith(ours, ['passed'])).toEqual(['CUS-LIST:array', 'TM-FIND', ...['find:leading-zero', 'find:other-case', 'find:prefix', 'find:suffix'].map((v) => `TM-ID-NEAR-MISS:${v}`), 'TM-LIST']);
    expect(idsWith(ours, ['skipped'])).toHaveLength(33);
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
});
