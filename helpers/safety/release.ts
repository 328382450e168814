import { isDeepStrictEqual } from 'node:util';
import { is2xx, type ApiClient } from '../http/client.ts';
import { markerBase, markerField } from '../records/fixtures.ts';
import { recordReader, writableFields } from '../records/record-shapes.ts';
import { carriesRun, markedRecords, type MarkedRecord } from '../records/run-marker.ts';
import { leasesByRun, type SeenLease } from './lease.ts';
import { readSharedRecords } from './shared-records.ts';
import { restoreRecord, type LeftOnTarget } from './restore-record.ts';
import type { Row } from '../contract/record.ts';
import type { Spec } from '../contract/spec.ts';
import { everyResource } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

/** One field `--release` writes: its value now, and the one it puts there. */
export interface FieldChange {
  field: string;
  now: unknown;
  then: unknown;
  /** Where `then` comes from: the originals given, or the value with the run's marker taken out. */
  from: 'originals' | 'unmarked';
}

export interface ReleasePlan {
  runId: string;
  /** The run's latest lease, if it holds one. */
  lease?: SeenLease;
  /** The customers the run left (its lease among them). */
  customers: MarkedRecord[];
  /** Records the run cannot create, and what is written to each. */
  writes: { path: string; changes: FieldChange[] }[];
  /** What could not be read. */
  problems: string[];
}

/**
 * The value a run's marker was put into (see markValue), with the marker taken out: the email
 * without its `+<run>`, the URL without its `run` query, the text without the appended marker.
 */
export function unmarkValue(value: string, runId: string): string {
  return value
    .replace(`+${runId}@`, '@')
    .replace(new RegExp(`([?&])run=${runId}(&|$)`), (_m, before: string, after: string) => (after ? before : ''))
    .replace(` ${runId}`, '')
    .replace(runId, '');
}

/**
 * What releasing an abandoned run means on this target, read without writing: its customers go,
 * and every field of the business record and the team members that holds its marker takes the
 * original value given for it (`originals`: records by path, from an earlier report), or else
 * its value as found with the marker taken out. With originals, every other writable field they
 * hold that differs is put back too (a currency or time zone carries no marker).
 */
export async function planRelease(client: ApiClient, spec: Spec, target: TargetConfig, runId: string, originals?: Map<string, Row>): Promise<ReleasePlan> {
  const plan: ReleasePlan = { runId, customers: [], writes: [], problems: [] };
  const field = markerField(target);
  const collections = everyResource(spec).flatMap(({ ops: { create } }) => (create && !create.itemPath ? [create.path] : []));
  for (const listPath of field ? collections : []) {
    try {
      const marked = await markedRecords(client, target, listPath, field!, markerBase(target));
      plan.lease ??= leasesByRun(marked).get(runId);
      plan.customers.push(...marked.filter((m) => m.runId === runId));
    } catch (e) {
      plan.problems.push((e as Error).message);
    }
  }
  const { records, problems } = await readSharedRecords(client, spec, target);
  plan.problems.push(...problems);
  for (const { path, record } of records) {
    const original = originals?.get(path);
    const changes: FieldChange[] = [];
    for (const f of writableFields(record, target.vendor.idField)) {
      const marked = carriesRun(record[f], runId);
      if (original && f in original && (marked || !isDeepStrictEqual(record[f], original[f]))) changes.push({ field: f, now: record[f], then: original[f], from: 'originals' });
      else if (marked) changes.push({ field: f, now: record[f], then: unmarkValue(record[f] as string, runId), from: 'unmarked' });
    }
    // Only a record the run left its marker in is its to touch.
    if (changes.some((c) => carriesRun(c.now, runId))) plan.writes.push({ path, changes });
  }
  return plan;
}

/** Carries out a plan: deletes the customers (the lease last), writes and verifies each record. */
export async function applyRelease(client: ApiClient, spec: Spec, target: TargetConfig, plan: ReleasePlan): Promise<{ deleted: string[]; released: string[]; leftOnTarget: LeftOnTarget[] }> {
  const done = { deleted: [] as string[], released: [] as string[], leftOnTarget: [] as LeftOnTarget[] };
  const recordOf = recordReader(spec, target);
  for (const { path, changes } of plan.writes) {
    const wanted = Object.fromEntries(changes.map((c) => [c.field, c.then]));
    const result = await restoreRecord(client, path, wanted, Object.keys(wanted), (p, json) => recordOf(p, json));
    if (result.problem) done.leftOnTarget.push({ record: path, problem: result.problem });
    else done.released.push(`${path} (${changes.map((c) => c.field).join(', ')})`);
  }
  const lease = plan.lease?.path;
  for (const { path } of [...plan.customers.filter((c) => c.path !== lease), ...plan.customers.filter((c) => c.path === lease)]) {
    const answer = await client.send({ method: 'DELETE', path }).catch((e: Error) => e);
    if (answer instanceof Error) done.leftOnTarget.push({ record: path, problem: answer.message });
    else if (is2xx(answer) || answer.status === 404) done.deleted.push(path);
    else done.leftOnTarget.push({ record: path, problem: `delete answered ${answer.status}` });
  }
  return done;
}
