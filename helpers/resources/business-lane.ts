import { type Answer, type ApiClient, type Auth, type RequestShape } from '../http/client.ts';
import { quiesce, readCurrent } from '../core/converge.ts';
import { CONVERGE_WINDOW_MS } from '../core/limits.ts';
import type { Operation } from '../contract/spec.ts';
import { businessRecordIn, pick } from '../records/record-shapes.ts';
import { type Row } from '../contract/record.ts';
import { hasDocumentedType, type NamedField } from './business-values.ts';
import { Blocked } from '../checks/definition.ts';
import { RecordHistory } from '../records/record-history.ts';
import { restoreFields } from '../safety/restore-record.ts';
import { takeSnapshot } from '../safety/take-snapshot.ts';
import { anotherRunAt } from '../safety/interference.ts';
import { InterferenceWatch } from '../safety/interference-watch.ts';
import type { LeasePlace } from '../safety/lease.ts';
import { carriesRun } from '../records/run-marker.ts';
import { changedFieldNames } from '../records/compare.ts';
import type { Journal } from '../safety/journal.ts';
import type { Exchange } from '../http/exchanges.ts';

/**
 * The business record as one run sees it: a singleton, so every check that touches it goes
 * through here, in order. Holds the snapshot taken before the first change, the last read
 * (so that consecutive steps share a read), and restores and verifies the snapshot at the end.
 */
export class BusinessLane {
  private snapshot?: Row;
  private snapshotError = 'the business record has not been read yet';
  private last?: Row;
  private sentUpdate = false;
  /** Another writer at work on the record stops the lane (see InterferenceWatch). */
  private readonly watch: InterferenceWatch;
  /** What the lane knows of the record: a read older than that is read again (see RecordHistory). */
  private readonly history: RecordHistory;
  /** How long a read waits for the run's own update to show (--converge-window). */
  convergeWindowMs = CONVERGE_WINDOW_MS;
  /** The exchange of the last read: a check that judges a read another check made shows it in its report. */
  lastReadExchange?: Exchange;
  private rawExchange?: Exchange;

  constructor(
    private readonly client: ApiClient,
    private readonly retrieveOp: Operation,
    private readonly updateOp: Operation,
    private readonly fields: NamedField[],
    private readonly runId: string,
    /** The vendor's businessEnvelope, if any: see businessRecordIn. */
    private readonly envelope: string | undefined,
    private readonly journal: Journal | undefined,
  ) {
    this.watch = new InterferenceWatch(runId, journal, 'business');
    this.history = new RecordHistory(() => this.fields.map((f) => f.name));
  }

  /** Where the record is read from in the retrieval's answer: see businessRecordIn. */
  unwrap(json: unknown) {
    return businessRecordIn(json, this.fields.map((f) => f.name), this.envelope);
  }

  /**
   * Reads the record with the valid key; throws with the status when it is not a 200 JSON object
   * holding it, and Interference when another writer is changing it (see InterferenceWatch).
   */
  async read(): Promise<Row> {
    this.stopIfInterfered();
    this.last = undefined;
    const record = await this.readSettled();
    this.watched(record);
    this.last = record;
    this.lastReadExchange = this.rawExchange;
    return record;
  }

  /** A read no older than what the lane knows (see RecordHistory), within the window: the last reading either way, which the lane knows from then on. */
  private async readSettled(): Promise<Row> {
    const record = await readCurrent(() => this.readRaw(), (now) => this.history.current(now), this.history.indistinct, this.convergeWindowMs, this.client.lastWriteAt, undefined, (now) => this.history.novel(now));
    this.history.took(record);
    return record;
  }

  private async readRaw(): Promise<Row> {
    const answer = await this.client.call(this.retrieveOp);
    this.rawExchange = answer.exchange;
    const read = answer.status === 200 ? this.unwrap(answer.json) : undefined;
    if (!read || 'problem' in read) {
      const why = read && 'problem' in read ? `: ${read.problem}` : '';
      throw new Error(`reading the business record: ${this.retrieveOp.method} ${this.retrieveOp.path} answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : why}`);
    }
    return read.record;
  }

  private watched(now: Row): void {
    this.watch.read('read', [{ path: this.retrieveOp.path, what: 'the business record', row: now }]);
  }

  /**
   * Before a difference is recorded as the target's failure: another run at work (its marker in
   * the record as it reads now, or its live lease) stops the lane instead. Writes nothing.
   */
  async settle(place: LeasePlace | undefined): Promise<void> {
    if (this.watch.interfered()) return;
    const found = await anotherRunAt(this.client, place, this.runId, [await this.readRaw()], 'the business record');
    if (found) this.watch.stop(found, [this.retrieveOp.path]);
  }

  /** Throws the Interference the lane met, if any: every step after it stops too. */
  stopIfInterfered(): void {
    this.watch.stopIfInterfered();
  }

  /** The record as it stands: the last read if nothing was sent since, else a new read. */
  current(): Promise<Row> {
    return this.last ? Promise.resolve(this.last) : this.read();
  }

