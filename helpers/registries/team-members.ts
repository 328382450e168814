/**
 * Sections 1 and 4: team members can be listed, found and updated, and cannot be created or
 * deleted through the interface. Their fields and status codes are not shown: success is any
 * 2xx, and updates write back values a member already has or the vendor's teamMemberPatch.
 * Team members are shared records: the checks run in one ordered lane, restore what they
 * change, and the two probes that would create or delete one on a broken target run last.
 */
import { authObservation, type Probe } from '../checks/auth-observation.ts';
import { checksOf, NotApplicable, type Check, type CheckRun, type Group, type Registry } from '../checks/definition.ts';
import { selects } from '../core/selection.ts';
import { changedFields, comparableFields, described, mismatches, sameId } from '../records/compare.ts';
import { changedNotDerived } from '../records/derived.ts';
import { recordIn } from '../contract/record-in.ts';
import { otherForms } from '../records/equivalence.ts';
import { ensure, said } from '../checks/assertions.ts';
import { needs, needsThat } from '../checks/precondition.ts';
import { is2xx, type Answer, type ApiClient } from '../http/client.ts';
import { journalledClient } from '../safety/journal.ts';
import { pick, writeBackBody } from '../records/record-shapes.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { requireOps, resourceOps } from '../contract/resource-ops.ts';
import { leasePlace } from '../safety/lease.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { TeamMemberLane } from '../resources/team-member-lane.ts';
import { converge, windowOf } from '../core/converge.ts';
import { movedByWrite } from '../records/server-fields.ts';
import { coverFields, judgeFields, keptOut, type FieldAccess, type FieldOutcome } from '../resources/field-coverage.ts';
import { concurrentSteps, sharedStep } from '../checks/shared-step.ts';
import { atOnce } from '../core/at-once.ts';
import { ID_NEAR_MISSES, type IdMiss } from '../contract/id-near-misses.ts';
import { madeBy, wrongRecordFound } from '../checks/id-near-miss.ts';

/** What the team-member checks share in one run. */
interface Members {
  client: ApiClient;
  lane: TeamMemberLane;
  /** Each field changed alone (TM-UPDATE:each-field and TM-LIST:each-field-change judge it). */
  eachField: () => Promise<FieldOutcome[] | undefined>;
  /** Members the update without a key was sent to, as they were. */
  originals: Map<string, Record<string, unknown>>;
  /** Each near miss's find (reads only): all go out at once, each judged by its own check. */
  nearMissFinds: (miss: IdMiss) => Promise<NearMissFound>;
}

/** A near miss of a listed member's id, and what a find of it answered. */
interface NearMissFound {
  member: Row;
  near: string;
  answer: Answer;
}

/** How many listed members the find check asks for: enough to catch a find that ignores the id. */
const FIND_SAMPLE = 10;

/** The fields a list row and a find can be compared on (comparableFields), whose values differ. */
const sharedFieldsDiffer = (listed: Record<string, unknown>, found: Record<string, unknown>) => {
  const comparable = comparableFields(listed, found);
  return changedFields(listed, found, [...new Set([...Object.keys(listed), ...Object.keys(found)])].filter((k) => !comparable.includes(k)), 'team-members');
};

/** The member with the most fields (the first of them): a PATCH that loses fields shows best on it. */
const richest = (rows: Record<string, unknown>[]) => rows.reduce<Record<string, unknown> | undefined>((best, r) => (!best || Object.keys(r).length > Object.keys(best).length ? r : best), undefined);

async function someMember(lane: TeamMemberLane, run: CheckRun, pick: (rows: Record<string, unknown>[]) => Record<string, unknown> | undefined) {
  const member = pick(await needs('TM-LIST', lane.initial()));
  if (!member) run.notApplicable('the target lists no team member');
  return member;
}

/** What the checks are declared from: the target, the member operations, the id field. */
interface Env {
  target: TargetConfig;
  ops: MemberOps;
  idField: string;
}

type MemberOps = ReturnType<typeof requireOps<'list' | 'find' | 'update'>>;

const nameChangeOr = (target: TargetConfig, lane: TeamMemberLane, original: Record<string, unknown>, run: CheckRun) =>
  target.vendor.teamMemberPatch ?? lane.nameChange(original) ?? run.notApplicable('the member has no name-like string field to change: configure teamMemberPatch');

