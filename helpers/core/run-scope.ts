// What a suites' worker learns of its target lasts one run: a worker may serve several runs in
// turn (run-suites.ts keeps it for the next run in the same process), each against its own target.

let current: string | undefined;

/** The run the worker serves from now on: what perRun values hold was learned of another target. */
export function enterRun(runId: string): void {
  current = runId;
}

/** A value made anew for each run the worker serves, shared by everything in that run. */
export function perRun<T>(make: () => T): () => T {
  let value: T | undefined;
  let of: string | undefined;
  return () => {
    if (value === undefined || of !== current) [value, of] = [make(), current];
    return value;
  };
}
