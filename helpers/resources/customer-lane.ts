import { Blocked } from '../checks/definition.ts';
import { foundRecord, said } from '../checks/assertions.ts';
import { fingerprint, mismatches, sameId, samePrint } from '../records/compare.ts';
import { converge, windowOf } from '../core/converge.ts';
import { ModeLock } from '../core/mode-lock.ts';
import { customerFixture, markerBase, markerField } from '../records/fixtures.ts';
import { runIdOf } from '../records/run-marker.ts';
import { serverFields } from '../records/server-fields.ts';
import { anotherRunAt } from '../safety/interference.ts';
import { currentJournal } from '../checks/current-journal.ts';
import type { LeasePlace } from '../safety/lease.ts';
import { is2xx, NoAnswerError, type Answer, type ApiClient } from '../http/client.ts';
import type { CreatedRecords } from '../safety/created-records.ts';
import { pick } from '../records/record-shapes.ts';
import { ListReader, type ListEnd } from '../records/list-reader.ts';
import { ListPasses, type ListPhase } from '../records/list-passes.ts';
import { DigestMap } from '../records/digest-map.ts';
import { PrintFile } from '../records/print-buckets.ts';
import { sharedStep } from '../checks/shared-step.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import type { TwinPatch } from '../records/derived.ts';
import type { ResourceOps } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

type CustomerOps = Required<ResourceOps>;

/** The resource whose fields the target may move by itself (see ServerFields). */
const CUSTOMERS = 'customers';

/** What finish() says of a customer found after its delete answered 2xx. */
export const STILL_FOUND = 'still found after its delete answered 2xx';

/** A customer a check created and may change: what it sent, its id, and what the create answered. */
export interface Made {
  id: unknown;
  sent: Row;
  record: Row;
}

/** The customers one check owns: created by it, cleaned up when it ends. */
export interface Scope {
  create(label: string): Promise<{ answer: Answer; sent: Row; id: unknown; record?: Row }>;
  make(label: string): Promise<Made>;
  cleanUp(): Promise<string[]>;
}

/**
 * Works with customers the way the checks need to: every customer it creates is noted in the
 * createdRecords the moment the target answers, and belongs to one scope (a check, or the suite) that
 * deletes it. Customers this run did not create are only ever read.
 */
export class CustomerLane {
  /** Ids this run created (as text): every other customer is pre-existing and never changed. */
  private readonly ours = new Set<string>();
  /** Which scope holds each of the run's customers: one the run deleted leaves it, so that a scope never deletes another customer given its id later. */
  private readonly ownerOf = new Map<string, unknown[]>();
  /** Ids of this run's customers a delete of the run was answered 2xx for, or may have been applied to. */
  private readonly deleted = new Set<string>();
  /** Those a delete answered 2xx for. */
  private readonly removed = new Set<string>();
  readonly idField: string;
  private readonly lists: ListReader;
  /** The checks' list reads, shared by those asking at once (see ListPasses). */
  readonly passes: ListPasses;
  /** Creates and deletes never move rows under a list read page by page, nor under a probe of a deleted id. */
  private readonly ground = new ModeLock();

  constructor(
    private readonly client: ApiClient,
    readonly ops: CustomerOps,
    private readonly target: TargetConfig,
    private readonly createdRecords: CreatedRecords,
  ) {
    this.idField = target.vendor.idField;
    this.lists = new ListReader(client, target);
    this.passes = new ListPasses((doing, visit) => this.ground.hold('page', () => this.lists.each(this.ops.list.path, doing, visit)));
  }

  isOurs(id: unknown): boolean {
    return this.ours.has(String(id));
  }

  scope(): Scope {
    const owned: unknown[] = [];
    return {
      create: (label) => this.create(label, owned),
      make: (label) => this.make(label, owned),
      cleanUp: () => this.ground.hold('delete', () => this.createdRecords.cleanUp(this.client, owned)),
    };
  }

  /** POSTs the fixture, marked with the run id and `label`; checks with the same label create identical customers. */
  private async create(label: string, owned: unknown[]) {
    const sent = customerFixture(this.target, label);
    const answer = await this.ground.hold('create', () => this.client.call(this.ops.create, { body: sent }));
    const record = recordIn(answer.json, this.idField, { sent });
    const id = record?.[this.idField];
    // One answered without an id was looked for by its marker already (the journalled client): the clean-up deletes what that found.
    if (is2xx(answer) && id !== undefined && id !== null) this.keep(id, owned);
    return { answer, sent, id, record };
  }

