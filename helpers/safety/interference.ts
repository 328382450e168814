import { runIdsIn } from '../records/run-marker.ts';
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

/** The marker of another run in any string field of the record, if one is there. */
export function foreignRunId(record: Row, ownRunId: string): string | undefined {
  for (const value of Object.values(record)) {
    const other = runIdsIn(value).find((id) => id !== ownRunId);
    if (other) return other;
  }
  return undefined;
}

/** The message for a baseline that holds another run's values: nothing has been changed yet. */
export function overlappingRunMessage(runId: string): string {
  return `another conformance run is changing this target (run ${runId}), or one crashed before restoring; wait, or use --recover / --sweep`;
}
