import { EXIT } from '../core/errors.ts';
import { BLOCKS_BEFORE_STOP, environmentChannel, type EnvironmentGone } from '../http/environment.ts';
import type { Stopped } from '../results/run-result.ts';
import type { SuiteRun } from './run-suites.ts';
import { onInterrupt } from './signals.ts';

export interface RunStopOptions {
  runId: string;
  runTimeoutMs: number;
  /** When no new check may start (epoch ms): the run timeout, start-up included. */
  stopAt: number;
  say: (text: string) => void;
  /** Replaces the process's signal handling (the typed API's AbortSignal). */
  interrupts?: typeof onInterrupt;
  /** What a second signal prints before the process exits: what is left on the target, and how to undo it. */
  leftOnExit: () => string;
}

/**
 * Why a run stops before its checks are done: a first SIGINT/SIGTERM, the run timeout, or a lane
 * that gave up on the environment (helpers/http/environment.ts). Each stops new checks from
 * starting, and the run goes on to its clean-up; a second signal exits at once.
 */
export class RunStop {
  reason: Stopped | undefined;
  /** Why a lane gave up on the environment, when that stopped the run. */
  environmentGone: string | undefined;
  private suites: SuiteRun | undefined;
  private reporting = false;
  private readonly timer: NodeJS.Timeout;
  private readonly removeHandlers: () => void;
  private readonly environment;

  constructor(private readonly o: RunStopOptions) {
    this.removeHandlers = (o.interrupts ?? onInterrupt)(
      (signal) => {
        if (this.reporting) return this.whileReporting(signal);
        this.reason ??= 'interrupted';
        this.stopChecks(`\n${signal}: no new checks start; restoring and cleaning up the target (a second signal exits at once)\n`);
      },
      (signal) => {
        if (this.reporting) return this.whileReporting(signal);
        o.say(`\n${signal} again: exiting at once.\n${o.leftOnExit()}`);
        process.exit(EXIT.interrupted);
      },
    );
    this.timer = setTimeout(() => this.timeUp(), Math.max(0, o.stopAt - Date.now()));
    this.environment = environmentChannel(o.runId);
    this.environment.onmessage = (message) => {
      if (this.reason) return;
      this.reason = 'environment';
      this.environmentGone = (message as { data: EnvironmentGone }).data.reason;
      this.stopChecks(`\n${this.environmentGone}: ${BLOCKS_BEFORE_STOP} checks in a row were blocked by it; no new checks start; cleaning up what the target allows\n`);
    };
  }

  /** Start-up counts: a run timeout already past when start-up ends changes nothing on the target. */
  startUpDone(): void {
    if (Date.now() >= this.o.stopAt) this.timeUp();
  }

  /** The running suites, which a stop cancels (at once, if the run stopped while they started). */
  watch(suites: SuiteRun): void {
    this.suites = suites;
    if (this.reason) void suites.cancel('keyboard-input');
  }

  /** The checks are over: the run timeout no longer applies (the clean-up has its own). */
  checksOver(): void {
    clearTimeout(this.timer);
  }

  /**
   * The target is cleaned up; the reports are written next, in moments, from what is in memory:
   * a signal now is told so and waited out, never the default exit that would end the run
   * without its verdict or what it left.
   */
  cleanedUp(): void {
    this.reporting = true;
  }

  private whileReporting(signal: string): void {
    this.o.say(`\n${signal}: the target is cleaned up; the reports are being written, then the run ends\n`);
  }

  close(): void {
    clearTimeout(this.timer);
    this.removeHandlers();
    this.environment.close();
  }

  private timeUp(): void {
    if (this.reason) return;
    this.reason = 'run-timeout';
    this.stopChecks(`\nrun timeout: ${this.o.runTimeoutMs / 1000} s have passed; no new checks start; cleaning up the target\n`);
  }

  private stopChecks(line: string): void {
    this.o.say(line);
    void this.suites?.cancel('keyboard-input');
  }
}
