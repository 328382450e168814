import { ApiClient, is2xx } from '../http/client.ts';
import { markerBase, markerField } from '../records/fixtures.ts';
import { type LeftOnTarget } from './restore-record.ts';
import { markedRecords, type MarkedRecord } from '../records/run-marker.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

export interface SweepResult {
  /** Records left by earlier runs: in the vendor's marker field, a marker as this suite writes it. */
  found: MarkedRecord[];
  deleted: string[];
  leftOnTarget: LeftOnTarget[];
}

/**
 * `--sweep`: finds records that earlier, crashed runs left behind — those of a collection the
 * suite creates whose marker field holds a run marker exactly as the suite writes it — and,
 * only when `yes`, deletes them and verifies by listing again. Nothing else is ever deleted.
 */
export async function sweep(target: TargetConfig, spec: Spec, options: { yes: boolean }): Promise<SweepResult> {
  const client = new ApiClient(target);
  const result: SweepResult = { found: [], deleted: [], leftOnTarget: [] };
  const field = markerField(target);
  try {
    if (!field) throw new Error('the customer fixture has no marker field (set markerField in the vendor config)');
    const collections = spec.operations
      .filter((o) => o.method === 'POST' && spec.operations.some((d) => d.method === 'DELETE' && d.collectionPath === o.path))
      .map((o) => o.path);
    const marked = (listPath: string) => markedRecords(client, target, listPath, field, markerBase(target));
    for (const listPath of collections) {
      const found = await marked(listPath);
      result.found.push(...found);
      if (!options.yes) continue;
      for (const { path } of found) {
        const answer = await client.send({ method: 'DELETE', path }).catch((e: Error) => e);
        if (answer instanceof Error) result.leftOnTarget.push({ record: path, problem: answer.message });
        else if (is2xx(answer) || answer.status === 404) result.deleted.push(path);
        else result.leftOnTarget.push({ record: path, problem: `delete answered ${answer.status}` });
      }
      for (const { path } of await marked(listPath)) {
        if (!result.leftOnTarget.some((l) => l.record === path)) result.leftOnTarget.push({ record: path, problem: 'still listed after being deleted' });
      }
    }
  } finally {
    await client.close();
  }
  return result;
}
