/**
 * Sections 1 and 4: team members can be listed, found and updated, and cannot be created or
 * deleted through the interface. Their fields and status codes are not shown: success is any
 * 2xx, and updates write back values a member already has or the vendor's teamMemberPatch.
 * Team members are shared records: the checks run in one ordered lane, restore what they
 * change, and the two probes that would create or delete one on a broken target run last.
 */
import { authObservation, type Probe } from '../checks/auth-observation.ts';
import { Blocked, checksOf, NotApplicable, type Check, type CheckRun, type Group, type Registry } from '../checks/definition.ts';
import { selects } from '../core/selection.ts';
import { changedFields, comparableFields, described, mismatches, sameId } from '../records/compare.ts';
import { changedNotDerived } from '../records/derived.ts';
import { recordIn } from '../contract/record-in.ts';
import { otherForms } from '../records/equivalence.ts';
import { ensure, said } from '../checks/assertions.ts';
import { needs, needsThat } from '../checks/precondition.ts';
import { fillId, is2xx, type Answer, type ApiClient } from '../http/client.ts';
import { Frame } from '../safety/frame.ts';
import { journalledClient } from '../safety/journal.ts';
import { pick, writeBackBody } from '../records/record-shapes.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { requireOps, resourceOps } from '../contract/resource-ops.ts';
import { leasePlace } from '../safety/lease.ts';
import type { Spec } from '../contract/spec.ts';
import type { CheckId } from '../contract/catalog.ts';
import type { TargetConfig } from '../config/target.ts';
import { TeamMemberLane } from '../resources/team-member-lane.ts';
import { converge, windowOf } from '../core/converge.ts';
import { movedByWrite } from '../records/server-fields.ts';
import { coverFields, judgeFields, keptOut, type FieldAccess, type FieldOutcome } from '../resources/field-coverage.ts';
import { concurrentSteps, sharedStep } from '../checks/shared-step.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { atOnce } from '../core/at-once.ts';
import { ID_NEAR_MISSES, type IdMiss } from '../contract/id-near-misses.ts';
import { madeBy, wrongRecordFound } from '../checks/id-near-miss.ts';

