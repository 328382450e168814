// The suite worker's test runner: vitest's own, with turns. Vitest bounds the checks at once in
// the whole worker, so a group of concurrent checks beside other lanes would take every place and
// hold those lanes up check after check: a concurrent group takes its own turns. And the lanes
// side by side (blocks marked \`lane\`) take turns up to --concurrency: held from before a block's
// first hook to after its last, which vitest runs even when a hook threw.
import { inject, TestRunner, type RunnerTestCase, type RunnerTestSuite } from 'vitest';

/** Checks of one concurrent group at once: vitest's own default, as a group has alone. */
export const CHECKS_AT_ONCE = 5;

/** Up to `limit` at once; the others wait, and go in the order they came. */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: () => number) {}

  async take(): Promise<void> {
    if (this.running < this.limit()) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

export default class LaneRunner extends TestRunner {
  private readonly groups = new WeakMap<object, Turns>();
  /** Lanes waiting have no time limit: a turn comes when a lane before ends, each check bounded by its own timeout. */
  private readonly lanes = new Turns(() => inject('lanes') ?? 1);
  private readonly holding = new WeakSet<object>();

  override async onBeforeRunSuite(suite: RunnerTestSuite): Promise<void> {
    // A turn is waited for before vitest decides whether the block still runs (a signal meanwhile skips it).
    if (suite.meta.lane && suite.mode === 'run') await this.hold(suite, this.lanes);
    await super.onBeforeRunSuite(suite);
    if (suite.mode !== 'run') this.release(suite, () => this.lanes);
  }

  override async onAfterRunSuite(suite: RunnerTestSuite): Promise<void> {
    await super.onAfterRunSuite(suite);
    this.release(suite, () => this.lanes);
  }

  override async onBeforeRunTask(test: RunnerTestCase): Promise<void> {
    if (test.concurrent && test.mode === 'run' && test.suite) await this.hold(test, this.groupOf(test));
    await super.onBeforeRunTask(test);
    if (test.mode !== 'run') this.release(test, () => this.groupOf(test));
  }

  /** After the check and its hooks, however it ended (a skipped check never reaches onAfterRunTask). */
  onAfterRetryTask(test: RunnerTestCase): void {
    this.release(test, () => this.groupOf(test));
  }

  private groupOf(test: RunnerTestCase): Turns {
    const group = test.suite!;
    let turns = this.groups.get(group);
    if (!turns) this.groups.set(group, (turns = new Turns(() => CHECKS_AT_ONCE)));
    return turns;
  }

  private async hold(task: object, turns: Turns): Promise<void> {
    await turns.take();
    this.holding.add(task);
  }

  private release(task: object, turns: () => Turns): void {
    if (this.holding.delete(task)) turns().give();
  }
}
