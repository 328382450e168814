/**
 * A fault breaks exactly one thing in the reference implementation, and names the checks that
 * must fail because of it (`kills`: check ids; a trailing "*" matches a prefix). The project's
 * tests run the suite against each fault and hold it to exactly that list.
 */
export interface Fault {
  name: string;
  description: string;
  kills: string[];
  /**
   * MUST requirements the fault leaves without proof (no check of theirs can pass, or some are
   * blocked): a run that fails nothing must then end INCOMPLETE (exit 2), naming exactly these.
   */
  untested?: string[];
}

/** Whether a check id matches a pattern from a fault's `kills` (exact, or a prefix ending in "*"). */
export function matches(pattern: string, checkId: string): boolean {
  return pattern.endsWith('*') ? checkId.startsWith(pattern.slice(0, -1)) : checkId === pattern;
}
