import type { Answer, ApiClient, Auth } from '../http/client.ts';
import type { Operation } from '../contract/spec.ts';
import { businessRecordIn, pick, type Row } from './record-shapes.ts';
import { differingFields, hasDocumentedType, type NamedField } from './business-values.ts';
import { Blocked } from '../checks/check.ts';

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

  constructor(
    private readonly client: ApiClient,
    private readonly retrieveOp: Operation,
    private readonly updateOp: Operation,
    private readonly fields: NamedField[],
    /** The vendor's businessEnvelope, if any: see businessRecordIn. */
    private readonly envelope?: string,
  ) {}

  /** Where the record is read from in the retrieval's answer: see businessRecordIn. */
  unwrap(json: unknown) {
    return businessRecordIn(json, this.fields.map((f) => f.name), this.envelope);
  }

  /** Reads the record with the valid key; throws with the status when it is not a 200 JSON object holding it. */
  async read(): Promise<Row> {
    this.last = undefined;
    const answer = await this.client.call(this.retrieveOp);
    const read = answer.status === 200 ? this.unwrap(answer.json) : undefined;
    if (!read || 'problem' in read) {
      const why = read && 'problem' in read ? `: ${read.problem}` : '';
      throw new Error(`reading the business record: ${this.retrieveOp.method} ${this.retrieveOp.path} answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : why}`);
    }
    this.last = read.record;
    return read.record;
  }

  /** The record as it stands: the last read if nothing was sent since, else a new read. */
  current(): Promise<Row> {
    return this.last ? Promise.resolve(this.last) : this.read();
  }

  /** Sends an update; whatever comes back, the record may have changed, so the last read is dropped. */
  update(body: Row, auth?: Auth): Promise<Answer> {
    this.last = undefined;
    this.sentUpdate = true;
    return this.client.call(this.updateOp, { body, auth });
  }

  /** Takes the snapshot; never throws, so that a broken retrieval fails checks, not the suite. */
  async take(): Promise<void> {
    try {
      this.snapshot = structuredClone(await this.read());
    } catch (e) {
      this.snapshotError = (e as Error).message;
    }
  }

  /**
   * The snapshot; checks that change data call this first and are blocked without one (nothing to
   * restore to): BUS-GET-200 judges the retrieval that could not be read.
   */
  before(): Row {
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
    return differingFields(this.before(), now, this.exposed().map((f) => f.name));
  }

  /**
   * Puts the snapshot back and verifies it with a read. Writes only when the record differs:
   * first only the differing fields (nothing else is touched), then, if that was not enough,
   * the whole snapshot (undoes an update that dropped fields it was not sent), then one field
   * per request (a target that applies only part of a body). Returns the fields that could not
   * be restored (empty when the record is as before).
   */
  async restore(): Promise<string[]> {
    if (!this.snapshot || !this.sentUpdate) return [];
    const snapshot = this.snapshot;
    let differing = this.differences(await this.read());
    for (const bodies of [() => [pick(this.writeBack(snapshot), differing)], () => [this.writeBack(snapshot)], () => differing.map((f) => pick(this.writeBack(snapshot), [f]))]) {
      if (differing.length === 0) break;
      for (const body of bodies()) await this.update(body);
      differing = this.differences(await this.read());
    }
    return differing;
  }
}
