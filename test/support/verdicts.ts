import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectedCheck } from '../../helpers/results/check-outcomes.ts';
import type { CliRun } from './cli.ts';

export { matches } from '../../reference/faults/fault.ts';

/** The result a run wrote (result.json in its report directory). */
export function readResult(run: CliRun): { checks: CollectedCheck[]; [k: string]: unknown } {
  const direct = join(run.reportDir, 'result.json');
  const file = existsSync(direct) ? direct : join(run.reportDir, readdirSync(run.reportDir)[0], 'result.json');
  const result = JSON.parse(readFileSync(file, 'utf8'));
  return result;
}

/** Check ids with the given outcomes. */
export function idsWith(checks: CollectedCheck[], outcomes: CollectedCheck['outcome'][]): string[] {
  return checks.filter((c) => outcomes.includes(c.outcome)).map((c) => c.id).sort();
}