export function teamMemberChecks(spec: Spec, target: TargetConfig): Registry<Members> {
  const ops = requireOps(resourceOps(spec, 'team-members'), 'team-members', ['list', 'find', 'update']);
  const idField = target.vendor.idField;
  const env: Env = { target, ops, idField };
  const place = leasePlace(spec, target);
  const entries = [memberLane(env), authentication(spec, env), nearMisses(env), notOffered(env)];
  const findsRun = ID_NEAR_MISSES.filter((miss) => checksOf(entries).some((c) => c.id === `TM-ID-NEAR-MISS:find:${miss.name}` && selects(target.only, c)));
  return {
    entries,
    open() {
      const client = journalledClient(target);
      const lane = new TeamMemberLane(client, ops, target);
      const nearMissFinds = concurrentSteps(findsRun, async (miss: IdMiss) => {
        const { member, near } = await nearMissOf(lane, miss, idField);
        return { member, near, answer: await lane.find(near) };
      });
      return { client, lane, eachField: eachFieldStep(env, lane), originals: new Map(), nearMissFinds };
    },
    // A difference another run's writes may have made is settled before it is a failure (see JUDGES_DIFFERENCES).
    settle: { prefix: 'TM-', with: ({ lane }) => lane.settle(place) },
    async close({ client, lane }) {
      try {
        const left = await lane.finish();
        if (left.length) throw new Error(`team members left changed on the target: ${left.join('; ')}`);
      } finally {
        await client.close();
      }
    },
  };
}

function memberLane(env: Env): Group<Members> {
  return { group: 'team members', entries: [...listAndFind(env), isolation(env), ...updates(env), ...eachField(env)] };
}

function listAndFind({ ops, idField }: Env): Check<Members>[] {
  return [
    { id: 'TM-LIST', title: `GET ${ops.list.path} answers 2xx with a list of members (a JSON array, or an object holding exactly one), each carrying its id`, async run({ lane }) {
      await lane.initial();
    } },

    // Judged by content, not by the id label: the member found carries the values the list shows for it.
    { id: 'TM-FIND', title: `GET ${ops.find.path} answers 2xx with the member of that id, as the list shows it, for each listed member (up to ${FIND_SAMPLE})`, async run({ lane }, run) {
      await someMember(lane, run, (rows) => rows[0]);
      // Each member is found at once with the others (reads only); what is wrong is said in the list's order.
      const wrong = (await atOnce((await lane.initial()).slice(0, FIND_SAMPLE).map(async (member): Promise<string | undefined> => {
        const id = member[idField];
        // Kept as the member's last reading: the check after this one starts from it (see TeamMemberLane.current).
        const answer = await lane.find(id);
        if (!is2xx(answer)) return `${String(id)}: ${said(answer)}`;
        const record = recordIn(answer.json, idField, { id });
        if (!record || !sameId(record[idField], id)) return `${String(id)}: answered ${record ? `the member with ${idField} ${JSON.stringify(record[idField])}` : said(answer)}`;
        if (!sharedFieldsDiffer(member, record).length) return undefined;
        // The list may be older than the find: both are asked again before the target is blamed.
        const listed = (await lane.readList('listing team members again')).find((r) => sameId(r[idField], id));
        const found = recordIn((await lane.find(id)).json, idField, { id });
        const differ = listed && found ? sharedFieldsDiffer(listed, found) : [];
        return differ.length ? `${String(id)}: answered other values than the list shows for it (${differ.join('; ')})` : undefined;
      }))).filter((w) => w !== undefined);
      ensure(wrong.length === 0, () => `listed members not found by their id: ${wrong.join('; ')}`);
    } },
  ];
}

