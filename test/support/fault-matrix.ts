/**
 * Every check can fail: for each fault in the reference implementation's catalog, the suite run
 * against the faulty reference fails exactly the checks the fault names, no more and no fewer.
 * A fault that breaks only SHOULD checks gives warnings (exit 0), and failures under --strict.
 *
 * The suite's resources are lanes that share nothing but the run (business, customers, team
 * members: each lane's checks ask only its own resource, and each fault's code lies in its own
 * resource's routes, test/fault-lanes.test.ts). The business has two: its key checks (section 5)
 * and the rest, which sends only the valid key and runs first; a fault of the key check (auth-*)
 * changes no answer to the valid key, and a fault of the business's fields changes no answer to
 * the key checks' requests without it (test/fault-lanes.test.ts proves each). So a run may hold one fault per lane, as a
 * product may have one bug in each resource: each fault is then held to exactly its kills among
 * the checks of its lanes, and the run's frame (WRITE-FRAME) to none. A lane without a fault is
 * not run (laneArgs): that one resource's bug never changes another's verdicts is what
 * test/fault-lanes.test.ts proves for every fault, and a clean lane's verdict is every clean run's. Faults
 * that break only SHOULD checks share runs of their own the same way (exit 0, then --strict).
 * Faults judged by the whole run stay alone: those that leave requirements untested (exit 2), or
 * kill checks of several lanes, except the members of a
 * generated family that each kill only their own member's checks (sharesFamilyRun). MATRIX_ALONE=1 runs
 * every fault alone (about twice the time); MATRIX_ONLY=<regex> only the faults it names.
 *
 * The command runs in process (main() with captured output), and the runs are dealt over
 * several test files (test/faults*.test.ts) so that vitest runs the shares in parallel.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { FAULTS, type CatalogFault as Fault } from '../../reference/faults/index.ts';
import { startReference, type RunningReference } from '../../reference/server.ts';
import type { Row } from '../../helpers/contract/record.ts';
import { runInProcess } from './cli.ts';
import { shareOf } from './shares.ts';
import { idsWith, matches, readResult } from './verdicts.ts';
import { loadCatalog, requirementOf } from '../../helpers/contract/catalog.ts';
import { loadSpec } from '../../helpers/contract/spec.ts';
import { PROPERTIES } from '../../helpers/explore/commands.ts';
import { escapeRegExp } from '../../helpers/core/selection.ts';

/** MATRIX_ONLY=<regular expression>: only the faults (and variations) so named, to try a few by hand. */
export const onlyNamed = (name: string) => !process.env.MATRIX_ONLY || new RegExp(process.env.MATRIX_ONLY).test(name);


export type Lane = 'business' | 'business-key' | 'customers' | 'team-members';

const catalog = loadCatalog();
const resourceOf = new Map((await loadSpec()).operations.map((o) => [o.operationId, o.resource]));

/**
 * The lane a check belongs to: the resource of the operations its requirement names in the
 * catalog (OP-DOCUMENTED, which names them all, by its variant's); none when they are several.
 * The business's key checks (section 5) are a lane of their own.
 */
export function laneOfCheck(id: string): Lane | undefined {
  const [requirement, variant] = id.split(':');
  if (RUN_LEVEL.includes(requirement)) return undefined;
  // A kill pattern "BUS-UPDATE-*" stands for every requirement so named.
  const named = requirement.endsWith('*') ? [...catalog.byId.values()].filter((r) => r.id.startsWith(requirement.slice(0, -1))) : [catalog.byId.get(requirement)];
  const operations = requirement === 'OP-DOCUMENTED' ? [variant] : named.flatMap((r) => r?.operations ?? []);
  const lanes = new Set(operations.map((op) => resourceOf.get(op)));
  const lane = lanes.size === 1 ? ([...lanes][0] as Lane | undefined) : undefined;
  return lane === 'business' && requirement !== 'OP-DOCUMENTED' && named.every((r) => r && isKeyClause(r.clause)) ? 'business-key' : lane;
}

