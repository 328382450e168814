import { isDeepStrictEqual } from 'node:util';
import { changedFieldNames, changedFields, mismatches, sameId } from '../records/compare.ts';
import type { TwinPatch } from '../records/derived.ts';
import { recordIn } from '../contract/record-in.ts';
import { restoreFields } from '../safety/restore-record.ts';
import { ensure, foundRecord, said } from '../checks/assertions.ts';
import { ListReader } from '../records/list-reader.ts';
import { converge, learnedLag, quiesce, readCurrent, windowOf } from '../core/converge.ts';
import { Blocked, NotApplicable } from '../checks/definition.ts';
import { fillId, is2xx, TurnedAway, type Answer, type ApiClient } from '../http/client.ts';
import { idLike, pick, writableFields } from '../records/record-shapes.ts';
import { fixtureFields } from '../records/marker-field.ts';
import { serverFields } from '../records/server-fields.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { undocumented, type ResourceOps } from '../contract/resource-ops.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { InterferenceWatch, type Reading } from '../safety/interference-watch.ts';
import { RecordHistory } from '../records/record-history.ts';
import type { Journal } from '../safety/journal.ts';
import { anotherRunAt } from '../safety/interference.ts';
import type { LeasePlace } from '../safety/lease.ts';
import { sharedStep } from '../checks/shared-step.ts';
import { movedSince, writesTo } from '../http/write-activity.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

type MemberOps = Required<Pick<ResourceOps, 'list' | 'find' | 'update'>>;

/** The resource whose fields the target may move by itself (see ServerFields). */
const MEMBERS = 'team-members';

/** Where a field stands in `named` (those it does not name after all of them). */
const rank = (named: string[], field: string) => (named.includes(field) ? named.indexOf(field) : named.length);

/**
 * Team members are shared records the run cannot create: the checks take turns on them in one
 * ordered lane, put back whatever they change, and verify it.
 */
export class TeamMemberLane {
  readonly idField: string;
  private readonly runId: string;
  /** Section 1 rules these out; the suite sends them to prove the target refuses them. */
  readonly createProbe: Operation;
  readonly deleteProbe: Operation;
  /** The members as the run found them: what the lane must leave behind. */
  readonly initial = sharedStep(async () => {
    const rows = await this.readList('listing team members');
    await this.learnFromReads(rows[0]?.[this.idField]);
    return rows;
  });
  /** Another writer at work on the members stops the lane (see InterferenceWatch). */
  private readonly watch: InterferenceWatch;
  private readonly lists: ListReader;
  private readonly windowMs: number;
  /** Each member as last read, and how many writes the client had sent when it was asked (see current). */
  private readonly latest = new Map<string, { row: Row; writes: number }>();
  /** The last list read, and how many writes the client had sent then (see currentList). */
  private lastList?: { rows: Row[]; writes: number };
  private readonly journal: Journal | undefined;
  /** Members the lane wrote to, and those whose find it journalled as a snapshot before that (see read). */
  private readonly written = new Set<string>();
  private readonly snapshotted = new Set<string>();
  /** What the lane knows of each member: a reading older than that is read again (see RecordHistory). */
  private readonly histories = new Map<string, RecordHistory>();

  /**
   * Whole-list reads that left out a member there before the run (`before`, the frame's baseline)
   * which a find shows: team members are never created or deleted (section 1), and an older copy
   * of the list would still name it. A read the run's own writes to the list overlapped is not held
   * to it (rows move between pages). TM-LIST and TM-LIST:each-field-change judge them.
   */
  readonly omissions: string[] = [];

  constructor(
    private readonly client: ApiClient,
    readonly ops: MemberOps,
    private readonly target: TargetConfig,
    private readonly before?: () => Set<string>,
  ) {
    this.idField = target.vendor.idField;
    this.runId = target.runId;
    this.createProbe = undocumented(ops.list, 'POST', 'createTeamMember');
    this.deleteProbe = undocumented(ops.find, 'DELETE', 'deleteTeamMember');
    this.lists = new ListReader(client, target);
    this.windowMs = windowOf(target);
    this.journal = currentJournal(target);
    this.watch = new InterferenceWatch(this.runId, this.journal, MEMBERS);
  }

