// What --only selects. Apart from check.ts (which loads vitest's test API) so that the command's
// main thread can match checks without loading vitest's runtime (chai, expect, snapshots).

/** The reason of a check that --only left out: such checks are not part of the run's reports. */
export const NOT_SELECTED = 'not selected by --only';

/** Whether --only selects a check or an observation: it matches the own id and title (not vitest's describe path), so ^ and $ work. */
export function selects(only: string | undefined, def: { id: string; title: string }): boolean {
  return only === undefined || new RegExp(only).test(`${def.id} ${def.title}`);
}
