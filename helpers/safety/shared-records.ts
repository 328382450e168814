import { fillId, is2xx, type ApiClient } from '../http/client.ts';
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
  const records: SharedRecord[] = [];
  const problems: string[] = [];
  const recordOf = recordReader(spec, target);
  for (const { ops: { list: op, update, create } } of everyResource(spec)) {
    if (!op || !update) continue;
    const singleton = update.path === op.path;
    if (!singleton && (update.collectionPath !== op.path || create)) continue;
    try {
      if (!singleton) {
        // Every page: a member on a later page is changed and put back like the others.
        const items = await new ListReader(client, target).all(op.path, `cannot snapshot ${op.path} before the run`);
        for (const row of items.filter(isRecord)) {
          const id = row[target.vendor.idField];
          if (id !== undefined && id !== null) records.push({ path: fillId(`${op.path}/{id}`, id), record: row });
        }
        continue;
      }
      const answer = await client.send({ method: 'GET', path: op.path });
      const record = is2xx(answer) ? recordOf(op.path, answer.json) : undefined;
      if (!record) throw new Error(`cannot snapshot ${op.path} before changing it: GET answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : is2xx(answer) ? ' without a record in it' : ''}`);
      records.push({ path: op.path, record });
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  return { records, problems };
}