  /** Every member listed, every page (see ListReader): what the target lists, or an error saying why it cannot be read whole. */
  async listAll(why: string): Promise<unknown[]> {
    const doing = `${why}: GET ${this.ops.list.path}`;
    return this.lists.all(this.ops.list.path, doing);
  }

  /** The members listed: a 2xx list (see ListReader) of objects, each carrying its id; anything else fails the check. */
  async readList(why: string): Promise<Row[]> {
    this.watch.stopIfInterfered();
    const doing = `${why}: GET ${this.ops.list.path}`;
    const members = (rows: unknown[]) => rows.filter((r): r is Row => isRecord(r) && r[this.idField] !== undefined && r[this.idField] !== null);
    // Members whose update of new values has not shown are the check's to wait for (see settled).
    const current = (rows: unknown[]) => members(rows).every((r) => !this.historyOf(r[this.idField]).indistinct || this.historyOf(r[this.idField]).current(r));
    // A list shows members no update of the run touched, whose readings only time tells apart (see RecordHistory.indistinct).
    const novel = (rows: unknown[]) => members(rows).some((r) => this.historyOf(r[this.idField]).novel(r));
    const rows = await readCurrent(() => this.leftOut(() => this.listAll(why)), current, true, this.windowMs, this.client.lastWriteAt, undefined, novel);
    const bad = rows.findIndex((r) => !isRecord(r) || r[this.idField] === undefined || r[this.idField] === null);
    ensure(bad < 0, () => `${doing}: element ${bad} is not a member carrying "${this.idField}" (set idField in the vendor config if the id has another name)`);
    // A row an older copy shows is no sign of another writer: the watch compares the others only.
    const seen = (rows as Row[]).filter((r) => !this.historyOf(r[this.idField]).older(r));
    for (const r of rows as Row[]) if (this.historyOf(r[this.idField]).current(r)) this.historyOf(r[this.idField]).took(r);
    this.watch.read('list', this.readings(seen));
    this.lastList = { rows: rows as Row[], writes: this.client.writesSent };
    return rows as Row[];
  }

  /** Whether the member at `path` was there before the run's first write (the frame's baseline; false without one). */
  thereBefore(path: string): boolean {
    return this.before?.().has(path) ?? false;
  }

  /** A whole-list read, its omissions of members there before the run noted (see omissions). */
  private async leftOut(read: () => Promise<unknown[]>): Promise<unknown[]> {
    const mark = writesTo(this.ops.list.path);
    const rows = await read();
    const before = this.before?.();
    if (!before?.size || movedSince(this.ops.list.path, mark)) return rows;
    const listed = new Set(rows.filter(isRecord).map((r) => fillId(this.ops.find.path, r[this.idField])));
    for (const path of [...before].filter((p) => !listed.has(p))) {
      const id = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
      if (this.memberIn(await this.find(id), id)) {
        this.omissions.push(`GET ${this.ops.list.path} left out team member ${id}, there before the run and found by its id`);
      }
    }
    return rows;
  }

  /** The members as the lane last listed them, when nothing was sent since that could have changed them; else a new list (see current). */
  async currentList(why: string): Promise<Row[]> {
    const last = this.lastList;
    return last && last.writes === this.client.writesSent ? last.rows : this.readList(why);
  }

  /**
   * Before anything is judged: what the target moves by itself on every read (see ServerFields),
   * from one member found three times in a row, nothing written between. Finds, not lists (issue
   * 35: the list is read whole a bounded number of times); a field only the list shows is not
   * learned. A read that fails teaches nothing (the checks judge reads).
   */
  private async learnFromReads(id: unknown): Promise<void> {
    if (id === undefined) return;
    const finds = [];
    for (let i = 0; i < 3; i++) finds.push(await this.find(id));
    const rows = finds.map((a) => a.json).filter(isRecord);
    if (finds.every(is2xx) && rows.length === 3) serverFields().fromReads(MEMBERS, rows);
  }

  /** A find as it answered, for a check that judges it itself: not a reading `current` gives (only `read`'s, which the watch for another writer has seen). */
  find(id: unknown): Promise<Answer> {
    return this.client.call(this.ops.find, { id });
  }