/** Section 5 of the contract: authentication. */
const isKeyClause = (clause: string) => clause.split(',').some((c) => /^5(\.|$)/.test(c.trim()));

/**
 * Key checks judged also on what the valid key reads (the record before and after a refused
 * update; the record a refusal must not carry): they belong to both business lanes, so a fault
 * of either that flags one is held to it. test/fault-lanes.test.ts holds this list to what a run sends.
 */
export const READ_WITH_THE_KEY = ['BUS-AUTH-REJECTED-NO-CHANGE', 'BUS-AUTH-NO-RECORD'];

/**
 * Checks of the run as a whole, in no lane: the frame (helpers/safety/frame.ts) reads every
 * resource after the lanes, and exploration (helpers/explore/) walks all three resources after
 * them, whatever operations its promises name. A fault they kill runs alone (lanesOf), so it is
 * never attributed to another fault's lane.
 */
export const RUN_LEVEL: readonly string[] = ['WRITE-FRAME', ...PROPERTIES];

/** The lanes whose faults answer for a check: its own, and the business's for a key check of READ_WITH_THE_KEY. */
export function lanesOfCheck(id: string): Lane[] {
  const lane = laneOfCheck(id);
  if (!lane) return [];
  return lane === 'business-key' && READ_WITH_THE_KEY.includes(requirementOf(id.replace(/\*$/, ''))) ? ['business', 'business-key'] : [lane];
}

/** The faults of the key check itself (reference/routes/auth.ts), named so. */
export const isKeyCheckFault = (fault: Fault) => fault.name.startsWith('auth-');
const onlyShould = (fault: Fault) =>
  fault.kills.every((p) => catalog.byId.get(requirementOf(p.replace(/\*$/, '')))?.level === 'SHOULD');

/**
 * The lanes a fault takes in a run, when it may share one: those of the checks it kills; a
 * business fault that kills a key check but is not the key check's own takes both business
 * lanes (it may act on answers to the valid key too). Undefined when it runs alone.
 */
export function lanesOf(fault: Fault): Lane[] | undefined {
  if (process.env.MATRIX_ALONE || fault.untested?.length || fault.explore) return undefined;
  const each = fault.kills.map(lanesOfCheck);
  if (each.some((l) => l.length === 0)) return undefined;
  const lanes = new Set(each.flat());
  if (lanes.has('business-key') && !isKeyCheckFault(fault)) lanes.add('business');
  if (lanes.has('business-key') && lanes.has('business')) return ['business', 'business-key'];
  return lanes.size === 1 ? [...lanes] : undefined;
}

/**
 * The families of generated faults (e.g. business-get-wrong-type:<field>) prove their --strict
 * run once, with the family's first member: that warnings turn into failures does not depend on
 * the field, so the matrix stays short.
 */
const family = (fault: Fault) => fault.name.split(':')[0];
const provesStrict = (fault: Fault) =>
  fault.kills.length > 0 &&
  (!fault.name.includes(':') || FAULTS.find((f) => onlyShould(f) && f.kills.length > 0 && family(f) === family(fault)) === fault);

const memberOf = (fault: Fault) => (fault.name.includes(':') ? fault.name.slice(fault.name.indexOf(':') + 1) : undefined);

/**
 * A member of a generated family that breaks only SHOULD requirements and kills only the checks
 * named after it (business-get-wrong-type:<field> kills BUS-GET-TYPES:<field>, reading that field
 * alone): the family's members share one run, each held to the checks of its own member, except
 * the member that proves --strict (alone, for the exit codes).
 */
export function sharesFamilyRun(fault: Fault): boolean {
  if (process.env.MATRIX_ALONE || !onlyShould(fault) || fault.untested?.length || provesStrict(fault)) return false;
  const member = memberOf(fault);
  return member !== undefined && fault.kills.length > 0 && fault.kills.every((p) => !p.endsWith('*') && p.endsWith(`:${member}`));
}

/**
 * The runs of the matrix: each fault alone, with faults of other lanes, or with the other
 * members of its family.
 */