  /** Sends an update; whatever comes back, the record may have changed, so the last read is dropped. */
  async update(body: Row, auth?: Auth, shape?: RequestShape): Promise<Answer> {
    this.stopIfInterfered();
    this.last = undefined;
    this.sentUpdate = true;
    this.watch.sent(this.retrieveOp.path, body);
    return this.history.write(body, () => this.client.call(this.updateOp, { body, auth, ...shape }));
  }

  /**
   * Takes the snapshot (and journals it) from `retrieval`, the retrieval checks' own GET; never
   * throws, so that a broken retrieval fails checks, not the suite.
   */
  async take(retrieval?: Promise<Answer>): Promise<void> {
    this.last = undefined;
    try {
      const record = await takeSnapshot(this.client, this.retrieveOp.path, this.journal, (_path, json) => {
        const read = this.unwrap(json);
        return 'record' in read ? read.record : undefined;
      }, retrieval);
      this.watched(record);
      this.snapshot = structuredClone(record);
      this.last = record;
      // The read a check judging the record as first found shows (the retrieval's own GET).
      this.lastReadExchange = (await retrieval?.catch(() => undefined))?.exchange;
      this.history.took(record);
    } catch (e) {
      this.snapshotError = (e as Error).message;
    }
  }

  /**
   * The snapshot; checks that change data call this first and are blocked without one (nothing to
   * restore to): BUS-GET-200 judges the retrieval that could not be read.
   */
  before(): Row {
    this.stopIfInterfered();
    if (!this.snapshot) throw new Blocked('BUS-GET-200', `no change is made without a snapshot to restore: ${this.snapshotError}`);
    return this.snapshot;
  }

  /** Fields the retrieval exposed when the snapshot was taken: only these can be changed and restored. */
  exposed(): NamedField[] {
    const snap = this.before();
    return this.fields.filter((f) => f.name in snap);
  }

  /**
   * Why a field may not be changed, or undefined when it may: it must be exposed (its value is
   * needed to restore it) and carry its documented type (a value of another type cannot be
   * written back as a valid update).
   */
  unchangeable(nf: NamedField): string | undefined {
    const snap = this.before();
    if (!(nf.name in snap)) {
      const hint = nf.field.vendorConfigKey ? ` (its name is the vendor setting ${nf.field.vendorConfigKey})` : '';
      return `the retrieval does not return ${nf.name}${hint}: its value could not be restored, so it is not changed`;
    }
    if (!hasDocumentedType(nf.field, snap[nf.name])) {
      return `the retrieval returns ${nf.name} as ${JSON.stringify(snap[nf.name])}, not of its documented type ${nf.field.types.join(' or ')}; it could not be written back, so it is not changed`;
    }
    return undefined;
  }

  /**
   * A read record as an update: every exposed field that carries its documented type, and null
   * values only when `withNulls` (a target that mishandles null could not be undone).
   */
  writeBack(from: Row, withNulls = true): Row {
    const body: Row = {};
    for (const nf of this.fields) {
      const value = from[nf.name];
      if (nf.name in from && hasDocumentedType(nf.field, value) && (withNulls || value !== null)) body[nf.name] = value;
    }
    return body;
  }

  /** Documented fields whose value now differs from the snapshot. */
  differences(now: Row): string[] {
    return changedFieldNames(this.before(), now, this.exposed().map((f) => f.name));
  }

  /**
   * Puts the snapshot back and verifies it with a read (helpers/safety/restore-record.ts), when
   * an update was sent. Returns the fields that could not be restored (empty when the record is
   * as before).
   */
  async restore(): Promise<string[]> {
    if (!this.snapshot || !this.sentUpdate) return [];
    const snapshot = this.snapshot;
    const names = this.fields.filter((f) => f.name in snapshot).map((f) => f.name);
    // After interference only fields holding this run's own marker are certainly its to put
    // back; the after-run clean-up reports the rest (helpers/safety/after-run-cleanup.ts).
    const ours = (now: Row, f: string) => !this.watch.interfered() || carriesRun(now[f], this.runId);
    // The last read, when nothing was sent since, is the record as it stands: the restore starts
    // from it, else from a read no older than what the lane knows (an older one may hold the snapshot).
    let first = true;
    const standing = this.last;
    const read = () => {
      const now = first ? (standing ? Promise.resolve(standing) : this.readSettled()) : this.readRaw();
      first = false;
      return now;
    };
    const access = { read, write: (body: Row) => this.client.call(this.updateOp, { body }), windowMs: this.convergeWindowMs };
    const writable = this.writeBack(snapshot);
    const { still } = await restoreFields(access, snapshot, names, {
      quiesce: () => quiesce(this.client.lastWriteAt, undefined, this.convergeWindowMs),
      body: (fields) => pick(writable, fields),
      differing: (now) => changedFieldNames(snapshot, now, names).filter((f) => ours(now, f)),
    });
    return still;
  }
}