  private async make(label: string, owned: unknown[]): Promise<Made> {
    const { answer, sent, id, record } = await this.create(label, owned);
    // The customer to work on is the check's precondition: CUS-CREATE judges the create itself.
    const doing = `creating a customer to work on: POST ${this.ops.create.path}`;
    if (!is2xx(answer)) throw new Blocked('CUS-CREATE', `${doing} ${said(answer)}`);
    if (!record || id === undefined || id === null) {
      throw new Blocked('CUS-CREATE', `${doing} ${said(answer)}, which carries no "${this.idField}" (set idField in the vendor config if the id has another name)`);
    }
    return { id, sent, record };
  }

  /** `journalled`: the client journalled its create (answered with the id); else it is journalled here. */
  private keep(id: unknown, owned: unknown[], journalled = true): void {
    if (journalled) this.createdRecords.record(this.ops.remove, id);
    else this.createdRecords.adopt(this.ops.remove, id);
    // A create answered with a deleted customer's id: the target reuses ids (not shown), and that
    // id names a new customer of the run now, not the deleted one come back.
    if (journalled) this.removed.delete(String(id));
    this.ours.add(String(id));
    owned.push(id);
    this.ownerOf.set(String(id), owned);
  }

  /**
   * Reads the whole list page by page (see ListReader), handing each customer to `visit` (true
   * stops the read). A broken list fails the check; no creates or deletes of this run go out
   * meanwhile, so its own writes never move rows between the pages. The read begins after the
   * call, shared with the other checks asking at once (ListPasses); one `held` under the lane's
   * lock (see alone) reads alone.
   */
  scan(why: string, visit: (row: Row) => boolean | void, held = false, whole = false, at?: ListPhase): Promise<ListEnd> {
    const doing = `${why}: GET ${this.ops.list.path}`;
    const each = (item: unknown) => (isRecord(item) ? visit(item) : false);
    return held ? this.lists[whole ? 'whole' : 'each'](this.ops.list.path, doing, each) : this.passes.pass(doing, each, whole, at);
  }

  /** Like scan, for a judgement that needs every customer: a list whose end is unknown blocks the check (IncompleteList: the suite's limit, not the target's failure). `at`: the phase of a member of the phased reads (ListPasses.member). */
  async scanAll(why: string, visit: (row: Row) => boolean | void, held = false, at?: ListPhase): Promise<void> {
    await this.scan(why, visit, held, true, at);
  }

  /**
   * What several members ask of a phase's read in the same words (the ids listed, the
   * pre-existing customers' prints), kept once and handed to each: a long list's ids once, not once
   * a check. Read-only for those it is handed to. A phase whose read went reads anew.
   */
  private readonly sameAt = new Map<string, () => Promise<unknown>>();
  private once<T>(kind: string, at: ListPhase | undefined, read: () => Promise<T>): Promise<T> {
    if (at === undefined || !this.passes.pending(at)) return read();
    const key = `${kind} ${at}`;
    const asked = this.sameAt.get(key);
    // The first to ask reads at the phase; the others only say they are there.
    if (asked && this.passes.reach(at)) return asked() as Promise<T>;
    const first = sharedStep(read);
    this.sameAt.set(key, first);
    // Those who asked hold it; once the phase's read went, whoever asks reads anew: the lane lets go.
    return first().finally(() => this.sameAt.delete(key));
  }

  /**
   * Whether a record read under a customer's id is the customer the check made: it carries the id
   * and what the check wrote (its marker among the fields sent, as the create answered them).
   */
  isMade(json: unknown, made: Made): boolean {
    const row = recordIn(json, this.idField, { id: made.id });
    return row !== undefined && sameId(row[this.idField], made.id) && mismatches(this.wrote(made), row).length === 0;
  }

  /**
   * Whether a record read under a customer's id is evidently another customer: it carries the id
   * but not what the check wrote. Ids may be reused after a delete (their format is not shown):
   * such a record says nothing about the customer the check made, and is never changed.
   */
  isAnother(json: unknown, made: Made): boolean {
    const row = recordIn(json, this.idField, { id: made.id });
    return row !== undefined && sameId(row[this.idField], made.id) && !this.isMade(row, made);
  }

