// The suite worker's side of the checks, and the only helper that loads vitest's test runtime: it
// runs a registry's checks as vitest tests, each named `<id> <title>`, its outcome in the task meta
// the command's reporters read.
import { afterAll, beforeAll, describe, inject, test, type TestContext } from 'vitest';
import { NOT_SELECTED, dependsOnUnselected, selects } from '../core/selection.ts';
import { enterRun, perRun } from '../core/run-scope.ts';
import { loadCatalog, requirementOf, type CheckId } from '../contract/catalog.ts';
import type { Spec } from '../contract/spec.ts';
import { withExchangeLog } from '../http/exchanges.ts';
import { redactor } from '../http/redact.ts';
import { checkTimeMs } from '../core/limits.ts';
import { onClock } from '../core/check-clock.ts';
import { Interference, JUDGES_DIFFERENCES } from '../safety/interference.ts';
import { Frame, laneEnd } from '../safety/frame.ts';
import type { CheckMeta, ObservationMeta } from '../model/check-meta.ts';
import { withRedirects } from '../checks/redirects.ts';
import { asBlocked, Blocked, checksOf, isGroup, isObservation, NotApplicable, type Check, type CheckRun, type Declare, type Entry, type Observation } from '../checks/definition.ts';

/**
 * Per check id prefix, how a lane settles whether a difference may be another writer's (see
 * JUDGES_DIFFERENCES). Per run: a worker kept for the next run would otherwise settle a check of
 * another registry (the operations' BUS- checks, registered before the business lane) with the lane
 * of the run before, asking that run's target until the retry budget ran out.
 */
const settlersOfRun = perRun(() => new Map<string, () => Promise<void>>());

/** Before a difference is recorded as the target's failure, the lane asks again, writing nothing. */
async function settleDifference(id: string, failure: unknown): Promise<void> {
  if (!JUDGES_DIFFERENCES.test(id) || asBlocked(failure) || failure instanceof NotApplicable || failure instanceof Interference) return;
  for (const [prefix, settle] of settlersOfRun()) {
    if (!id.startsWith(prefix)) continue;
    try {
      await settle();
    } catch (e) {
      if (e instanceof Interference) throw e;
      // Asking again did not work: the failure found stands.
    }
  }
}

/**
 * Runs a registry's checks in this suite file: its shared state is opened here (never when the
 * checks are only listed) and closed after the last check, its groups become describe blocks.
 * `resource` names the lane in the reports where a file holds several (default: the file's name).
 */
export function register<C>(declare: Declare<C>, spec: Spec, resource?: string): void {
  const target = inject('target');
  // A worker kept for the next run (run-suites.ts) begins each run knowing nothing of its target.
  enterRun(target.runId);
  const registry = declare(spec, target);
  const ctx = registry.open();
  if (registry.settle) settlersOfRun().set(registry.settle.prefix, () => registry.settle!.with(ctx));
  if (registry.start) beforeAll(() => registry.start!(ctx));
  afterAll(() => registry.close(ctx));
  const titles = new Map(checksOf(registry.entries).map((c) => [c.id, c.title]));
  const unselected = (id: CheckId) => !selects(target.only, { id, title: titles.get(id) ?? '' });
  // Every block and check says whether it runs at once with its neighbours: none inherits it from a lane beside others.
  const add = (entries: Entry<C>[], concurrent: boolean) => {
    for (const e of entries) {
      if (isGroup(e)) {
        const besides = Boolean(e.alongside) && lanesAtOnce() > 1;
        // A group that runs alongside the others takes its turns among them (helpers/vitest/runner.ts).
        describe(e.group, { concurrent: besides || Boolean(e.concurrent), meta: { lane: besides } }, () => {
          if (e.beforeAll) beforeAll(() => e.beforeAll!(ctx));
          if (e.afterAll) afterAll(() => e.afterAll!(ctx));
          add(e.entries, Boolean(e.concurrent));
        });
      } else if (isObservation(e)) observe(e, () => e.observe(ctx), { concurrent, resource });
      else
        check(e, { concurrent, resource }, async (run) => {
          // A check whose work --only left out did not run: neither does this one.
          const left = e.needs?.find(unselected);
          if (left) run.notApplicable(dependsOnUnselected(left));
          await e.run(ctx, run);
        });
    }
  };
  add(registry.entries, false);
}

/**
 * Several resources' registries in one suite file, each a lane of records of its own: with
 * --concurrency above 1 they run side by side in this one worker, up to that many at once, in
 * the order given; else one after another.
 */
export function registerLanes(spec: Spec, lanes: Record<string, Declare<unknown>>): void {
  const besides = lanesAtOnce() > 1;
  for (const [resource, declare] of Object.entries(lanes)) {
    // Each lane takes its turn among them, up to --concurrency at once (helpers/vitest/runner.ts).
    describe(resource, { concurrent: besides, meta: { lane: besides } }, () => {
      // Declared first, so that it runs after the lane's own closing hooks (vitest runs them as a stack): the frame read at the lane's end.
      const frame = Frame.of(spec, inject('target'));
      if (frame) afterAll(() => frame.read(laneEnd(resource)).catch(() => {}));
      register(declare, spec, resource);
    });
  }
}

/** How many lanes (and groups that run alongside) may run at once: --concurrency. */
const lanesAtOnce = () => inject('lanes') ?? 1;

/** Where a check or observation stands: whether it runs at once with its neighbours, and its lane. */
interface Place {
  concurrent: boolean;
  resource?: string;
}

/**
 * One conformance check: a vitest test named after its check id, which knows its requirement's
 * level. A failing SHOULD check is a warning (the test passes, the report says "warning") unless
 * the run is strict.
 */
