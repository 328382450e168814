import type { RunResult } from '../results/run-result.ts';
import type { onInterrupt } from './signals.ts';
import type { Output } from '../core/output.ts';

export interface Io {
  stdout: Output;
  stderr: Output;
  /** Hears the run's result model (the typed API returns it). */
  onResult?: (run: RunResult) => void;
  /**
   * Replaces the process's SIGINT/SIGTERM handling (helpers/command/signals.ts): the typed API
   * stops a run on its caller's AbortSignal and never exits the process.
   */
  interrupts?: typeof onInterrupt;
  /**
   * The process runs run after run (the project's tests, the bench): the suites' worker a run
   * leaves idle is kept for the next (early-worker.ts), and the process ends by releaseKeptWorkers().
   * Off by default: a kept thread's output stream holds the process open.
   */
  keepWorker?: boolean;
  /**
   * result.json alone, for a caller that judges the verdict and reads nothing else (the project's
   * fault and variation matrices: hundreds of runs, each rendering megabytes of HTML, JUnit and HAR
   * no one opens). A user's run always writes every format.
   */
  resultOnly?: boolean;
}

export const processIo: Io = { stdout: process.stdout, stderr: process.stderr };

/** How a command ended: its exit code and, for one that proved nothing, the one line that says why (as stderr shows it). */
export interface Ended {
  code: number;
  line?: string;
}