  /** What identifies the customer a check made: its marker (a later update may change the other fields sent), else every field sent. */
  private wrote(made: Made): Row {
    const field = markerField(this.target);
    return pick(made.record, field && field in made.record ? [field] : Object.keys(made.sent).filter((k) => k !== this.idField));
  }

  /**
   * A find of a customer the check made, read again until it answers the customer (a new one may
   * show late). Returns the last answer: the check judges it.
   */
  async findMade(made: Made): Promise<Answer> {
    return (await converge(() => this.find(made.id), (a) => is2xx(a) && this.isMade(a.json, made), windowOf(this.target))).value;
  }

  /** Reads the customer until `shows` holds (the check's own write shows), or the window ends: the last reading, for the check to judge. */
  async readUntil(id: unknown, why: string, shows: (row: Row) => boolean): Promise<Row> {
    return (await converge(() => this.read(id, why), shows, windowOf(this.target))).value;
  }

  /**
   * After the check deleted `made`: finds it until it is gone — a find answers no 2xx, or answers
   * another customer under a reused id: the fence after which "not found" is judged. Returns the
   * last find.
   */
  async findUntilGone(made: Made): Promise<Answer> {
    const gone = (a: Answer) => !is2xx(a) || this.isAnother(a.json, made);
    return (await converge(() => this.find(made.id), gone, windowOf(this.target))).value;
  }

  /** After the check deleted `made`: whether the list still names it, read again until it does not (see findUntilGone). */
  async stillListed(made: Made, why: string, held = false): Promise<boolean> {
    const listed = async () => {
      let named = false;
      await this.scanAll(why, (row) => (named = sameId(row[this.idField], made.id) && !this.isAnother(row, made)), held);
      return named;
    };
    return (await converge(listed, (named) => !named, windowOf(this.target))).value;
  }

  /** The customer the check made, as a find answers it once it shows (see findMade); anything else fails the check. */
  async readMade(made: Made, why: string): Promise<Row> {
    return foundRecord(await this.findMade(made), `${why}: GET ${this.ops.find.path} with id ${String(made.id)}`, this.idField, made.id, 'customer');
  }

  /**
   * Runs `work` with no create or delete of this run going out meanwhile: a probe of a deleted id
   * that the target may give the next new customer (json-server gives the highest id plus one).
   */
  alone<T>(work: () => Promise<T>): Promise<T> {
    return this.ground.hold('alone', work);
  }

  /**
   * A create sent outside the lane (an observation without a key), as the lane's own go: never
   * during a list read or a delete. A customer it made is the run's (the client journalled it when
   * the target answered with its id): clean-up deletes it.
   */
  creatingOutside(send: () => Promise<Answer>): Promise<Answer> {
    return this.ground.hold('create', async () => {
      const answer = await send();
      const id = recordIn(answer.json, this.idField)?.[this.idField];
      if (is2xx(answer) && id !== undefined && id !== null) this.keep(id, []);
      return answer;
    });
  }

  /**
   * A delete of a customer of the run sent outside the lane (an observation without a key), as the
   * lane's own go, followed in the same turn by the lane's own delete of it: whether or not the
   * first took it, it is gone before any create of the run goes out, and no later clean-up deletes
   * its id once a target that reuses ids has given it to another customer.
   */
  deletingOutside(id: unknown, send: () => Promise<Answer>): Promise<Answer> {
    return this.ground.hold('delete', async () => {
      try {
        const answer = await send();
        if (is2xx(answer)) this.removed.add(String(id));
        return answer;
      } finally {
        // Also when the first got no answer (applied or not): the id must not outlive this turn.
        this.deleted.add(String(id));
        const again = await this.removeHeld(id).catch(() => undefined);
        if (again?.status === 404) this.createdRecords.forget(this.ops.remove, id);
      }
    });
  }

  /** Deletes without taking the lane's lock: for work already holding it (see alone). */
  async removeHeld(id: unknown): Promise<Answer> {
    const answer = await this.client.call(this.ops.remove, { id });
    if (is2xx(answer)) {
      this.createdRecords.forget(this.ops.remove, id);
      this.deleted.add(String(id));
      this.removed.add(String(id));
      const owned = this.ownerOf.get(String(id));
      this.ownerOf.delete(String(id));
      owned?.splice(owned.findIndex((o) => String(o) === String(id)) >>> 0, 1);
    }
    return answer;
  }

