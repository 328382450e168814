import { EXIT } from '../core/errors.ts';
import { BLOCKS_BEFORE_STOP, environmentChannel, type EnvironmentGone } from '../http/environment.ts';
import type { Stopped } from '../results/run-result.ts';
import type { SuiteRun } from './run-suites.ts';
import { onInterrupt } from './signals.ts';

/** How long a cut-short run waits for the suites' worker to stop before it writes its reports anyway. */
const SUITES_STOP_MS = 5_000;

export interface RunStopOptions {
  runId: string;
  runTimeoutMs: number;
  /** When no new check may start (epoch ms): the run timeout, start-up included. */
  stopAt: number;
  say: (text: string) => void;
  /** Replaces the process's signal handling (the typed API's AbortSignal). */
  interrupts?: typeof onInterrupt;
  /** What a third signal prints, on one line, before the process exits: what is left on the target, and how to undo it. */
  leftOnExit: () => string;
}

/**
 * Why a run stops before its checks are done: a first SIGINT/SIGTERM, the run timeout, or a lane
 * that gave up on the environment (helpers/http/environment.ts). Each stops new checks from
 * starting, and the run goes on to its clean-up. A second signal cuts short what is under way
 * (the checks, the clean-up: `cut`), not the reports: every ending that can writes its verdict
 * and what is left. A third exits at once, saying in one line what is left.
 */
export class RunStop {
  reason: Stopped | undefined;
  /** Why a lane gave up on the environment, when that stopped the run. */
  environmentGone: string | undefined;
  /** Aborted by a second signal before the reports: nothing more is waited for or sent (see unlessCut). */
  readonly cut = new AbortController();
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
        this.stopChecks(`\n${signal}: no new checks start; restoring and cleaning up the target (a second signal cuts the clean-up short)\n`);
      },
      (signal, count) => {
        if (count === 2) return this.reporting ? this.whileReporting(signal) : this.cutShort(signal);
        o.say(`\n${signal} again: exiting at once. ${o.leftOnExit()}`);
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
    if (this.cut.signal.aborted) void suites.cancel('keyboard-input');
  }

  /**
   * What `work` gives, or what `instead` makes of the journal the moment a second signal cuts the
   * run short: the run then goes on to its reports without waiting for it.
   */
  unlessCut<T>(work: Promise<T>, instead: () => T): Promise<T> {
    work.catch(() => {}); // one the cut left behind may still fail: nothing waits for it
    const { signal } = this.cut;
    const cut = () => this.suitesStopped().then(instead);
    if (signal.aborted) return cut();
    return Promise.race([work, new Promise<T>((resolve) => signal.addEventListener('abort', () => resolve(cut()), { once: true }))]);
  }

  /**
   * The suites' worker stopped (a second cancel ends it at once), so that it journals nothing after
   * the journal is read for the reports; bounded, as a worker that will not stop must not keep the
   * reports from being written (the journal is written ahead of each request in any case).
   */
  private async suitesStopped(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, SUITES_STOP_MS)));
    await Promise.race([this.suites?.done.catch(() => {}), bound]);
    clearTimeout(timer);
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
    this.o.say(`\n${signal}: the reports are being written, then the run ends (a third signal exits at once)\n`);
  }

  /** A second signal while the checks or the clean-up go on: they stop now (vitest stops the suites' worker at a second cancel). */
  private cutShort(signal: string): void {
    this.reason ??= 'interrupted';
    this.o.say(`\n${signal} again: the clean-up is cut short; the reports are written with what is left on the target (a third signal exits at once)\n`);
    this.cut.abort();
    void this.suites?.cancel('keyboard-input');
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