function check(def: Pick<Check<unknown>, 'id' | 'title' | 'changesData'>, place: Place, body: (run: CheckRun) => Promise<void>): void {
  // Refused at run time too: the id may have been built from data, or the types be out of date.
  const requirement = loadCatalog().byId.get(requirementOf(def.id));
  if (!requirement) throw new Error(`check ${def.id}: no requirement ${requirementOf(def.id)} in spec/requirements.yaml`);

  const declared: CheckMeta = {
    id: def.id,
    requirement: requirement.id,
    level: requirement.level,
    clause: requirement.clause,
    title: def.title,
    resource: place.resource,
    changesData: Boolean(def.changesData),
    exchanges: [],
    notes: [],
  };
  // A check --only leaves out is skipped when it is declared: a describe block or a suite file
  // with nothing selected is skipped whole, so its hooks (creating, snapshotting) never run.
  const skip = !selects(inject('target').only, def);
  if (skip) Object.assign(declared, { outcome: 'skipped', reason: NOT_SELECTED });
  // Declared up front, so that a check that never starts (cancelled, its hook failed) is still
  // reported under its own id and level.
  test(`${def.id} ${def.title}`, { meta: { conformance: declared }, skip, concurrent: place.concurrent }, async (context) => {
    const target = inject('target');
    const meta: CheckMeta = { ...declared, exchanges: [], notes: [] };
    context.task.meta.conformance = meta;
    const redact = redactor(target);

    // The run timeout may fire before vitest can be told (during its start-up): no check starts after it.
    if (target.stopChecksAt !== undefined && Date.now() >= target.stopChecksAt) {
      meta.outcome = 'skipped';
      meta.reason = 'not run: run-timeout';
      context.skip(meta.reason);
    }
    if (def.changesData && target.readOnly) {
      meta.outcome = 'skipped';
      meta.reason = 'left out of a --read-only run: this check changes data on the target';
      context.skip(meta.reason);
    }
    const run: CheckRun = {
      notApplicable(reason) {
        throw new NotApplicable(reason);
      },
      blocked(by, reason) {
        throw new Blocked(by, reason);
      },
      note: (text) => meta.notes.push(redact(text)),
    };
    try {
      await withExchangeLog(meta.exchanges, () => inTime(() => body(run), checkTimeMs(target), target.timeoutMs).catch(async (e: unknown) => {
        await settleDifference(def.id, e);
        throw e;
      }));
      meta.outcome = 'passed';
    } catch (failure) {
      conclude(meta, failure, requirement.level === 'SHOULD' && !target.strict, redact, context);
    }
  });
}

/**
 * The check's work, or Blocked by the suite once its time is up: how long a check takes is the
 * suite's patience (a long list read whole, a slow target), never the target's failure. The work
 * goes on meanwhile (its scope still deletes what it made); the after-run clean-up covers the rest.
 */
async function inTime<T>(body: () => Promise<T>, ms: number, quietMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const { work, waitsOnList } = onClock(body);
  const late = new Promise<never>((_, reject) => {
    // A list read the check waits for that still gets its pages holds the limit off (see check-clock.ts).
    const due = () => (waitsOnList(quietMs) ? (timer = setTimeout(due, quietMs)) : reject(new Blocked('the suite', `the check's time ran out (${Math.round(ms / 1000)} s, eight times --timeout, and no list it waited for was still coming): it did not finish, so nothing was judged`)));
    timer = setTimeout(due, ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The outcome of a check that threw: not applicable, blocked or stopped by another writer (the
 * vitest test is skipped), else a failure: a warning when `warns` (a SHOULD of a run that is not
 * strict), or the vitest test fails.
 */
function conclude(meta: CheckMeta, failure: unknown, warns: boolean, redact: (text: string) => string, context: TestContext): void {
  const error = asBlocked(failure) ?? failure;
  if (error instanceof NotApplicable) {
    meta.outcome = 'not-applicable';
    meta.reason = redact(error.message);
    context.skip(meta.reason);
  }
  if (error instanceof Blocked) {
    meta.outcome = 'blocked';
    meta.reason = redact(error.message);
    context.skip(meta.reason);
  }
  // Another writer changed the record: nothing can be judged on it, and the run ends with exit 2.
  if (error instanceof Interference) {
    meta.outcome = 'skipped';
    meta.reason = redact(error.message);
    context.skip(meta.reason);
  }
  meta.reason = redact(withRedirects(error instanceof Error ? error.message : String(error), meta.exchanges));
  meta.outcome = warns ? 'warning' : 'failed';
  if (!warns) throw error;
}

/**
 * An observation: information about the target where the contract is silent (e.g. whether
 * customers can be listed without a key). It is reported, never judged; if the target cannot be
 * asked, the observation says so.
 */
function observe(def: Pick<Observation<unknown>, 'observation' | 'title'>, body: () => Promise<string>, { concurrent, resource }: Place): void {
  const id = def.observation;
  const meta = { observation: { id, title: def.title, resource, text: '', exchanges: [] } };
  test(`${id} ${def.title}`, { meta, concurrent, skip: !selects(inject('target').only, { id, title: def.title }) }, async (context) => {
    const target = inject('target');
    if (target.stopChecksAt !== undefined && Date.now() >= target.stopChecksAt) context.skip('not run: run-timeout');
    const redact = redactor(target);
    const meta: ObservationMeta = { id, title: def.title, resource, text: '', exchanges: [] };
    context.task.meta.observation = meta;
    try {
      meta.text = redact(await withExchangeLog(meta.exchanges, body));
    } catch (error) {
      meta.text = redact(`could not be observed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