export function faultRuns(faults: readonly Fault[]): Fault[][] {
  const byFamily = new Map<string, Fault[]>();
  for (const f of faults.filter(sharesFamilyRun)) byFamily.set(family(f), [...(byFamily.get(family(f)) ?? []), f]);
  // Dealt over two runs: a requirement checked field by field keeps fields with proof in each
  // (with every field of a family broken at once, BUS-UPDATE-NULLABLE would have none).
  const families = [...byFamily.values()].flatMap((fs) => [fs.filter((_, i) => i % 2 === 0), fs.filter((_, i) => i % 2 === 1)].filter((run) => run.length));
  const alone = faults.filter((f) => !lanesOf(f) && !sharesFamilyRun(f)).map((f) => [f]);
  // Faults that break only SHOULD checks share runs of their own (exit 0, then --strict).
  const sharing = faults.filter((f) => lanesOf(f) && !sharesFamilyRun(f));
  return [...byLanes(sharing.filter((f) => !onlyShould(f))), ...byLanes(sharing.filter(onlyShould)), ...families, ...alone];
}

/**
 * Each fault joins the first run none of whose faults takes one of its lanes; those taking two
 * lanes first, so that the others fill in around them.
 */
function byLanes(faults: Fault[]): Fault[][] {
  const runs: Fault[][] = [];
  for (const f of faults.toSorted((a, b) => lanesOf(b)!.length - lanesOf(a)!.length)) {
    const free = runs.find((run) => !run.some((g) => lanesOf(g)!.some((l) => lanesOf(f)!.includes(l))));
    if (free) free.push(f);
    else runs.push([f]);
  }
  return runs;
}

/**
 * The hand-written checks are held to their kills with exploration off: what exploration finds
 * is proven by the faults that name it, each alone, with the checks turned off (--only EXPLORE)
 * on the seed and budget the fault names (`explore`), as the proof asks.
 */
export function exploreArgs(faults: Fault[]): string[] {
  const found = faults.find((f) => f.explore);
  if (!found?.explore) return ['--explore', '0'];
  return ['--only', '^EXPLORE-', '--explore', String(found.explore.commands), '--explore-seed', String(found.explore.seed)];
}

/**
 * A run of faults held to their lanes (lanesOf) runs the checks of those lanes and the run's frame
 * (WRITE-FRAME, held unflagged), not the lanes without a fault: that a fault flags nothing outside
 * its lanes is what test/fault-lanes.test.ts proves for every fault (its code lies in its lanes'
 * routes, a lane's checks ask only its own resource, the business's two lanes are kept apart by the
 * key), and a clean lane's verdict is every clean run's. A fault judged by the whole run (lanesOf
 * undefined: it kills checks of several lanes or of none, leaves requirements untested, or is
 * exploration's; every fault under MATRIX_ALONE=1) runs every check. Selected by requirement, and
 * by operation for OP-DOCUMENTED (the one requirement whose checks lie in several lanes), so that
 * a check of those lanes is selected whatever its variant, whether or not a listing would name it.
 */
export function laneArgs(faults: Fault[]): string[] {
  const lanes = faults.map(lanesOf);
  if (!lanes.length || lanes.some((l) => !l)) return [];
  const taken = new Set(lanes.flat());
  const ofTaken = (id: string) => lanesOfCheck(id).some((l) => taken.has(l));
  const requirements = [...catalog.byId.keys()].filter((r) => r !== 'OP-DOCUMENTED' && (r === 'WRITE-FRAME' || ofTaken(r)));
  const documented = [...resourceOf.keys()].map((op) => `OP-DOCUMENTED:${op}`).filter(ofTaken);
  return ['--only', `^(?:${[...requirements, ...documented].map(escapeRegExp).join('|')})[: ]`];
}