// Like the customers' twin check: an update addressed to one member by anything but its id
// (or not scoped at all) changes the others.
function isolation({ target, ops, idField }: Env): Check<Members> {
  return { id: 'TM-ISOLATION', title: `PATCH ${ops.update.path} of one member leaves every other member as it was; then restored`, changesData: true, async run({ lane }, run) {
      const members = await needs('TM-LIST', lane.currentList('listing team members before the update'));
      if (members.length < 2) run.notApplicable('the target lists fewer than two team members');
      // The member with the most fields: the one most likely to hold a field to change.
      const id = richest(members)![idField];
      const original = await needs('TM-FIND', lane.current(id, 'reading the member before the update'));
      const body = nameChangeOr(target, lane, original, run);
      const touched: Record<string, unknown>[] = [];
      await lane.changing(original, async () => {
        const answer = await lane.update(id, body);
        needsThat('TM-UPDATE:change', is2xx(answer), () => `the update itself failed, so isolation cannot be judged: PATCH ${ops.update.path} with ${JSON.stringify(body)} ${said(answer)}`);
        // The fence: the others are judged on a list read again until it shows the update itself.
        // No find goes with it: on a target whose finds alternate between a fresh and a lagging
        // copy, two finds in this wait would differ with no update between them (read as another
        // writer), and one not showing the update would be where the restore starts.
        const shows = (rows: Row[]) => rows.some((r) => sameId(r[idField], id) && mismatches(pick(body, Object.keys(r)), r).length === 0);
        let after = (await converge(() => lane.readList('listing team members after the update'), shows, windowOf(target))).value;
        // A list that does not carry the changed fields cannot show the update: a find does, then the list is read again.
        const row = after.find((r) => sameId(r[idField], id));
        if (row && Object.keys(body).some((k) => !(k in row))) {
          await lane.readUntil(id, 'reading the updated member', (r) => mismatches(body, r).length === 0);
          after = await lane.readList('listing team members after the update');
        }
        for (const before of members.filter((m) => !sameId(m[idField], id))) {
          const now = after.find((r) => sameId(r[idField], before[idField]));
          if (!now || changedFields(before, now, [], 'team-members').length) touched.push(before);
        }
      });
      if (!touched.length) return;
      const outcomes: string[] = [];
      for (const m of touched) outcomes.push(`${String(m[idField])} (${(await lane.putBack(m)) ?? 'put back'})`);
      throw new Error(`the update of member ${String(id)} with ${JSON.stringify(body)} also changed members ${outcomes.join(', ')}`);
  } };
}

function updates({ target, ops, idField }: Env): Check<Members>[] {
  // Without configuration the suite first writes back what a member holds (changes nothing),
  // then changes a name-like field; both are restored and verified afterwards.
  const updates: [string, string, (lane: TeamMemberLane, member: Record<string, unknown>) => Record<string, unknown> | undefined][] = [
    ['write-back', 'writing back a field the member has (one teamMemberPatch names, or a name-like one)', (_lane, m) => writeBackBody(m, target, ops.update)],
    ['change', 'a change (teamMemberPatch, or a name-like field)', (lane, m) => target.vendor.teamMemberPatch ?? lane.nameChange(m)],
  ];
  const update = ([variant, what, bodyFor]: (typeof updates)[number]): Check<Members> => ({
    id: `TM-UPDATE:${variant}`, title: `PATCH ${ops.update.path} with ${what}: a later find shows it, fields not sent are unchanged; then restored`, changesData: true,
    async run({ lane }, run) {
      const listed = await someMember(lane, run, richest);
      const id = listed[idField];
      const original = await needs('TM-FIND', lane.current(id, 'reading the member before the update'));
      const body = bodyFor(lane, original) ?? run.notApplicable('the member has no name-like string field to change: configure teamMemberPatch');
      await lane.changing(original, async () => {
        const answer = await lane.update(id, body);
        ensure(is2xx(answer), () => `PATCH ${ops.update.path} with ${JSON.stringify(body)} ${said(answer)}`);
        const after = await lane.readUntil(id, 'reading the member after the update', (row) => mismatches(body, row).length === 0);
        const unapplied = mismatches(body, after);
        ensure(unapplied.length === 0, () => `a find after the update does not show it: ${unapplied.join('; ')}`);
        for (const form of otherForms(body, after)) run.note(form);
        // A field not sent that moved: sent again, what moves on every write is the target's own (see movedByWrite).
        const read = () => lane.read(id, 'reading the member after the update again').catch(() => undefined);
        await movedByWrite(ops.update.resource, original, after, body, { write: () => lane.update(id, body), read, windowMs: windowOf(target) });
        const changed = await changedNotDerived(body, { before: original, after }, lane.twinPatch(id), undefined, ops.update.resource);
        ensure(changed.length === 0, () => `fields not sent changed: ${described(original, after, changed).join('; ')}`);
      });
    },
  });
  return updates.map(update);
}