  /** The member with that id, as a find answers it; anything else fails the check. */
  async read(id: unknown, why: string): Promise<Row> {
    this.watch.stopIfInterfered();
    const writes = this.client.writesSent;
    const { found, older } = await this.settled(id, why);
    if (!older) this.watch.read('find', this.readings([found]));
    this.latest.set(String(id), { row: found, writes });
    // The member as a find shows it before the run's first write to it: the clean-up's record of
    // fields a list leaves out (a list may show less than a find; a later snapshot adds, never overwrites).
    const path = fillId(this.ops.find.path, id);
    if (!this.written.has(path) && !this.snapshotted.has(path)) {
      this.snapshotted.add(path);
      this.journal?.append({ kind: 'snapshot', path, record: found });
    }
    return found;
  }

  /** The member as a find answers it once no older than what the lane knows (see RecordHistory); anything else fails the check. */
  private async settled(id: unknown, why: string): Promise<{ found: Row; older: boolean }> {
    const history = this.historyOf(id);
    const read = async () => foundRecord(await this.find(id), `${why}: GET ${this.ops.find.path} with id ${String(id)}`, this.idField, id, 'team member');
    // After an update of new values, the check waits for them itself (readUntil): a wait in here would
    // be a wait within its wait. A reading that is not current is never what the lane knows.
    const found = history.indistinct ? await readCurrent(read, (row) => history.current(row), true, this.windowMs, this.client.lastWriteAt, undefined, (row) => history.novel(row)) : await read();
    const older = history.older(found);
    if (history.current(found)) history.took(found);
    return { found, older };
  }

  private historyOf(id: unknown): RecordHistory {
    const key = String(id);
    let history = this.histories.get(key);
    if (!history) this.histories.set(key, (history = new RecordHistory(undefined, MEMBERS)));
    return history;
  }

  /**
   * The member as the lane last read it, when nothing was sent since that could have changed it
   * (so a new find would answer the same, as far as this run knows); else a new find. Given once:
   * a caller that reads again (waiting for a write to show) reads anew.
   */
  async current(id: unknown, why: string): Promise<Row> {
    return this.takeLatest(id) ?? this.read(id, why);
  }

  private takeLatest(id: unknown): Row | undefined {
    const latest = this.latest.get(String(id));
    this.latest.delete(String(id));
    return latest && latest.writes === this.client.writesSent ? latest.row : undefined;
  }

  /** Reads the member until `shows` holds (the run's own update shows), or the window ends: the last reading, for the check to judge. */
  async readUntil(id: unknown, why: string, shows: (row: Row) => boolean): Promise<Row> {
    return (await converge(() => this.read(id, why), shows, this.windowMs)).value;
  }

  update(id: unknown, body: Row): Promise<Answer> {
    this.watch.stopIfInterfered();
    this.written.add(fillId(this.ops.find.path, id));
    this.watch.sent(fillId(this.ops.find.path, id), body);
    return this.historyOf(id).write(body, () => this.client.call(this.ops.update, { id, body }));
  }

  /** Members read, as the interference watch takes them. */
  private readings(rows: Row[]): Reading[] {
    return rows.map((row) => ({ path: fillId(this.ops.find.path, row[this.idField]), what: `team member ${String(row[this.idField])}`, row }));
  }

  /**
   * Before a difference is recorded as the target's failure: another run at work (its marker in a
   * member as listed now, or its live lease) stops the lane instead. Writes nothing.
   */
  async settle(place: LeasePlace | undefined): Promise<void> {
    if (this.watch.interfered()) return;
    const rows = ((await this.listAll('listing team members').catch(() => [])) as unknown[]).filter(isRecord);
    const found = await anotherRunAt(this.client, place, this.runId, rows, 'the team members');
    if (found) this.watch.stop(found);
  }