/** The suite against a reference with `faults` (and `variations`, a product filling in what the contract leaves open); what the run left is held to expectLeftNamed. */
export async function runAgainst(faults: Fault[], strict: boolean, variations: string[] = [], args: string[] = []) {
  const ref = await startReference({ faults: faults.map((f) => f.name), variations });
  try {
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, ...(strict ? ['--strict'] : []), ...args], {
      SCHEDULING_API_KEY: ref.apiKey,
      SCHEDULING_EXPIRED_KEY: ref.expiredKey,
    }, undefined, { resultOnly: true });
    expectLeftNamed(faults, before, ref.state.snapshot(), readResult(run));
    return run;
  } finally {
    await ref.close();
  }
}

type Snapshot = ReturnType<RunningReference['state']['snapshot']>;

/**
 * Whatever a fault made the run leave changed on the target, the run says so: every record that
 * differs from before the run is named in leftOnTarget (its own path, or its collection's when
 * the run could not list it). A run may name more (what it could not verify), never less; a
 * record a fault of the run hides from every read (its `leftUnseen`) is not held to it.
 */
function expectLeftNamed(faults: Fault[], before: Snapshot, after: Snapshot, result: ReturnType<typeof readResult>) {
  const named = new Set((result.leftOnTarget as { record: string }[]).map((l) => l.record));
  // By content: a target that replaces a record keeps its fields in the order a restore sent them.
  const differing = (collection: string, then: Row[], now: Row[]) => {
    const byId = (rows: Row[]) => new Map(rows.map((r) => [String(r.id), r]));
    const [a, b] = [byId(then), byId(now)];
    return [...new Set([...a.keys(), ...b.keys()])].filter((id) => !isDeepStrictEqual(a.get(id), b.get(id))).map((id) => `${collection}/${id}`);
  };
  const changed = [
    ...(isDeepStrictEqual(before.business, after.business) ? [] : ['/api/v1/business']),
    ...differing('/api/v1/customers', before.customers, after.customers),
    ...differing('/api/v1/team-members', before.teamMembers, after.teamMembers),
  ];
  const unseen = new Set(faults.flatMap((f) => (f.leftUnseen ? [f.leftUnseen.record] : [])));
  const unsaid = changed.filter((path) => !unseen.has(path) && !named.has(path) && !named.has(path.replace(/\/[^/]+$/, '')));
  expect(unsaid, `${faults.map((f) => f.name).join(' + ')}: left changed on the target, and not said: ${unsaid.join(', ')}`).toEqual([]);
}

function expectExactly(fault: Fault, flagged: string[]) {
  const unexpected = flagged.filter((id) => !fault.kills.some((p) => matches(p, id)) && !(fault.orderDependent?.checks ?? []).some((p) => matches(p, id)));
  const missed = fault.kills.filter((p) => !flagged.some((id) => matches(p, id)));
  expect({ unexpected, missed }, `fault ${fault.name}`).toEqual({ unexpected: [], missed: [] });
}

/** Each fault of a run flagged exactly its kills: alone, all of them; beside others, those of its lanes. */
export function expectEach(faults: Fault[], flagged: string[]) {
  if (faults.length === 1) return expectExactly(faults[0], flagged);
  // Each fault answers for its own lanes; a check flagged in no lane of theirs (WRITE-FRAME, or a
  // check of another lane that --only took in as a prerequisite) is nobody's.
  const answersFor = (f: Fault, id: string) => lanesOf(f)!.some((l) => lanesOfCheck(id).includes(l));
  for (const f of faults) expectExactly(f, flagged.filter((id) => answersFor(f, id)));
  expect(flagged.filter((id) => !faults.some((f) => answersFor(f, id))), 'flagged in no faulty lane').toEqual([]);
}

/** The checks a fault flags say what its `says` asks of them. */
function expectSays(faults: Fault[], result: ReturnType<typeof readResult>) {
  for (const fault of faults) {
    for (const [id, pattern] of Object.entries(fault.says ?? {})) expect(result.checks.find((c) => c.id === id)?.reason, `${fault.name}: ${id}`).toMatch(pattern!);
  }
}

