import { ApiClient, is2xx } from '../http/client.ts';
import { markerBase, markerField } from '../records/fixtures.ts';
import { type LeftOnTarget } from './restore-record.ts';
import { carriesRun, markedRecords, runIdsIn, type MarkedRecord } from '../records/run-marker.ts';
import { isLive, leasesByRun, type SeenLease } from './lease.ts';
import { readSharedRecords } from './shared-records.ts';
import type { Spec } from '../contract/spec.ts';
import { everyResource } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

/** A record the run cannot create that holds values a run wrote (its marker): only --release (or --recover) puts it back. */
export interface HeldRecord {
  path: string;
  runId: string;
  fields: string[];
  /** The run's lease is live: the values may be its work in progress. */
  going: boolean;
}

/** A run that is still going (its lease is live): none of its records is touched. */
export interface GoingRun {
  runId: string;
  lease: SeenLease;
  customers: number;
}

export interface SweepResult {
  /** Records left by runs that are not going: in the vendor's marker field, a marker as this suite writes it. */
  found: MarkedRecord[];
  going: GoingRun[];
  /** The business record and team members holding values of runs (going or not). */
  held: HeldRecord[];
  /** The latest lease of each run found, live or not. */
  leases: Map<string, SeenLease>;
  deleted: string[];
  leftOnTarget: LeftOnTarget[];
}

/**
 * `--sweep`: finds records that earlier, crashed runs left behind — those of a collection the
 * suite creates whose marker field holds a run marker exactly as the suite writes it — and,
 * only when `yes`, deletes them and verifies by listing again. Nothing else is ever deleted, and
 * nothing of a run that is still going (its lease is live, helpers/safety/lease.ts). It also
 * names the fields of the business record and the team members that hold a run's values: those
 * are not deleted but released (--release), and stay on the target until then.
 */
export async function sweep(target: TargetConfig, spec: Spec, options: { yes: boolean }): Promise<SweepResult> {
  const client = new ApiClient(target);
  const result: SweepResult = { found: [], going: [], held: [], leases: new Map(), deleted: [], leftOnTarget: [] };
  const field = markerField(target);
  try {
    if (!field) throw new Error('the customer fixture has no marker field (set markerField in the vendor config)');
    const collections = everyResource(spec).flatMap(({ ops: { create, remove } }) => (create && remove?.collectionPath === create.path ? [create.path] : []));
    const marked = (listPath: string) => markedRecords(client, target, listPath, field, markerBase(target));
    const now = Date.now();
    const going = (runId: string) => {
      const lease = result.leases.get(runId);
      return lease !== undefined && isLive(lease, now);
    };
    const swept = new Map<string, MarkedRecord[]>();
    for (const listPath of collections) {
      const all = await marked(listPath);
      for (const [runId, lease] of leasesByRun(all)) result.leases.set(runId, lease);
      swept.set(listPath, all.filter((m) => !going(m.runId)));
      for (const m of all) {
        if (!going(m.runId)) result.found.push(m);
        else {
          const run = result.going.find((g) => g.runId === m.runId);
          if (run) run.customers += 1;
          else result.going.push({ runId: m.runId, lease: result.leases.get(m.runId)!, customers: 1 });
        }
      }
    }
    for (const { path, record } of (await readSharedRecords(client, spec, target)).records) {
      for (const runId of new Set(Object.values(record).flatMap(runIdsIn))) {
        result.held.push({ path, runId, fields: Object.keys(record).filter((f) => carriesRun(record[f], runId)), going: going(runId) });
      }
    }
    if (!options.yes) return result;
    for (const { path } of result.found) {
      const answer = await client.send({ method: 'DELETE', path }).catch((e: Error) => e);
      if (answer instanceof Error) result.leftOnTarget.push({ record: path, problem: answer.message });
      else if (is2xx(answer) || answer.status === 404) result.deleted.push(path);
      else result.leftOnTarget.push({ record: path, problem: `delete answered ${answer.status}` });
    }
    for (const [listPath, found] of swept) {
      if (!found.length) continue;
      for (const { path } of await marked(listPath)) {
        if (found.some((f) => f.path === path) && !result.leftOnTarget.some((l) => l.record === path)) result.leftOnTarget.push({ record: path, problem: 'still listed after being deleted' });
      }
    }
    for (const h of result.held.filter((held) => !held.going)) {
      result.leftOnTarget.push({ record: h.path, problem: `${h.fields.join(', ')} hold${h.fields.length === 1 ? 's' : ''} values of run ${h.runId}, which is not going: \`--release ${h.runId}\` puts them back` });
    }
  } finally {
    await client.close();
  }
  return result;
}