  /**
   * A change of a string field the member has, when the vendor configured none; it carries the run
   * marker (by which the clean-up finds a change that reached other members too). Fields are not
   * shown, so no name says which takes free text: one the vendor's customer fixture names (a field
   * a client sends; the marked one first), else the one whose values differ on every member listed
   * (a name, not a role), else one where another member holds another value. An email-like value
   * is passed over: it may be unique.
   */
  nameChange(member: Row): Row | undefined {
    const rows = [member, ...(this.lastList?.rows ?? []).filter((r) => !sameId(r[this.idField], member[this.idField]))];
    const text = (v: unknown): v is string => typeof v === 'string' && !v.includes('@');
    // The fields the vendor's fixture names come first (the marked one first): fields a client sends.
    const named = fixtureFields(this.target);
    const fields = writableFields(member, this.idField, MEMBERS).filter((f) => text(member[f])).sort((a, b) => rank(named, a) - rank(named, b));
    const values = (f: string) => rows.map((r) => r[f]).filter(text);
    const field =
      fields.find((f) => named.includes(f)) ??
      fields.find((f) => values(f).length === rows.length && rows.length > 1 && new Set(values(f)).size === rows.length) ??
      fields.find((f) => values(f).some((v) => v !== member[f]));
    if (!field) return undefined;
    const value = `Conformance ${this.runId}`;
    return { [field]: member[field] === value ? `${value} changed` : value };
  }

  /**
   * An id of the listed members' own form that names no member, neither listed nor found (a
   * member may exist unlisted), or undefined when none turned up in a few tries.
   */
  async unknownId(members: Row[]): Promise<unknown> {
    const ids = members.map((m) => m[this.idField]);
    for (let i = 0; i < 5; i++) {
      const id = idLike(ids[i % ids.length], ids);
      if (ids.some((known) => String(known) === String(id))) continue;
      if (!is2xx(await this.find(id))) return id;
    }
    return undefined;
  }

  /** A member's fields to send back as a new member: those a client may write (see writableFields). */
  copyOf(member: Row): Row {
    return pick(member, writableFields(member, this.idField, MEMBERS));
  }

  /**
   * Runs `change` on a member, then restores the member's original values and verifies them with
   * a find. A member that cannot be restored fails the check, saying what is left changed.
   */
  async changing(original: Row, change: () => Promise<void>): Promise<void> {
    let failure: Error | undefined;
    try {
      await change();
    } catch (e) {
      failure = e as Error;
    }
    // After another writer, the after-run clean-up puts back only the fields holding this run's marker.
    if (this.watch.interfered()) throw failure ?? this.watch.interference;
    let problem: string | undefined;
    try {
      problem = await this.restore(original);
    } catch (e) {
      // Turned away while putting the member back (the after-run clean-up tries again): a failure
      // the change already proved stands; else the check is blocked by the target.
      if (failure !== undefined && !(failure instanceof TurnedAway || failure instanceof Blocked || failure instanceof NotApplicable)) {
        throw new Error(`${failure.message}; then putting the member back was turned away: ${(e as Error).message}`);
      }
      throw failure ?? e;
    }
    if (problem) throw new Error(`${failure ? `${failure.message}; then ` : ''}the member was NOT restored: ${problem}`);
    if (failure) throw failure;
  }