/** The run left exactly the requirements the fault names without proof (verdict INCOMPLETE). */
function expectUntested(fault: Fault, result: Record<string, unknown>) {
  const untested = (result.untested as { requirement: string; allowed: boolean }[]).filter((u) => !u.allowed).map((u) => u.requirement).sort();
  expect(untested, `fault ${fault.name}: requirements without proof`).toEqual((fault.untested ?? []).toSorted());
}

/**
 * The checks each fault leaves blocked (its `blocks`), each by the check that found the root cause,
 * with a reason that says what that check saw; a blocked MUST check proves nothing, so its
 * requirement is named without proof.
 */
function expectBlocks(faults: Fault[], result: ReturnType<typeof readResult>) {
  for (const fault of faults) {
    const blocks = Object.entries(fault.blocks ?? {});
    for (const [id, by] of blocks) {
      const c = result.checks.find((o) => o.id === id);
      expect({ fault: fault.name, id, outcome: c?.outcome }).toEqual({ fault: fault.name, id, outcome: 'blocked' });
      // A missing route shows as the status it answered, or as the write that failed.
      expect(c?.reason, `${fault.name}: ${id}`).toMatch(new RegExp(`^blocked by ${by}: \\S.*(answered (404|405)|the (update|delete) itself failed)`));
    }
    if (!blocks.length) continue;
    const blockedMust = blocks.map(([id]) => result.checks.find((c) => c.id === id)).filter((c) => c?.level === 'MUST').map((c) => c!.id.split(':')[0]);
    expect(blockedMust.length, `${fault.name}: a blocked MUST check`).toBeGreaterThan(0);
    expect((result.untested as { requirement: string }[]).map((u) => u.requirement), `${fault.name}: requirements without proof`).toEqual(expect.arrayContaining(blockedMust));
  }
}

/** The share of the matrix a test file runs (test/support/shares.ts): every n-th run, so the shares take alike. */
export function faultMatrix(file: string): void {
  const share = shareOf(file);
  const mine = faultRuns(FAULTS.filter((f) => onlyNamed(f.name))).filter((_, i) => i % share.of === share.index);
  // Two runs at once (maxConcurrency): a faulty target keeps a run waiting out convergence windows
  // most of its time (a share took 91 s of wall for 38 CPU-s one run at a time).
  describe.concurrent(`fault catalog (share ${share.index + 1} of ${share.of})`, () => {
    test.for(mine.map((run) => [run.map((f) => f.name).join(' + '), run] as const))('%s: caught', async ([, faults]) => {
      const args = [...exploreArgs(faults), ...laneArgs(faults)];
      const run = await runAgainst(faults, false, [], args);
      const result = readResult(run);
      const { checks } = result;
      const [fault] = faults;
      expectSays(faults, result);
      if (sharesFamilyRun(fault)) {
        // A family's run: warnings only (exit 0), each member's own checks and nobody else's.
        expect(run.code, run.stderr).toBe(0);
        const flagged = idsWith(checks, ['failed', 'warning']);
        expect(idsWith(checks, ['failed'])).toEqual([]);
        for (const f of faults) expectExactly(f, flagged.filter((id) => id.endsWith(`:${memberOf(f)}`)));
        expect(flagged.filter((id) => !faults.some((f) => f.kills.some((p) => matches(p, id)))), 'flagged for no member').toEqual([]);
        expectUntested(fault, result);
        return;
      }
      if (faults.every(onlyShould)) {
        // Faults that fail nothing: warnings (exit 0); INCOMPLETE for one that leaves MUST requirements without proof.
        expect(run.code, run.stderr).toBe(fault.untested?.length ? 2 : 0);
        expectEach(faults, idsWith(checks, ['warning']));
        for (const f of faults) expectUntested(f, result);
        if (!faults.some(provesStrict)) return;
        const strict = await runAgainst(faults, true, [], args);
        expect(strict.code, strict.stderr).toBe(1);
        expectEach(faults, idsWith(readResult(strict).checks, ['failed']));
        return;
      }
      expect(run.code, run.stderr).toBe(1);
      expectBlocks(faults, result);
      expectEach(faults, idsWith(checks, ['failed', 'warning']));
    });
  });
}
