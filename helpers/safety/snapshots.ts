import { type Answer, type ApiClient } from '../http/client.ts';
import type { Journal } from './journal.ts';
import { outstanding } from './journal.ts';
import { writableFields, type RecordReader } from '../records/record-shapes.ts';
import { type Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import { restoreRecord, type LeftOnTarget } from './restore-record.ts';
import { takeSnapshot } from './take-snapshot.ts';
import { quiesce, windowOf } from '../core/converge.ts';

/**
 * Snapshot and restore of records a suite changes but cannot create (the business record,
 * team members). `take` before the first change: the snapshot goes to the run journal at once,
 * so that the main process restores the record even if this suite never gets to `restoreAll`.
 */
export class Snapshots {
  private readonly taken = new Map<string, Row>();
  private readonly pending = new Map<string, Promise<Row>>();

  constructor(
    private readonly client: ApiClient,
    private readonly idField = 'id',
    private readonly journal: Journal | undefined,
    /** The record in a GET's answer (it may sit in an envelope). */
    private readonly recordOf: RecordReader = (_path, json) => recordIn(json, idField),
  ) {}

  /** Reads and keeps the record at `path` (a concrete path, e.g. /api/v1/business); once per path. `answered`: see takeSnapshot. */
  take(path: string, answered?: Answer): Promise<Row> {
    let snapshot = this.pending.get(path);
    if (!snapshot) {
      snapshot = this.read(path, answered);
      this.pending.set(path, snapshot);
      snapshot.catch(() => this.pending.delete(path));
    }
    return snapshot;
  }

  private async read(path: string, answered?: Answer): Promise<Row> {
    const record = await takeSnapshot(this.client, path, this.journal, this.recordOf, answered);
    this.taken.set(path, record);
    return record;
  }

  /**
   * Puts a snapshotted record of `resource` back now, every field but the id and those the target
   * moves by itself (see ServerFields): for a write that should have changed nothing but did, so
   * that later checks find the record as it was. Returns the fields that were put back, those that
   * still differ (and a problem, if any).
   */
  async restoreNow(path: string, resource: string): Promise<{ restored: string[]; still: string[]; problem?: string }> {
    const before = await this.take(path);
    return restoreRecord(this.client, path, before, writableFields(before, this.idField, resource), this.recordOf, { quiesce: () => quiesce(this.client.lastWriteAt, undefined, windowOf(this.client.target)), resource });
  }

  /**
   * Restores every snapshotted record and verifies it by reading back. Only fields the run wrote
   * (as journalled) are put back, so that fields the target maintains itself are left alone.
   */
  async restoreAll(): Promise<LeftOnTarget[]> {
    const written = this.journal ? outstanding(this.journal.read()).written : undefined;
    // Each record on its own, all at once; what is left is said in the order they were taken.
    const results = await Promise.all([...this.taken].map(async ([path, before]) => {
      const fields = written ? [...(written.get(path) ?? [])] : Object.keys(before).filter((f) => f !== this.idField);
      if (!fields.length) return undefined;
      const { problem } = await restoreRecord(this.client, path, before, fields, this.recordOf, { quiesce: () => quiesce(this.client.lastWriteAt, undefined, windowOf(this.client.target)) });
      if (!problem) this.journal?.append({ kind: 'restored', path });
      return problem === undefined ? undefined : { record: path, problem };
    }));
    return results.filter((r) => r !== undefined);
  }
}
