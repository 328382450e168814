import { Journal } from '../safety/journal.ts';
import type { TargetConfig } from '../config/target.ts';

/** The run journal of the run these checks belong to, if the command handed one over (none in a unit test of a lane). */
export function currentJournal(target: Pick<TargetConfig, 'journalFile'>): Journal | undefined {
  return target.journalFile ? new Journal(target.journalFile) : undefined;
}