/** What the team-member checks share in one run. */
interface Members {
  client: ApiClient;
  lane: TeamMemberLane;
  /** One member changed, then each of its fields alone, one list read after (TM-ISOLATION, TM-UPDATE:each-field, TM-LIST:each-field-change judge it). */
  changes: () => Promise<Changes | undefined>;
  /** Members the update without a key was sent to, as they were. */
  originals: Map<string, Record<string, unknown>>;
  /** The probes of what the interface does not offer, judged on one list read (probesStep): each check's verdict; the list as read then. */
  probes: ((id: CheckId) => Promise<void>) & { listedAfter(): Promise<Row[] | undefined> };
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

/** The vendor's teamMemberPatch, else a name-like field's change (TeamMemberLane.nameChange); without either, not applicable. */
const nameChangeOr = (target: TargetConfig, lane: TeamMemberLane, original: Row): Row => {
  const body = target.vendor.teamMemberPatch ?? lane.nameChange(original);
  if (!body) throw new NotApplicable('the member has no name-like string field to change: configure teamMemberPatch');
  return body;
};

export function teamMemberChecks(spec: Spec, target: TargetConfig): Registry<Members> {
  const ops = requireOps(resourceOps(spec, 'team-members'), 'team-members', ['list', 'find', 'update']);
  const idField = target.vendor.idField;
  const env: Env = { target, ops, idField };
  const place = leasePlace(spec, target);
  const entries = [memberLane(env), authentication(spec, env), nearMisses(env), notOffered(env)];
  const findsRun = ID_NEAR_MISSES.filter((miss) => checksOf(entries).some((c) => c.id === `TM-ID-NEAR-MISS:find:${miss.name}` && selects(target.only, c)));
  const probesRun = checksOf(entries).filter((c) => PROBES.test(c.id) && selects(target.only, c) && !target.readOnly).map((c) => c.id);
  return {
    entries,
    open() {
      const client = journalledClient(target);
      // The members there before the run, as the frame's baseline holds them (read once, when a list read asks).
      let before: Set<string> | undefined;
      const lane = new TeamMemberLane(client, ops, target, () => (before ??= Frame.of(spec, target)?.under(ops.list.path) ?? new Set()));
      const nearMissFinds = concurrentSteps(findsRun, async (miss: IdMiss) => {
        const { member, near } = await nearMissOf(lane, miss, idField);
        return { member, near, answer: await lane.find(near) };
      });
      return { client, lane, changes: changesStep(env, lane), probes: probesStep(env, lane, client, probesRun), originals: new Map(), nearMissFinds };
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
    { id: 'TM-LIST', title: `GET ${ops.list.path} answers 2xx with a list of members (a JSON array, or an object holding exactly one), each carrying its id, every member there`, async run({ lane }) {
      await lane.initial();
      ensure(!lane.omissions.length, () => lane.omissions.join('; '));
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
// (or not scoped at all) changes the others. Judged on the list the field changes read (changesStep).
function isolation({ ops }: Env): Check<Members> {
  return { id: 'TM-ISOLATION', title: `PATCH ${ops.update.path} of one member leaves every other member as it was; then restored`, changesData: true, async run({ changes }, run) {
    const { isolation } = (await changes()) ?? run.notApplicable('the target lists no team member');
    if (isolation instanceof Error) throw isolation;
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

/** Both sides of changesStep's fields: the find shows each change, and so does the list. */
function eachField({ ops, target, idField }: Env): Check<Members>[] {
  return [
    { id: 'TM-UPDATE:each-field', title: `PATCH ${ops.update.path} of each field a member shows, alone, to a value another member holds (a boolean flipped): a later find shows it and nothing else changed; then restored`, changesData: true, async run({ changes }, run) {
      judgeFields(run, (await changes())?.fields ?? run.notApplicable('the target lists no team member'), 'found');
    } },
    { id: 'TM-LIST:each-field-change', title: `GET ${ops.list.path} still lists the member after each change of one of its fields, with the value a find shows, and as first listed once it is put back`, changesData: true, async run({ changes, probes, lane }, run) {
      const done = (await changes()) ?? run.notApplicable('the target lists no team member');
      // Once put back, the member is listed as first listed: read after the writes that follow (issue 35), again while it lags.
      const was = (await needs('TM-LIST', lane.initial())).find((r) => sameId(r[idField], done.id));
      const differs = (rows: Row[] | undefined) => {
        const now = rows?.find((r) => sameId(r[idField], done.id));
        return was && rows ? (now ? changedFields(was, now, [], 'team-members') : ['not listed']) : [];
      };
      let rows = await probes.listedAfter();
      if (differs(rows).length) rows = (await converge(() => lane.listAll('listing team members again').then((r) => r.filter(isRecord)), (r) => !differs(r).length, windowOf(target))).value;
      const wrong = differs(rows);
      // A member left out of a list read after the changes, though there before the run (see TeamMemberLane.omissions).
      ensure(!lane.omissions.length, () => `after the changes, ${lane.omissions.join('; ')}`);
      judgeFields(run, done.fields, 'listed');
      if (!wrong.length || !was) return;
      // The list's failure only where a find now shows the member as first listed: else the member itself is not (another check's subject).
      if (!(await lane.shownAs(done.id, was))) return;
      throw new Error(`once put back (a find shows it so), member ${String(done.id)} is listed otherwise than first listed: ${wrong.join('; ')}`);
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
    run: ({ probes }) => probes(`TM-ID-NEAR-MISS:update:${miss.name}`),
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
      { id: 'TM-NO-CREATE', title: `POST ${ops.list.path} with a copy of a member does not answer 2xx and the list is unchanged`, changesData: true, run: ({ probes }) => probes('TM-NO-CREATE') },
      // An update that creates what it does not find (an upsert) creates a team member all the same.
      // What it answers is not shown; only a member it made is judged.
      { id: 'TM-NO-CREATE:patch-unknown-id', title: `PATCH ${ops.update.path} of an id of the members' own form that names none creates no member`, changesData: true, run: ({ probes }) => probes('TM-NO-CREATE:patch-unknown-id') },
      noDelete(env),
    ],
  };
}

function noDelete({ ops, idField }: Env): Check<Members> {
  return { id: 'TM-NO-DELETE', title: `DELETE ${ops.find.path} does not answer 2xx and the member is still found`, changesData: true, async run({ client, lane }, run) {
    // The last member as first listed (issue 35: no list read of its own), as a find shows it now.
    const members = await needs('TM-LIST', lane.initial());
    if (!members.length) run.notApplicable('the target lists no team member');
    const id = members[members.length - 1][idField];
    const original = await needs('TM-FIND', lane.read(id, 'reading the member before'));
    const answer = await client.call(lane.deleteProbe, { id });
    const found = await lane.find(id);
    if (lane.memberIn(found, id)) {
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

/** What changesStep found: TM-ISOLATION's verdict (an error to throw, or undefined), each field's outcome. */
interface Changes {
  /** The member changed. */
  id: unknown;
  isolation: Error | undefined;
  fields: FieldOutcome[];
}

/**
 * The changes of one member (the richest as first listed), judged on one list read (issue 35):
 * a change of a name-like field (TM-ISOLATION's), then each field the member shows, alone, to a
 * value another member holds (a boolean flipped), each read back by find; then the list, read
 * until it shows the member's last values, shows them (TM-LIST:each-field-change) and every other
 * member as first listed (TM-ISOLATION). Then the member is put back, and any other it reached.
 */
function changesStep({ target, idField, ops }: Env, lane: TeamMemberLane) {
  return sharedStep(async (): Promise<Changes | undefined> => {
    // The members as first listed, unless a write went out since (then read anew).
    const members = await needs('TM-LIST', lane.currentList('listing team members'));
    const member = richest(members);
    if (!member) return undefined;
    const id = member[idField];
    const original = await needs('TM-FIND', lane.current(id, 'reading the member before changing it'));
    const others = members.filter((m) => !sameId(m[idField], id));
    // TM-ISOLATION's own change comes last, before the list is read (on a target whose PATCH replaces
    // the member, the field changes start from every field); without it (fewer than two members, no
    // field to change, refused) the fields are changed all the same.
    let isolation: Error | undefined = others.length === 0 ? new NotApplicable('the target lists fewer than two team members') : undefined;
    const body = target.vendor.teamMemberPatch ?? lane.nameChange(original);
    if (!body) isolation ??= new NotApplicable('the member has no name-like string field to change: configure teamMemberPatch');
    let sent = false;
    const isolating = async (known: Row): Promise<Row> => {
      if (isolation || !body) return known;
      const answer = await lane.update(id, body);
      if (!is2xx(answer)) {
        isolation = new Blocked('TM-UPDATE:change', `the update itself failed, so isolation cannot be judged: PATCH ${ops.update.path} with ${JSON.stringify(body)} ${said(answer)}`);
        return known;
      }
      // The list is read once a find shows the change (not with it: on a target whose finds alternate
      // between a fresh and a lagging copy, two finds in that wait would differ with no update between them).
      sent = true;
      return lane.readUntil(id, 'reading the member after the update', (r) => mismatches(body, r).length === 0);
    };
    /** The list as the field changes' read found it (access.listed), or read for the isolation alone. */
    let listed: Row[] | undefined;
    let outcomes: FieldOutcome[] = [];
    let touched: Row[] = [];
    await lane.changing(original, async () => {
      // Each change starts from the last (judged against the read before it), and the member is put
      // back once, after the last: the journal holds every write, so an interruption anywhere still
      // puts it back (the after-run clean-up).
      let first: Row | undefined = original;
      const access: FieldAccess = {
        resource: lane.ops.update.resource, idField, id,
        read: (why) => lane.read(id, why),
        // The first change starts from the member as just read (nothing was written since).
        current: async (why) => {
          const row = first;
          first = undefined;
          return row ?? lane.current(id, why);
        },
        listed: async (why) => {
          listed = await lane.readList(why);
          return listed.find((r) => sameId(r[idField], id));
        },
        update: (b) => lane.update(id, b),
        twin: lane.twinPatch(id),
        windowMs: windowOf(target),
        lastWrite: isolating,
      };
      outcomes = await coverFields(access, original, others, keptOut(target.vendor.fieldsNotToChange?.teamMembers));
      // No field change read the list: the isolation's change and its own read, until the list shows it.
      if (!listed) await isolating(original);
      if (!sent || !body) return;
      const shows = (rows: Row[]) => rows.some((r) => sameId(r[idField], id) && mismatches(pick(body, Object.keys(r)), r).length === 0);
      if (!listed || !shows(listed)) listed = (await converge(() => lane.readList('listing team members after the update'), shows, windowOf(target))).value;
      touched = await othersChanged(lane, others, listed, idField);
    });
    if (!touched.length) return { id, isolation, fields: outcomes };
    // The member is put back (changing); the others its updates reached, after it.
    const left: string[] = [];
    for (const m of touched) left.push(`${String(m[idField])} (${(await lane.putBack(m)) ?? 'put back'})`);
    isolation = new Error(`the updates of member ${String(id)} (${JSON.stringify(body)}, then each field alone) also changed members ${left.join(', ')}`);
    return { id, isolation, fields: outcomes };
  });
}

/**
 * The other members a list read shows changed from `before`: one it leaves out is found by its id
 * (a list may leave out what is there); only one found changed, or not found, was touched.
 */
async function othersChanged(lane: TeamMemberLane, before: Row[], after: Row[], idField: string): Promise<Row[]> {
  const touched: Row[] = [];
  for (const was of before) {
    const id = was[idField];
    const now = after.find((r) => sameId(r[idField], id)) ?? (await lane.read(id, 'finding a member the list left out').catch(() => undefined));
    if (!now || changedFields(was, now, [], 'team-members').length) touched.push(was);
  }
  return touched;
}

/** The checks whose writes may make a member (probesStep). */
const PROBES = /^(TM-ID-NEAR-MISS:update:|TM-NO-CREATE)/;

/** What one probe sent, and what it may have made. */
interface Sent {
  id: CheckId;
  /** Its request as the verdict names it. */
  asked: string;
  answer: Answer;
  /** Ids that name what it made: the id it wrote to, one its answer names. */
  ids: unknown[];
  /** What it sent, by which a member it made is known (a copy carries the check's own mark). */
  sent: Row;
  /** What the member it wrote to (a near miss) showed after, judged before the list. */
  failure?: unknown;
}

/**
 * The writes that must make no member (section 1: members are never created), sent one after
 * another, then judged on one list read (issue 35): a near miss's update (it changes no member
 * either: judged by a find right after it, then the member put back), a POST of a copy of a member,
 * a PATCH of an id that names none. A member listed now and not as first listed was made by the
 * probe whose id or answer names it, or whose body it holds (each copy carries its check's own
 * mark); one none of them names, by any of them. What was made is deleted again.
 */
function probesStep({ target, ops, idField }: Env, lane: TeamMemberLane, client: ApiClient, run: CheckId[]) {
  // Each check's report holds its own probe's requests and the shared read (a turned-away PATCH is not the POST's).
  const logs = new Map<CheckId, Exchange[]>(run.map((id) => [id, []]));
  const shared: Exchange[] = [];
  let done: Promise<Map<CheckId, unknown>> | undefined;
  /** The list as read after the writes (undefined when it could not be read whole). */
  let after: Row[] | undefined;
  const step = () => (done ??= withExchangeLog(shared, async (): Promise<Map<CheckId, unknown>> => {
    const verdicts = new Map<CheckId, unknown>();
    const sent: Sent[] = [];
    for (const id of run) {
      try {
        const probe = await withExchangeLog(logs.get(id)!, () => (id.startsWith('TM-ID-NEAR-MISS:') ? nearMissProbe(id) : id === 'TM-NO-CREATE' ? createProbe(id) : unknownIdProbe(id)));
        if (probe) sent.push(probe);
      } catch (e) {
        verdicts.set(id, e);
      }
    }
    let initial: Row[];
    try {
      initial = await needs('TM-LIST', lane.initial());
    } catch (e) {
      for (const p of sent) verdicts.set(p.id, e);
      return verdicts;
    }
    const listed = await lane.listAll('listing team members after the writes').catch((e: Error) => e);
    const rows = listed instanceof Error ? undefined : listed.filter(isRecord);
    after = rows;
    const added = (rows ?? []).filter((r) => !initial.some((b) => sameId(b[idField], r[idField])));
    const names = (p: Sent, r: Row) => madeBy(p.sent, p.ids, initial, [r], idField).length > 0;
    // One no probe names, and there before the run's first write (a list may have left it out as first read), none of them made.
    const unnamed = added.filter((r) => !sent.some((p) => names(p, r)) && !lane.thereBefore(fillId(ops.find.path, r[idField])));
    const undone = new Map<string, string>();
    for (const p of sent) {
      const made = [...new Set([...added.filter((r) => names(p, r)), ...unnamed].map((r) => r[idField]))];
      // A member its own find shows though no list names it (a list may leave out what is there).
      for (const x of p.ids) if (!made.some((m) => sameId(m, x)) && (await foundAs(x))) made.push(x);
      for (const x of made) if (!undone.has(String(x))) undone.set(String(x), await lane.undoCreate([x]));
      const undo = made.map((x) => undone.get(String(x))).join(' ');
      try {
        if (p.failure) throw p.failure;
        if (made.length) {
          throw new Error(p.id === 'TM-NO-CREATE'
            ? `${p.asked} ${said(p.answer)}, but team members cannot be created; new members: ${made.map(String).join(', ')}. ${undo}`
            : `${p.asked} ${said(p.answer)}, and made members ${made.map(String).join(', ')}, but team members cannot be created. ${undo}`);
        }
        ensure(p.id !== 'TM-NO-CREATE' || !is2xx(p.answer), () => `${p.asked} ${said(p.answer)}, but team members cannot be created; new members: none listed`);
        // The list is TM-LIST's subject: when it cannot be read now, "unchanged" is not proven either way.
        needsThat('TM-LIST', rows, () => (listed as Error).message);
        // One the list leaves out that a find shows is the list's omission (TM-LIST's), not gone.
        const gone: string[] = [];
        for (const b of initial) if (!rows.some((r) => sameId(r[idField], b[idField])) && !(await foundAs(b[idField]))) gone.push(String(b[idField]));
        ensure(p.id !== 'TM-NO-CREATE' || gone.length === 0, () => `after the refused POST the list no longer holds: ${gone.join(', ')}`);
      } catch (e) {
        verdicts.set(p.id, e);
      }
    }
    return verdicts;
  }));

  // A copy of a member, its name-like field carrying the check's own mark.
  const mark = (id: CheckId, member: Row): Row => {
    const name = lane.nameChange(member);
    return { ...lane.copyOf(member), ...(name && Object.fromEntries(Object.entries(name).map(([k, v]) => [k, `${String(v)} ${id}`]))) };
  };
  const foundAs = async (id: unknown) => lane.memberIn(await lane.find(id), id) !== undefined;

  async function nearMissProbe(id: CheckId): Promise<Sent> {
    const miss = ID_NEAR_MISSES.find((m) => id === `TM-ID-NEAR-MISS:update:${m.name}`)!;
    const { member, near } = await nearMissOf(lane, miss, idField);
    const memberId = member[idField];
    const original = await needs('TM-FIND', lane.current(memberId, 'reading the member before'));
    const body = nameChangeOr(target, lane, original);
    const asked = `PATCH ${ops.update.path} with ${near} (${miss.description} ${String(memberId)}) and ${JSON.stringify(body)}`;
    let answer: Answer | undefined;
    let failure: unknown;
    await lane.changing(original, async () => {
      answer = await lane.update(near, body);
      const changed = changedFields(original, await lane.read(memberId, 'reading the member after'), [], 'team-members');
      if (changed.length) failure = new Error(`${asked} ${said(answer)}, and changed the member ${String(memberId)}: ${changed.join('; ')}`);
    });
    return { id, asked, answer: answer!, ids: [near, recordIn(answer!.json, idField)?.[idField]].filter((x) => x !== undefined), sent: body, failure };
  }

  async function createProbe(id: CheckId): Promise<Sent> {
    const [first] = await needs('TM-LIST', lane.initial());
    if (!first) throw new NotApplicable('the target lists no team member to copy');
    const body = mark(id, first);
    const answer = await client.call(lane.createProbe, { body });
    return { id, asked: `POST ${ops.list.path}`, answer, ids: [recordIn(answer.json, idField)?.[idField]].filter((x) => x !== undefined), sent: body };
  }

  async function unknownIdProbe(id: CheckId): Promise<Sent> {
    const initial = await needs('TM-LIST', lane.initial());
    if (!initial.length) throw new NotApplicable('the target lists no team member to learn the form of an id from');
    const unknown = (await lane.unknownId(initial)) ?? (() => {
      throw new NotApplicable(`no id of the form of ${String(initial[0][idField])} that names no member turned up`);
    })();
    const body = mark(id, initial[0]);
    const answer = await lane.update(unknown, body);
    return { id, asked: `PATCH ${ops.update.path} of ${String(unknown)}, which named no member,`, answer, ids: [unknown], sent: body };
  }

  const judge = async (id: CheckId) => {
    try {
      const verdict = (await step()).get(id);
      if (verdict !== undefined) throw verdict;
    } finally {
      for (const e of [...(logs.get(id) ?? []), ...shared]) recordExchange(e);
    }
  };
  /** The list read after the writes (and after the member changes were put back), for a check that judges it too. */
  const listedAfter = async (): Promise<Row[] | undefined> => {
    try {
      await step();
      return after;
    } finally {
      for (const e of shared) recordExchange(e);
    }
  };
  return Object.assign(judge, { listedAfter });
}
