import { fillId, type ApiClient } from '../http/client.ts';
import { takeSnapshot } from './take-snapshot.ts';
import { recordReader } from '../records/record-shapes.ts';
import { ListReader } from '../records/list-reader.ts';
import { isRecord } from '../contract/record.ts';
import type { Row } from '../contract/record.ts';
import type { Spec } from '../contract/spec.ts';
import { everyResource } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

/** A record the run may change but cannot create, as read now. */
export interface SharedRecord {
  path: string;
  record: Row;
}

/** Hears every record a reading of the whole target met: `root` is the list (or the singleton) read whole, `path` the record's own. */
export type EachRecord = (root: string, path: string, row: Row) => void;

/**
 * The records a run may change but cannot create, and so must put back: singletons (a GET and a
 * PATCH without {id}: the business record) and the members of collections without a create (team
 * members), each read once. Given `each`, the collections with a create (customers) are read too,
 * as a stream handed to `each` and not kept: the frame (helpers/safety/frame.ts) reads the whole
 * target in these same reads. What could not be read is said in `problems`, and what it threw kept
 * in `failed` by list (a reader riding on these reads, the lease's look-up, judges it its own way).
 */
export async function readSharedRecords(client: ApiClient, spec: Spec, target: TargetConfig, each?: EachRecord): Promise<{ records: SharedRecord[]; problems: string[]; roots: string[]; failed: Map<string, unknown> }> {
  const recordOf = recordReader(spec, target);
  // Each resource is read at once with the others; what was read is kept in the spec's order.
  const read = await Promise.all(everyResource(spec).map(async ({ ops: { list: op, update, create } }): Promise<{ records: SharedRecord[]; problem?: string; root?: string; error?: [string, unknown] }> => {
    if (!op || !update) return { records: [] };
    const singleton = update.path === op.path;
    if (!singleton && update.collectionPath !== op.path) return { records: [] };
    const shared = singleton || !create;
    if (!shared && !each) return { records: [] };
    try {
      if (!singleton) {
        // Every page: a member on a later page is changed and put back like the others.
        const records: SharedRecord[] = [];
        await new ListReader(client, target).whole(op.path, shared ? `cannot snapshot ${op.path} before the run` : `cannot read ${op.path} whole`, (row) => {
          const id = isRecord(row) ? row[target.vendor.idField] : undefined;
          if (!isRecord(row) || id === undefined || id === null) return;
          const path = fillId(`${op.path}/{id}`, id);
          each?.(op.path, path, row);
          if (shared) records.push({ path, record: row });
        });
        return { records, root: op.path };
      }
      const record = await takeSnapshot(client, op.path, undefined, recordOf);
      each?.(op.path, op.path, record);
      return { records: [{ path: op.path, record }], root: op.path };
    } catch (e) {
      return { records: [], problem: (e as Error).message, error: [op.path, e] };
    }
  }));
  return { records: read.flatMap((r) => r.records), problems: read.flatMap((r) => (r.problem ? [r.problem] : [])), roots: read.flatMap((r) => (r.root ? [r.root] : [])), failed: new Map(read.flatMap((r) => (r.error ? [r.error] : []))) };
}