/** Both sides of eachFieldStep: the find shows each change, and so does the list. */
function eachField({ ops }: Env): Check<Members>[] {
  return [
    { id: 'TM-UPDATE:each-field', title: `PATCH ${ops.update.path} of each field a member shows, alone, to a value another member holds (a boolean flipped): a later find shows it and nothing else changed; then restored`, changesData: true, async run({ eachField }, run) {
      judgeFields(run, (await eachField()) ?? run.notApplicable('the target lists no team member'), 'found');
    } },
    { id: 'TM-LIST:each-field-change', title: `GET ${ops.list.path} still lists the member after each change of one of its fields, with the value a find shows`, changesData: true, async run({ eachField }, run) {
      judgeFields(run, (await eachField()) ?? run.notApplicable('the target lists no team member'), 'listed');
    } },
  ];
}

function authentication(spec: Spec, { target, ops, idField }: Env): Group<Members> {
  const first = async ({ lane }: Members): Promise<Probe> => {
    const [member] = await lane.initial();
    return member ? { id: member[idField] } : { cannot: 'the target lists no team member' };
  };
  const probes: Record<string, (ctx: Members) => Promise<Probe>> = {
    [ops.list.operationId]: async () => ({}),
    [ops.find.operationId]: first,
    // Writing back what the member holds changes nothing on a sound target, even if served.
    [ops.update.operationId]: async (ctx) => {
      const probe = await first(ctx);
      if ('cannot' in probe) return probe;
      const original = await ctx.lane.read(probe.id, 'reading the member');
      ctx.originals.set(String(probe.id), original);
      return { id: probe.id, body: writeBackBody(original, target, ops.update) };
    },
  };
  return {
    group: 'team members: authentication (not documented, observed only)',
    // Each asks without a key, once: they may go at once.
    concurrent: true,
    entries: spec.operations.filter((o) => o.resource === 'team-members').map((op) =>
      authObservation<Members>(target, op, probes[op.operationId] ?? (async () => ({ cannot: 'no way to prepare this operation' })), async ({ lane, originals }, answer, probe) => {
        const original = originals.get(String(probe.id));
        if (op !== ops.update || !is2xx(answer) || !original) return;
        // A target that serves it may still mangle the member (a PATCH that replaces): put it back.
        const problem = await lane.putBack(original);
        if (problem) throw new Error(`the PATCH without a key was served and changed the member, which was NOT restored: ${problem}`);
      })),
  };
}


/** The last member listed at the start (not the first, which a find that ignores the id answers) and a near miss of its id that no member has. */
async function nearMissOf(lane: TeamMemberLane, miss: IdMiss, idField: string) {
  const listed = await needs('TM-LIST', lane.initial());
  const member = listed.at(-1);
  if (!member) throw new NotApplicable('the target lists no team member');
  const near = miss.of(member[idField]);
  if ('unavailable' in near) throw new NotApplicable(near.unavailable);
  if (listed.some((r) => sameId(r[idField], near.id))) throw new NotApplicable(`${near.id} is the id of a listed member, not a near miss`);
  return { member, near: near.id, listed };
}

function nearMisses({ target, ops, idField }: Env): Group<Members> {
  const nearMissFind = (miss: IdMiss): Check<Members> => ({
    id: `TM-ID-NEAR-MISS:find:${miss.name}`, title: `GET ${ops.find.path} with ${miss.description} answers ${miss.canonical ? 'no other member' : 'neither that member nor another'}`,
    async run({ nearMissFinds }) {
      const { member, near, answer } = await nearMissFinds(miss);
      const wrong = wrongRecordFound(answer, miss, near, member, idField, 'member');
      ensure(!wrong, () => `GET ${ops.find.path} with ${near} (${miss.description} ${String(member[idField])}) ${wrong}: ${said(answer)}`);
    },
  });
  const nearMissUpdate = (miss: IdMiss): Check<Members> => ({
    id: `TM-ID-NEAR-MISS:update:${miss.name}`, title: `PATCH ${ops.update.path} with ${miss.description} changes no member and creates none`, changesData: true,
    async run({ lane }, run) {
      const { member, near, listed } = await nearMissOf(lane, miss, idField);
      const id = member[idField];
      const original = await needs('TM-FIND', lane.current(id, 'reading the member before'));
      const body = nameChangeOr(target, lane, original, run);
      const asked = `PATCH ${ops.update.path} with ${near} (${miss.description} ${String(id)}) and ${JSON.stringify(body)}`;
      await lane.changing(original, async () => {
        const answer = await lane.update(near, body);
        // The list is read at once with the member, and judged after it.
        const after = lane.readList('listing team members after');
        after.catch(() => undefined); // awaited below, unless the member's judgement fails first
        const changed = changedFields(original, await lane.read(id, 'reading the member after'), [], 'team-members');
        ensure(changed.length === 0, () => `${asked} ${said(answer)}, and changed the member ${String(id)}: ${changed.join('; ')}`);
        const added = madeBy(body, near, listed, await after, idField);
        if (added.length) throw new Error(`${asked} ${said(answer)}, and created members ${added.map(String).join(', ')}, which the interface cannot do. ${await lane.undoCreate(added)}`);
      });
    },
  });
  // Near misses of a member's id (helpers/contract/id-near-misses.ts): never another member, nor this
  // one unless the near miss is its id written another way; an update of one changes and creates none.
  // A write to a canonical form may rightly change the member itself.
  return {
    group: 'team members: near misses of an id',
    entries: ID_NEAR_MISSES.flatMap((miss) => (miss.canonical ? [nearMissFind(miss)] : [nearMissFind(miss), nearMissUpdate(miss)])),
  };
}

