import { basename } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';
import type { SerializedError } from 'vitest';
import type { CollectedCheck, Observation } from '../check-outcomes.ts';
import type { CheckMeta, ObservationMeta } from '../../model/check-meta.ts';
import type { Exchange } from '../../http/exchanges.ts';

/** Turns vitest's test cases into the result model; every other reporter reads from here. */
export class ResultCollector implements Reporter {
  readonly checks: CollectedCheck[] = [];
  readonly observations: Observation[] = [];
  /** Errors outside any check (a suite file that failed to load, a hook that threw). */
  readonly suiteErrors: string[] = [];
  private listeners: ((check: CollectedCheck) => void)[] = [];
  /** Vitest reports a test again when a run is cancelled; each is kept once, the last word wins. */
  private readonly seen = new Map<string, number>();
  /** Where each check and observation is declared in its suite file: those that run at once end in any order. */
  private readonly declared = new WeakMap<CollectedCheck | Observation, number>();

  constructor(private readonly redact: (text: string) => string) {}

  onCheck(listener: (check: CollectedCheck) => void): void {
    this.listeners.push(listener);
  }

  private laneListeners: ((resource: string, working: boolean) => void)[] = [];

  /** A lane (a suite file of one resource, or a resource's describe block) began or ended. */
  onLane(listener: (resource: string, working: boolean) => void): void {
    this.laneListeners.push(listener);
  }

  private lane(resource: string, working: boolean): void {
    for (const l of this.laneListeners) l(resource, working);
  }

  // A suite file without describe blocks of its own (the operations pass) is one lane.
  onTestModuleStart(module: TestModule): void {
    if (isLane(module)) this.lane(moduleResource(module), true);
  }

  onTestSuiteReady(suite: TestSuite): void {
    if (suite.parent.type === 'module') this.lane(suite.name, true);
  }

  onTestSuiteResult(suite: TestSuite): void {
    if (suite.parent.type === 'module') this.lane(suite.name, false);
  }

  onTestCaseResult(testCase: TestCase): void {
    const observation = (testCase.meta() as { observation?: ObservationMeta }).observation;
    if (observation) {
      // An observation that never ran (the run was stopped) has nothing to say.
      if (testCase.result().state !== 'passed') return;
      const seen: Observation = { ...observation, resource: observation.resource ?? fileResource(testCase), text: this.redact(observation.text) };
      this.declared.set(seen, this.placeIn(testCase));
      this.observations.push(seen);
      return;
    }
    const check = toCheckResult(testCase, this.redact);
    if (!check) return;
    this.intern(check.exchanges);
    this.declared.set(check, this.placeIn(testCase));
    const index = this.seen.get(testCase.id);
    if (index !== undefined) {
      this.checks[index] = check;
      return;
    }
    this.seen.set(testCase.id, this.checks.push(check) - 1);
    for (const l of this.listeners) l(check);
  }

  /**
   * One copy of each request: the checks sharing a read of a long list each bring a copy of its
   * pages from the worker (issue 35: a million customers, 7 checks, 1000 pages a read). Replaced
   * in place, so that vitest's own record of the check lets go of the copy too.
   */
  private readonly exchanges = new Map<string, Exchange>();
  private intern(exchanges: Exchange[]): void {
    exchanges.forEach((e, i) => {
      if (e.id === undefined) return;
      const first = this.exchanges.get(e.id);
      if (first) exchanges[i] = first;
      else this.exchanges.set(e.id, e);
    });
  }

  private readonly places = new Map<string, Map<string, number>>();
  private placeIn(testCase: TestCase): number {
    let places = this.places.get(testCase.module.moduleId);
    if (!places) this.places.set(testCase.module.moduleId, (places = new Map([...testCase.module.children.allTests()].map((t, i) => [t.id, i]))));
    return places.get(testCase.id) ?? 0;
  }

  /** Checks (or observations) of one suite file in the order the file declares them, as the contract reads (not as they ended). */
  byDeclaration = (a: CollectedCheck | Observation, b: CollectedCheck | Observation): number => (this.declared.get(a) ?? 0) - (this.declared.get(b) ?? 0);

  onTestModuleEnd(module: TestModule): void {
    if (isLane(module)) this.lane(moduleResource(module), false);
    // Said as a user reads it: the lane or the suite, not vitest's file and describe path.
    for (const e of module.errors()) this.suiteErrors.push(this.redact(`the suite: ${errorText(e)}`));
    for (const suite of module.children.allSuites()) {
      for (const e of suite.errors()) this.suiteErrors.push(this.redact(`the ${suite.fullName.replace(/ > /g, ', ')} checks: ${errorText(e)}`));
    }
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>): void {
    for (const e of errors) this.suiteErrors.push(this.redact(`unhandled: ${errorText(e)}`));
  }
}

/** An error's first line; an assertion library's wording never reaches a user. */
const errorText = (e: { name?: string; message: string }) => (e.name === 'AssertionError' ? 'an internal assertion of the suite failed' : e.message.split('\n')[0]);

/** A suite file that holds one registry is named after its resource. */
const moduleResource = (module: TestModule) => basename(module.moduleId).replace(/\.test\.[jt]s$/, '');
const isLane = (module: TestModule) => ![...module.children.suites()].length;
const fileResource = (testCase: TestCase) => moduleResource(testCase.module);

function toCheckResult(testCase: TestCase, redact: (t: string) => string): CollectedCheck | undefined {
  const meta = (testCase.meta() as { conformance?: CheckMeta }).conformance;
  const result = testCase.result();
  const resource = meta?.resource ?? fileResource(testCase);
  const durationMs = Math.round(testCase.diagnostic()?.duration ?? 0);
  // Every check declares its meta (helpers/vitest/check.ts); a test without one is not a check.
  if (!meta) return undefined;
  // No outcome: the check never started (the run was stopped, or its suite's hook failed).
  let outcome = meta.outcome ?? (result.state === 'failed' ? 'failed' : 'skipped');
  let reason = meta.outcome ? meta.reason : result.state === 'failed' ? result.errors[0]?.message : 'not run';
  // A check whose body passed but whose test failed afterwards (e.g. in onTestFinished) failed.
  if (result.state === 'failed' && outcome === 'passed') {
    outcome = 'failed';
    reason = result.errors[0]?.message;
  }
  return {
    id: meta.id, requirement: meta.requirement, level: meta.level, clause: meta.clause, title: meta.title, resource,
    outcome, reason: reason && redact(reason), durationMs, exchanges: meta.exchanges, notes: meta.notes,
  };
}
