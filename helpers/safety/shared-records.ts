import { fillId, is2xx, type ApiClient } from '../http/client.ts';
import { recordReader } from '../records/record-shapes.ts';
import { ListReader } from '../records/list-reader.ts';
import { isRecord } from '../contract/record.ts';
import type { Row } from '../contract/record.ts';
import type { Spec } from '../contract/spec.ts';
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
  const has = (method: string, path: string) => spec.operations.some((o) => o.method === method && o.path === path);
  const recordOf = recordReader(spec, target);
  for (const op of spec.operations) {
    if (op.method !== 'GET' || op.itemPath) continue;
    const singleton = has('PATCH', op.path);
    if (!singleton && !(has('PATCH', `${op.path}/{id}`) && !has('POST', op.path))) continue;
    try {
      if (!singleton) {
        // Every page: a member on a later page is changed and put back like the others.
        const { items, end } = await new ListReader(client, target).all(op.path, `cannot snapshot ${op.path} before the run`);
        if (!end.complete) throw new Error(`cannot snapshot ${op.path} before the run: ${end.unknown}`);
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