// Last, because on a broken target they create or delete a member: what they cannot undo
// through the API, their reason names.
function notOffered(env: Env): Group<Members> {
  const { ops, idField } = env;
  return {
    group: 'team members: what the interface does not offer (section 1)',
    entries: [
      { id: 'TM-NO-CREATE', title: `POST ${ops.list.path} with a copy of a member does not answer 2xx and the list is unchanged`, changesData: true, async run({ client, lane }, run) {
        const before = await needs('TM-LIST', lane.currentList('listing team members before'));
        if (!before.length) run.notApplicable('the target lists no team member to copy');
        const answer = await client.call(lane.createProbe, { body: lane.copyOf(before[0]) });
        const listed = await lane.listAll('listing team members after the POST').catch((e: Error) => e);
        const known = new Set(before.map((r) => String(r[idField])));
        const rows = listed instanceof Error ? undefined : listed.filter(isRecord);
        const added = (rows ?? []).map((r) => r[idField]).filter((id) => !known.has(String(id)));
        const answeredId = recordIn(answer.json, idField)?.[idField];
        if (is2xx(answer) && answeredId !== undefined && !added.some((id) => sameId(id, answeredId))) added.push(answeredId);
        if (is2xx(answer) || added.length) {
          throw new Error(`POST ${ops.list.path} ${said(answer)}, but team members cannot be created; new members: ${added.map(String).join(', ') || 'none listed'}. ${await lane.undoCreate(added)}`);
        }
        // The list is TM-LIST's subject: when it cannot be read now, "unchanged" is not proven either way.
        needsThat('TM-LIST', rows, () => (listed as Error).message);
        const gone = [...known].filter((id) => !rows.some((r) => String(r[idField]) === id));
        ensure(gone.length === 0, () => `after the refused POST the list no longer holds: ${gone.join(', ')}`);
      } },

      // An update that creates what it does not find (an upsert) creates a team member all the same.
      // What it answers is not shown; only a member it made is judged.
      { id: 'TM-NO-CREATE:patch-unknown-id', title: `PATCH ${ops.update.path} of an id of the members' own form that names none creates no member`, changesData: true, async run({ lane }, run) {
        // An id is sought from the members as first listed, at once with the list; one the list now names is sought again from it.
        const initial = await needs('TM-LIST', lane.initial());
        const [before, sought] = await atOnce([needs('TM-LIST', lane.readList('listing team members before')), initial.length ? lane.unknownId(initial) : Promise.resolve(undefined)] as const);
        if (!before.length) run.notApplicable('the target lists no team member to learn the form of an id from');
        const fresh = sought !== undefined && !before.some((r) => sameId(r[idField], sought));
        const id = (fresh ? sought : await lane.unknownId(before)) ?? run.notApplicable(`no id of the form of ${String(before[0][idField])} that names no member turned up`);
        const answer = await lane.update(id, lane.copyOf(before[0]));
        // What the PATCH may have made, found and listed at once.
        const [found, listed] = await atOnce([lane.find(id), lane.listAll('listing team members after the PATCH').catch((e: Error) => e)]);
        const rows = listed instanceof Error ? undefined : listed.filter(isRecord);
        const known = new Set(before.map((r) => String(r[idField])));
        const added = (rows ?? []).map((r) => r[idField]).filter((x) => !known.has(String(x)));
        if (is2xx(found) && sameId(recordIn(found.json, idField, { id })?.[idField], id) && !added.some((x) => sameId(x, id))) added.push(id);
        if (added.length) {
          throw new Error(`PATCH ${ops.update.path} of ${String(id)}, which named no member, ${said(answer)} and made members ${added.map(String).join(', ')}, but team members cannot be created. ${await lane.undoCreate(added)}`);
        }
        needsThat('TM-LIST', rows, () => (listed as Error).message);
      } },

      noDelete(env),
    ],
  };
}

