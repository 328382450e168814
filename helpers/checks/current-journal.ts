import { inject } from 'vitest';
import { Journal } from '../safety/journal.ts';

/** The run journal of the run this suite worker belongs to, if the command handed one over. */
export function currentJournal(): Journal | undefined {
  let file: string | undefined;
  try {
    file = inject('target').journalFile;
  } catch {
    return undefined; // not inside a suite run (e.g. a unit test of the helper)
  }
  return file ? new Journal(file) : undefined;
}
