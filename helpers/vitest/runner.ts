// The suite worker's test runner: vitest's own, except that a concurrent group takes its turns by
// itself. Vitest bounds the checks at once in the whole worker, so a group of concurrent checks
// beside other lanes would take every place and hold those lanes up check after check.
import { TestRunner, type RunnerTestCase } from 'vitest';

/** Checks of one concurrent group at once: vitest's own default, as a group has alone. */
export const CHECKS_AT_ONCE = 5;

interface Turns {
  running: number;
  waiting: (() => void)[];
}

export default class LaneRunner extends TestRunner {
  private readonly groups = new WeakMap<object, Turns>();
  private readonly holding = new WeakSet<RunnerTestCase>();

  override async onBeforeRunTask(test: RunnerTestCase): Promise<void> {
    // A turn is waited for before vitest decides whether the check still runs: a run cancelled
    // meanwhile (a signal) starts none of the checks still waiting.
    if (test.concurrent && test.mode === 'run' && test.suite) await this.take(test);
    await super.onBeforeRunTask(test);
    if (test.mode !== 'run') this.give(test);
  }

  /** After the check and its hooks, however it ended (a skipped check never reaches onAfterRunTask). */
  onAfterRetryTask(test: RunnerTestCase): void {
    this.give(test);
  }

  private async take(test: RunnerTestCase): Promise<void> {
    const group = test.suite!;
    let turns = this.groups.get(group);
    if (!turns) this.groups.set(group, (turns = { running: 0, waiting: [] }));
    if (turns.running < CHECKS_AT_ONCE) turns.running++;
    else await new Promise<void>((resolve) => turns.waiting.push(resolve));
    this.holding.add(test);
  }

  private give(test: RunnerTestCase): void {
    if (!this.holding.delete(test)) return;
    const turns = this.groups.get(test.suite!)!;
    const next = turns.waiting.shift();
    if (next) next();
    else turns.running--;
  }
}