function noDelete({ ops, idField }: Env): Check<Members> {
  return { id: 'TM-NO-DELETE', title: `DELETE ${ops.find.path} does not answer 2xx and the member is still found`, changesData: true, async run({ client, lane }, run) {
    // The last member as first listed is read at once with the list; the list ending with another, that one is read.
    const guess = (await needs('TM-LIST', lane.initial())).at(-1)?.[idField];
    const read = (id: unknown) => needs('TM-FIND', lane.read(id, 'reading the member before'));
    const [members, guessed] = await atOnce([needs('TM-LIST', lane.readList('listing team members')), guess === undefined ? Promise.resolve(undefined) : read(guess).catch(() => undefined)] as const);
    if (!members.length) run.notApplicable('the target lists no team member');
    const id = members[members.length - 1][idField];
    const original = (sameId(id, guess) && guessed) || (await read(id));
    const answer = await client.call(lane.deleteProbe, { id });
    const found = await lane.find(id);
    if (is2xx(found) && sameId(recordIn(found.json, idField, { id })?.[idField], id)) {
      ensure(!is2xx(answer), () => `DELETE ${ops.find.path} ${said(answer)}, but team members cannot be deleted; the member is still found, so nothing needed restoring`);
      return;
    }
    // Not found as it should be: re-create it only if it is really gone, not if the find is what fails.
    const list = await lane.listAll('listing team members after the DELETE').catch(() => []);
    const listedStill = list.some((r) => isRecord(r) && sameId(r[idField], id));
    if (listedStill) {
      ensure(!is2xx(answer), () => `DELETE ${ops.find.path} ${said(answer)}, but team members cannot be deleted; the member is still listed, so nothing was re-created`);
      // Refused, and still listed: only the find fails now, which is TM-FIND's subject, not this check's.
      needsThat('TM-FIND', false, () => `the member ${String(id)} is still listed after the refused DELETE, but finding it answered: GET ${said(found)}`);
    }
    throw new Error(`after DELETE ${ops.find.path} ${said(answer)}, the member ${String(id)} is not found: GET ${said(found)}. ${await lane.undoDelete(original)}`);
  } };
}

// Cover what the target shows: each field the member shows, changed alone to a value another
// member holds (a boolean flipped), read back by find and by list; then put back.
function eachFieldStep({ target, idField }: Env, lane: TeamMemberLane) {
  return sharedStep(async () => {
    // The member TM-UPDATE changed (the richest as first listed), read at once with the list whose values it may take.
    const member = richest(await needs('TM-LIST', lane.initial()));
    if (!member) return undefined;
    const id = member[idField];
    const [members, original] = await atOnce([
      needs('TM-LIST', lane.readList('listing team members')),
      needs('TM-FIND', lane.current(id, 'reading the member before changing its fields')),
    ] as const);
    // Each change starts from the last (judged against the read before it), and the member is put
    // back once, after the last: the journal holds every write, so an interruption anywhere still
    // puts it back (the after-run clean-up).
    let start: Row | undefined = original;
    const access: FieldAccess = {
      resource: lane.ops.update.resource, idField, id,
      read: (why) => lane.read(id, why),
      // The first change starts from the original, read just now (nothing was written since).
      current: async (why) => {
        const row = start;
        start = undefined;
        return row ?? lane.current(id, why);
      },
      listed: async (why) => (await lane.readList(why)).find((r) => sameId(r[idField], id)),
      update: (body) => lane.update(id, body),
      twin: lane.twinPatch(id),
      windowMs: windowOf(target),
    };
    let outcomes: FieldOutcome[] = [];
    await lane.changing(original, async () => {
      outcomes = await coverFields(access, original, members.filter((m) => !sameId(m[idField], id)), keptOut(target.vendor.fieldsNotToChange?.teamMembers));
    });
    return outcomes;
  });
}
