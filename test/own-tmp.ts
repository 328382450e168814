import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Global set-up: every temporary folder the tests make (theirs, the runs', the commands they
 * start) goes under one of this run's own, removed at its end. Left in the machine's, a run of
 * the tests left ~470 folders and ~200 MB there, and CI's disk filled.
 */
export default function setup(): () => void {
  const own = mkdtempSync(join(tmpdir(), 'scr-tests-'));
  // Read by os.tmpdir() at each call, and inherited by the forks and every process they start.
  process.env.TMPDIR = own;
  return () => rmSync(own, { recursive: true, force: true });
}
