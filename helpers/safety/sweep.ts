import { ApiClient, fillId, is2xx } from '../http/client.ts';
import { markerField } from '../resources/fixtures.ts';
import { type LeftOnTarget } from './restore-record.ts';
import { rowsOf } from '../resources/record-shapes.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

/** The run marker every run writes into what it creates (see runId in helpers/command/cli.ts). */
export const RUN_MARKER = /\bscr-\d{8}-[0-9a-f]{8}\b/;

export interface SweepResult {
  deleted: string[];
  leftOnTarget: LeftOnTarget[];
}

/**
 * `--sweep`: deletes records that earlier, crashed runs left behind — those of a collection the
 * suite creates in whose marker field a run marker stands — and nothing else.
 */
export async function sweep(target: TargetConfig, spec: Spec): Promise<SweepResult> {
  const client = new ApiClient(target);
  const result: SweepResult = { deleted: [], leftOnTarget: [] };
  const field = markerField(target);
  try {
    if (!field) throw new Error('the customer fixture has no marker field (set markerField in the vendor config)');
    const collections = spec.operations
      .filter((o) => o.method === 'POST' && spec.operations.some((d) => d.method === 'DELETE' && d.collectionPath === o.path))
      .map((o) => o.path);
    for (const listPath of collections) {
      const marked = async () => {
        const answer = await client.send({ method: 'GET', path: listPath });
        const rows = is2xx(answer) ? rowsOf(answer.json) : undefined;
        if (!rows) throw new Error(`GET ${listPath} answered ${answer.status}`);
        return rows
          .filter((r) => typeof r[field] === 'string' && RUN_MARKER.test(r[field] as string) && r[target.vendor.idField] != null)
          .map((r) => fillId(`${listPath}/{id}`, r[target.vendor.idField]));
      };
      for (const path of await marked()) {
        const answer = await client.send({ method: 'DELETE', path }).catch((e: Error) => e);
        if (answer instanceof Error) result.leftOnTarget.push({ record: path, problem: answer.message });
        else if (is2xx(answer) || answer.status === 404) result.deleted.push(path);
        else result.leftOnTarget.push({ record: path, problem: `delete answered ${answer.status}` });
      }
      for (const path of await marked()) {
        if (!result.leftOnTarget.some((l) => l.record === path)) result.leftOnTarget.push({ record: path, problem: 'still listed after being deleted' });
      }
    }
  } finally {
    await client.close();
  }
  return result;
}
