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

/**
 * The records a run may change but cannot create, and so must put back: singletons (a GET and a
 * PATCH without {id}: the business record) and the members of collections without a create (team
 * members), each read once. What could not be read is said in `problems`.
 */
export async function readSharedRecords(client: ApiClient, spec: Spec, target: TargetConfig): Promise<{ records: SharedRecord[]; problems: string[] }> {
  const recordOf = recordReader(spec, target);
  // Each resource is read at once with the others; what was read is kept in the spec's order.
  const read = await Promise.all(everyResource(spec).map(async ({ ops: { list: op, update, create } }): Promise<{ records: SharedRecord[]; problem?: string }> => {
    if (!op || !update) return { records: [] };
    const singleton = update.path === op.path;
    if (!singleton && (update.collectionPath !== op.path || create)) return { records: [] };
    try {
      if (!singleton) {
        // Every page: a member on a later page is changed and put back like the others.
        const items = await new ListReader(client, target).all(op.path, `cannot snapshot ${op.path} before the run`);
        return { records: items.filter(isRecord).flatMap((row) => {
          const id = row[target.vendor.idField];
          return id !== undefined && id !== null ? [{ path: fillId(`${op.path}/{id}`, id), record: row }] : [];
        }) };
      }
      return { records: [{ path: op.path, record: await takeSnapshot(client, op.path, undefined, recordOf) }] };
    } catch (e) {
      return { records: [], problem: (e as Error).message };
    }
  }));
  return { records: read.flatMap((r) => r.records), problems: read.flatMap((r) => (r.problem ? [r.problem] : [])) };
}