  /**
   * The same patch applied to a twin (derivedFields): another member than `except`, none of whose
   * fields sent already holds the value, patched, read until it shows the patch, then put back;
   * undefined when there is none or that did not work (the check judges without).
   */
  twinPatch(except: unknown): TwinPatch {
    return async (body) => {
      const members = await this.readList('listing team members for a twin').catch(() => []);
      // One that holds every field sent, none of them at the value sent: a PATCH cannot take away a field it did not have, so only such a twin can be put back.
      const other = members.find((m) => !sameId(m[this.idField], except) && Object.keys(body).every((k) => k in m && !isDeepStrictEqual(m[k], body[k])));
      // None: the member itself is its twin in time, given other text in the same fields (what a
      // field derived from them does, it does again); a value that is not text has no other to give.
      const [id, sent] = other ? [other[this.idField], body] : [except, Object.values(body).every((v) => typeof v === 'string') ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, `${String(v)} 2`])) : undefined];
      if (!sent) return undefined;
      const before = await this.read(id, 'reading a twin before the same patch');
      let after: Row | undefined;
      await this.changing(before, async () => {
        if (is2xx(await this.update(id, sent))) after = await this.readUntil(id, 'reading the twin after the same patch', (row) => mismatches(sent, row).length === 0);
      });
      return after && { before, after };
    };
  }

  /** After a request that should have changed nothing: puts the member back if it did change; says what could not be. */
  async putBack(original: Row): Promise<string | undefined> {
    this.watch.stopIfInterfered();
    const now = (await this.settled(original[this.idField], 'reading the member').catch(() => undefined))?.found;
    if (now && changedFields(original, now, [], MEMBERS).length === 0) return undefined;
    return this.restore(original);
  }

  /**
   * Puts the member back (helpers/safety/restore-record.ts): the fields that differ from its
   * original, then, if it still differs (a PATCH that replaced it), every writable field.
   * Undefined when restored; else what differs.
   */
  private async restore(original: Row): Promise<string | undefined> {
    const id = original[this.idField];
    let first = true;
    const access = {
      // The first read may be the one the change ended with, when nothing was written since
      // (takeLatest gives it once), else one no older than what the lane knows: an older one may
      // hold the original values. The restore's own reads are not kept, so later reads are new.
      read: async () => {
        const firstRead = first;
        first = false;
        const latest = this.takeLatest(id);
        if (latest) return latest;
        // Not kept as the lane's last find: a restore's reads are not watched for another writer (see read).
        if (firstRead) return (await this.settled(id, 'reading the member to put it back')).found;
        const now = await this.find(id);
        const row = is2xx(now) ? recordIn(now.json, this.idField, { id }) : undefined;
        if (!row) throw new Error(`GET ${this.ops.find.path} ${said(now)}`);
        return row;
      },
      write: (body: Row) => this.update(id, body),
      windowMs: this.windowMs,
    };
    try {
      const { still, now } = await restoreFields(access, original, writableFields(original, this.idField, MEMBERS), {
        quiesce: () => quiesce(this.client.lastWriteAt, undefined, this.windowMs),
        differing: (now) => changedFieldNames(original, now, undefined, MEMBERS),
        resource: MEMBERS,
      });
      // The read that verified the restore is the member as it stands: the next change starts from it (see current).
      this.historyOf(id).took(now);
      if (!still.length) this.latest.set(String(id), { row: now, writes: this.client.writesSent });
      return still.length ? `member ${String(id)} differs from its original: ${changedFields(original, now, [], MEMBERS).join('; ')}` : undefined;
    } catch (e) {
      // Turned away: the check is blocked by the target; the after-run clean-up puts the member back.
      if (e instanceof TurnedAway) throw e;
      return `member ${String(id)} could not be read back: ${(e as Error).message}`;
    }
  }

  /** Undoes a member the target wrongly created: deletes it (the only way the API could) and says what came of it. */
  async undoCreate(ids: unknown[]): Promise<string> {
    const outcomes: string[] = [];
    for (const id of ids) {
      const removed = await this.client.call(this.deleteProbe, { id });
      const found = await this.find(id);
      if (is2xx(found)) this.lost(id, `created by the run (the target let it) and not removable: DELETE ${said(removed)}`);
      outcomes.push(
        is2xx(found)
          ? `member ${String(id)} was NOT removed (DELETE ${said(removed)}) and remains on the target`
          : `member ${String(id)} was deleted again (DELETE ${said(removed)})`,
      );
    }
    return outcomes.length ? `Undo: ${outcomes.join('; ')}.` : 'Undo: no new member was found, nothing to remove.';
  }

  /** Undoes a member the target wrongly deleted: creates it anew from its last reading and says what came of it. */
  async undoDelete(original: Row): Promise<string> {
    const id = original[this.idField];
    const sent = this.copyOf(original);
    const answer = await this.client.call(this.createProbe, { body: sent, restoring: true });
    const newId = recordIn(answer.json, this.idField, { sent })?.[this.idField];
    this.lost(id, is2xx(answer) ? `deleted by the run (the target let it) and re-created with the same fields as ${String(newId)}: its id could not be restored` : `deleted by the run (the target let it) and not re-created: POST ${said(answer)}. It was: ${JSON.stringify(original)}`);
    if (!is2xx(answer)) {
      return `Undo: member ${String(id)} was NOT restored: re-creating it with POST ${this.ops.list.path} ${said(answer)}. It was: ${JSON.stringify(original)}`;
    }
    // The client journals every create for deletion after the run: this one must stay.
    if (newId !== undefined && newId !== null) {
      this.journal?.append({ kind: 'kept', path: fillId(this.ops.find.path, newId) });
      this.lost(newId, `created by the run in place of member ${String(id)}, which the target let the run delete: kept`);
    }
    return `Undo: member ${String(id)} was re-created as a new member${newId === undefined ? '' : ` ${String(newId)}`} with the same fields (POST ${said(answer)}); its original id ${String(id)} could not be restored.`;
  }

  /** A member no request of the API can put back: the after-run clean-up names it as left on the target. */
  private lost(id: unknown, problem: string): void {
    this.journal?.append({ kind: 'lost', path: fillId(this.ops.find.path, id), problem });
  }

  /** The member of that id an answer holds (a find's): 2xx, and the id its own; else undefined. */
  memberIn(answer: Answer, id: unknown): Row | undefined {
    const row = is2xx(answer) ? recordIn(answer.json, this.idField, { id }) : undefined;
    return row && sameId(row[this.idField], id) ? row : undefined;
  }

  /**
   * Whether a find shows the member as `listed`, on the fields both show: then a list that shows it
   * otherwise misrepresents it (TM-LIST:each-field-change judges that), it is not left changed.
   */
  async shownAs(id: unknown, listed: Row): Promise<boolean> {
    const found = this.memberIn(await this.find(id).catch((e: Error) => e as never), id);
    return found !== undefined && changedFields(pick(listed, Object.keys(found)), pick(found, Object.keys(listed)), [], MEMBERS).length === 0;
  }

  /** What differs between the members now and as the run found them: added, gone or changed. */
  async finish(): Promise<string[]> {
    // Another writer's changes are not this run's to report or undo: the after-run clean-up says what is left.
    if (this.watch.interfered()) return [];
    let before: Row[];
    try {
      before = await this.initial();
    } catch {
      return []; // never read, so never changed
    }
    // A copy older than the run's restores would show changes undone since, and one older than a
    // change the same as before the run: the list is read once reads no longer lag the last write,
    // twice at once (behind a balancer, each copy answers one), and a member is taken as changed
    // where a reading shows it so, unless that reading may be an older copy's (RecordHistory.older).
    // On a target whose reads lagged, twice more, a lag apart, while none shows a change: its lag
    // may be longer than learned (a busy target, a copy further behind).
    await quiesce(this.client.lastWriteAt, undefined, this.windowMs);
    const then = new Map(before.map((r) => [String(r[this.idField]), r]));
    const readings: Map<string, Row>[] = [];
    // A reading that shows the member changed, and cannot be an older copy's.
    const showsChanged = (id: string, r: Row | undefined) => r !== undefined && changedFields(then.get(id)!, r, [], MEMBERS).length > 0 && !this.historyOf(id).older(r);
    const changedIn = (now: Map<string, Row>) => [...then.keys()].some((id) => showsChanged(id, now.get(id)));
    for (let round = 0; round < (learnedLag().longestMs > 0 ? 3 : 1) && !readings.some(changedIn); round++) {
      if (round) await quiesce(Date.now(), undefined, this.windowMs);
      const lists = await Promise.all([0, 1].map(() => this.listAll('verifying the members').then((rows) => rows.filter(isRecord), () => undefined)));
      readings.push(...lists.filter((rows) => rows !== undefined).map((rows) => new Map(rows.map((r) => [String(r[this.idField]), r]))));
    }
    if (!readings.length) return [];
    const problems: string[] = [];
    for (const [id, row] of then) {
      const seen = readings.map((now) => now.get(id));
      const current = seen.find((r) => showsChanged(id, r)) ?? seen.find((r) => r !== undefined);
      if (!current) problems.push(`member ${id} is gone`);
      else if (changedFields(row, current, [], MEMBERS).length && !(await this.shownAs(id, row))) {
        problems.push(`member ${id} changed (${changedFields(row, current, [], MEMBERS).join('; ')})`);
        // Unless the run wrote to it (clean-up then puts it back and verifies), no clean-up would look at it.
        this.lost(id, `changed while the run wrote to other members (${changedFields(row, current, [], MEMBERS).join('; ')})`);
      }
    }
    const now = new Map(readings.flatMap((r) => [...r]));
    for (const id of now.keys()) if (!then.has(id)) problems.push(`member ${id} was added`);
    return problems;
  }
}
