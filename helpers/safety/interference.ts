import { runIdsIn } from '../records/run-marker.ts';
import { liveLeasesOfOthers, seenAgo, type LeasePlace, type SeenLease } from './lease.ts';
import type { ApiClient } from '../http/client.ts';
import type { Row } from '../contract/record.ts';

/**
 * Another writer is changing a record this run works on: another conformance run (named by its
 * marker) or a person. The lane stops: no check can be judged on a record two writers change,
 * and the run ends with exit 2, never a failed check.
 */
export class Interference extends Error {
  override name = 'Interference';
  constructor(readonly by: string, detail: string) {
    super(`interference by ${by}: ${detail}`);
  }
}

/**
 * The checks that judge a difference between two reads (a field that changed though not sent, a
 * customer or member that changed though not addressed, a value that did not read back): another
 * writer's change looks like their failure, so before one is recorded, and again when the run
 * met another writer, it is settled whether that writer may have made it.
 */
export const JUDGES_DIFFERENCES = /^(BUS-UPDATE-|BUS-AUTH-REJECTED-NO-CHANGE|CUS-UPDATE$|CUS-ISOLATION|TM-UPDATE|TM-ISOLATION|WRITE-FRAME$)/;

/** The marker of another run in any string field of the record, if one is there. */
export function foreignRunId(record: Row, ownRunId: string): string | undefined {
  for (const value of Object.values(record)) {
    const other = runIdsIn(value).find((id) => id !== ownRunId);
    if (other) return other;
  }
  return undefined;
}

/**
 * Whether another run is at work, asked without writing: its marker in the records as they read
 * now, or its live lease (helpers/safety/lease.ts). A lease that cannot be read proves nothing.
 */
export async function anotherRunAt(client: ApiClient, place: LeasePlace | undefined, runId: string, now: Row[], what: string): Promise<Interference | undefined> {
  for (const record of now) {
    const other = foreignRunId(record, runId);
    if (other) return new Interference(other, `${what} holds a value written by run ${other}`);
  }
  const live = place ? await liveLeasesOfOthers(client, place, runId).catch(() => []) : [];
  return live.length ? new Interference(live[0].runId, `run ${live[0].runId} is going on this target (${leaseText(live[0])}) while this run works on ${what}`) : undefined;
}

const leaseText = (lease: SeenLease) => `its lease was last seen ${seenAgo(lease)}`;

/**
 * Why a run does not start on a target that holds another run's values (its marker, in the
 * baseline) or its live lease: nothing has been changed yet. A run that is going is waited for;
 * one that is not (its lease lapsed, or none) left its values behind and must be undone or released.
 */
export function overlappingRunMessage(runId: string, lease?: SeenLease, live = false): string {
  if (live && lease) return `another conformance run is changing this target (run ${runId}, ${leaseText(lease)}); wait for it to finish`;
  const why = lease ? `${leaseText(lease)}, longer ago than a live run refreshes it` : 'it holds no lease on the target';
  return `run ${runId} left its values on this target and is not going (${why}): \`--recover <its report directory>\` undoes it; without its journal, \`--sweep\` shows what it left and \`--release ${runId}\` frees the target`;
}

/**
 * The checks of a run that met another writer, with every difference it judged failed (or
 * warned of) turned into a check stopped by that interference: whichever read the writer's change
 * fell between, the difference proves nothing. Other failures stand.
 */
export function settledByInterference<C extends { id: string; outcome: string; reason?: string }>(checks: C[], interference: Map<string, string>): C[] {
  if (!interference.size) return checks;
  const by = [...new Set(interference.values())].join(', ');
  return checks.map((c) =>
    (c.outcome === 'failed' || c.outcome === 'warning') && JUDGES_DIFFERENCES.test(c.id)
      ? { ...c, outcome: 'skipped', reason: `interference by ${by}: another writer changed records this run works on, so the difference this check found may be its doing (${c.reason ?? 'failed'})` }
      : c,
  );
}