  find(id: unknown): Promise<Answer> {
    return this.client.call(this.ops.find, { id });
  }

  /**
   * The customer with that id, as a find answers it; anything else fails the check. One of the
   * run's that no delete of the run reached is found again until it answers, within the window:
   * a find may be served by a copy older than its create (reads may go back in time).
   */
  async read(id: unknown, why: string): Promise<Row> {
    const live = this.isOurs(id) && !this.deleted.has(String(id));
    const answer = live ? (await converge(() => this.find(id), is2xx, windowOf(this.target))).value : await this.find(id);
    return foundRecord(answer, `${why}: GET ${this.ops.find.path} with id ${String(id)}`, this.idField, id, 'customer');
  }

  /** The ids of every customer listed, every page (see scan), not the rows: a list may hold tens of thousands. A broken list fails the check, one whose end is unknown blocks it. */
  listedIds(why: string, at?: ListPhase): Promise<DigestMap> {
    // The read's own ids (ListEnd.ids): a whole read that ended has them.
    return this.once('ids', at, async () => (await this.scan(why, () => {}, false, true, at)).ids!);
  }

  /** The customers listed whose ids are not among `known` (see listedIds). */
  async listedBesides(known: { has(id: string): boolean }, why: string, at?: ListPhase): Promise<Row[]> {
    const rows: Row[] = [];
    await this.scanAll(why, (row) => void (known.has(String(row[this.idField])) || rows.push(row)), false, at);
    return rows;
  }

  /** The first `count` customers listed: values a check may take from other customers, without reading a long list whole. */
  async firstListedRows(count: number, why: string, at?: ListPhase): Promise<Row[]> {
    const rows: Row[] = [];
    await this.scan(why, (row) => rows.push(row) >= count, false, false, at);
    return rows;
  }

  /** The customer the list names under `id`, searching page by page until found; undefined when the whole list does not name it. */
  async listedRow(id: unknown, why: string, at?: ListPhase): Promise<Row | undefined> {
    let found: Row | undefined;
    await this.scanAll(why, (row) => Boolean(sameId(row[this.idField], id) && (found = row)), false, at);
    return found;
  }

  /** The first customer listed, if any: for a probe that needs one to ask for. */
  async firstListed(why: string): Promise<Row | undefined> {
    let first: Row | undefined;
    await this.scan(why, (row) => Boolean((first = row)));
    return first;
  }

  /**
   * The customers of the whole list this run did not create: their ids, each with a fingerprint
   * of its fields (not the row: a list may hold a million), in a file (PrintFile: two such
   * readings are compared bucket by bucket).
   */
  preExisting(why: string, also?: (row: Row) => void, at?: ListPhase): Promise<PrintFile> {
    const read = async () => {
      const prints = new PrintFile(this.target);
      // Not those a run of this suite marked (this run's lease, another run's customers): the suite's, not the implementation's.
      const field = markerField(this.target);
      const suites = (r: Row) => field !== undefined && runIdOf(r[field], markerBase(this.target)) !== undefined;
      try {
        await this.scanAll(why, (row) => {
          also?.(row);
          if (!this.isOurs(row[this.idField]) && !suites(row)) prints.add(String(row[this.idField]), fingerprint(row));
        }, false, at);
      } catch (e) {
        prints.remove();
        throw e;
      }
      return prints.close();
    };
    return also ? read() : this.once('prints', at, read);
  }

  /**
   * preExisting, read again until `shows` holds for what the list names under `id` (undefined:
   * not listed): the fence after a check's own write to `id`. Also gives that row.
   */
  async preExistingUntil(why: string, id: unknown, shows: (row?: Row) => boolean, at?: ListPhase): Promise<{ prints: PrintFile; row?: Row }> {
    const read = async () => {
      let row: Row | undefined;
      const named = (r: Row) => void (sameId(r[this.idField], id) && (row = r));
      // At a phase still to go, the prints are those every member shares, the row its own: one read gives both.
      if (at !== undefined && this.passes.pending(at)) {
        const [prints] = await Promise.all([this.preExisting(why, undefined, at), this.scanAll(why, named, false, at)]);
        return { prints, row };
      }
      return { prints: await this.preExisting(why, named), row };
    };
    return (await converge(read, ({ row }) => shows(row), windowOf(this.target))).value;
  }

  /** Whether a customer listed with `print` before is still as it was: undefined if so, else what it is now (found again, since a list may leave it out meanwhile). */
  async changedSince(id: string, print: string, listed?: string): Promise<string | undefined> {
    const moving = serverFields().of(CUSTOMERS);
    if (samePrint(listed, print, moving)) return undefined;
    const now = recordIn((await this.find(id)).json, this.idField, { id });
    if (!now || !sameId(now[this.idField], id)) return 'gone';
    return samePrint(fingerprint(now), print, moving) ? undefined : `now ${JSON.stringify(now)}`;
  }

  /**
   * Before a difference is recorded as the target's failure: another run going on the target (its
   * live lease) stops the check instead, and the run ends with interference. Writes nothing.
   */
  async settle(place: LeasePlace | undefined): Promise<void> {
    const found = await anotherRunAt(this.client, place, this.target.runId, [], 'the customers');
    if (!found) return;
    currentJournal(this.target)?.append({ kind: 'interference', path: this.ops.list.path, by: found.by });
    throw found;
  }

  update(id: unknown, body: Row): Promise<Answer> {
    return this.client.call(this.ops.update, { id, body });
  }

  remove(id: unknown): Promise<Answer> {
    return this.ground.hold('delete', () => this.removeHeld(id));
  }

  /**
   * The same patch applied to a twin (derivedFields): a customer of `scope` made with `label`, read,
   * patched and read until it shows the patch; undefined when that did not work (the check judges without).
   */
  twinPatch(scope: Scope, label: string): TwinPatch {
    return async (body) => {
      try {
        const twin = await scope.make(label);
        const before = await this.readMade(twin, 'reading a twin before the same patch');
        if (!is2xx(await this.update(twin.id, body))) return undefined;
        return { before, after: await this.readUntil(twin.id, 'reading the twin after the same patch', (row) => mismatches(body, row).length === 0) };
      } catch (e) {
        if (e instanceof NoAnswerError) throw e;
        return undefined;
      }
    };
  }

  /** The customers a delete of this run answered 2xx for. */
  deletedIds(): string[] {
    return [...this.removed];
  }

  /**
   * Whether a customer of the run is still found (a find answers 2xx: section 4) after the window
   * a lagging read may take to show its delete; one under a reused id that does not carry this
   * run's marker is another's. The clean-up's verification and CUS-DELETE:stays-deleted.
   */
  async foundAgain(id: unknown): Promise<boolean> {
    const field = markerField(this.target);
    const ours = (a: Answer) => {
      const row = recordIn(a.json, this.idField, { id });
      return is2xx(a) && !(field && row && runIdOf(row[field], markerBase(this.target)) !== this.target.runId);
    };
    return ours((await converge(() => this.find(id), (a) => !ours(a), windowOf(this.target))).value);
  }

  /** A customer that exists though no create of this run answered with it (revived after its delete, or a twin found by the run marker): clean-up deletes it. */
  adopt(id: unknown): void {
    if (id !== undefined && id !== null) this.keep(id, [], false);
  }

  /**
   * Deletes everything the run created and still holds, then verifies with a final list (or, if
   * the list cannot be read, a find of each) that none of it is left. Returns what is left.
   * `alongside`: a whole read of the list that goes now anyway (the frame's at the lane's end),
   * handing each customer listed: whether it read the list whole, undefined when it did not read
   * (then the lane reads the list itself).
   */
  async finish(alongside?: (visit: (row: Row) => void) => Promise<boolean | undefined>): Promise<string[]> {
    const failed = await this.createdRecords.cleanUp(this.client);
    let listed: unknown[] = [];
    const visit = (row: Row) => void (this.isOurs(row[this.idField]) && listed.push(row[this.idField]));
    let complete = await alongside?.(visit).catch(() => undefined);
    if (complete === undefined) {
      listed = [];
      complete = (await this.scan('verifying the clean-up', visit).catch(() => undefined))?.complete;
    }
    const suspects = complete ? listed : [...this.ours];
    const left: string[] = [];
    for (const id of suspects) {
      // A list may show what is gone (that is a failed check, not a leftover): a find settles it.
      if (!(await this.foundAgain(id))) continue;
      const why = failed.find((f) => f.startsWith(`${this.ops.remove.path} ${String(id)}:`))?.replace(/^\S+ \S+: /, '');
      left.push(`customer ${String(id)} (${why ?? STILL_FOUND})`);
    }
    return left;
  }
}
