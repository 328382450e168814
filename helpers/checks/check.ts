import { inject, test, type TestContext } from 'vitest';
import { NOT_SELECTED, selects } from '../core/selection.ts';
import { loadCatalog, requirementOf, type CheckId, type Level } from '../contract/catalog.ts';
import { withExchangeLog } from '../http/exchanges.ts';
import { TurnedAway } from '../http/client.ts';
import { redactor } from '../http/redact.ts';
import { Interference, JUDGES_DIFFERENCES } from '../safety/interference.ts';
import type { CheckMeta, ObservationMeta } from '../model/check-meta.ts';
import { withRedirects } from './redirects.ts';

export { NOT_SELECTED, selects };
/** Whether this run's --only selects the check (a check left out sends nothing). */
export const selected = (def: { id: string; title: string }) => selects(inject('target').only, def);

/** Thrown to report a check as not applicable to this target, with the reason. */
export class NotApplicable extends Error {
  override name = 'NotApplicable';
}

/**
 * Thrown when a check's precondition could not be established (no snapshot to restore, no read
 * to compare with): the suite's own inability, never the target's failure. `by` names the check
 * that observes the cause, so that one root cause is one failure.
 */
export class Blocked extends Error {
  override name = 'Blocked';
  constructor(readonly by: string, readonly reason: string) {
    super(`blocked by ${by}: ${reason}`);
  }
}

/** The check's own blocked outcome, if the error is one: Blocked itself, or a request whose answer proves nothing (TurnedAway: by the target, the environment or the suite). */
export function asBlocked(error: unknown): Blocked | undefined {
  if (error instanceof Blocked) return error;
  if (error instanceof TurnedAway) return new Blocked(error.by, error.reason);
  return undefined;
}

/** Per check id prefix, how a lane settles whether a difference may be another writer's (see JUDGES_DIFFERENCES). */
const settlers = new Map<string, () => Promise<void>>();

/** `settle` throws the Interference it finds: the check whose id starts with `prefix` is then stopped by it, not failed. */
export function settleDifferencesWith(prefix: string, settle: () => Promise<void>): void {
  settlers.set(prefix, settle);
}

/** Before a difference is recorded as the target's failure, the lane asks again, writing nothing. */
async function settleDifference(id: string, failure: unknown): Promise<void> {
  if (!JUDGES_DIFFERENCES.test(id) || asBlocked(failure) || failure instanceof NotApplicable || failure instanceof Interference) return;
  for (const [prefix, settle] of settlers) {
    if (!id.startsWith(prefix)) continue;
    try {
      await settle();
    } catch (e) {
      if (e instanceof Interference) throw e;
      // Asking again did not work: the failure found stands.
    }
  }
}

export interface CheckRun {
  /** Ends the check as not applicable, with the reason. */
  notApplicable(reason: string): never;
  /** Ends the check as blocked: `by` (a check id) observes why its precondition is missing. */
  blocked(by: string, reason: string): never;
  /** Adds a line of information to the report of this check. */
  note(text: string): void;
  context: TestContext;
}

export interface CheckDefinition {
  /**
   * Requirement id from spec/requirements.yaml, optionally ":" and a variant (e.g.
   * BUS-UPDATE-APPLIES:name): an id the catalog does not hold fails the type check.
   */
  id: CheckId;
  title: string;
  /** Checks that change data on the target are left out of --read-only runs. */
  changesData?: boolean;
}

/**
 * Declares one conformance check: a vitest test named after its check id, which knows its
 * requirement's level. A failing SHOULD check is a warning (the test passes, the report says
 * "warning") unless the run is strict.
 */
export function check(def: CheckDefinition, body: (run: CheckRun) => Promise<void>): void {
  // Refused at run time too: the id may have been built from data, or the types be out of date.
  const requirement = loadCatalog().byId.get(requirementOf(def.id));
  if (!requirement) throw new Error(`check ${def.id}: no requirement ${requirementOf(def.id)} in spec/requirements.yaml`);

  const declared: CheckMeta = {
    id: def.id,
    requirement: requirement.id,
    level: requirement.level,
    clause: requirement.clause,
    title: def.title,
    changesData: Boolean(def.changesData),
    exchanges: [],
    notes: [],
  };
  // A check --only leaves out is skipped when it is declared: a describe block or a suite file
  // with nothing selected is skipped whole, so its hooks (creating, snapshotting) never run.
  const skip = !selected(def);
  if (skip) Object.assign(declared, { outcome: 'skipped', reason: NOT_SELECTED });
  // Declared up front, so that a check that never starts (cancelled, its hook failed) is still
  // reported under its own id and level.
  test(`${def.id} ${def.title}`, { meta: { conformance: declared }, skip }, async (context) => {
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
      context,
    };
    try {
      await withExchangeLog(meta.exchanges, () => body(run).catch(async (e: unknown) => {
        await settleDifference(def.id, e);
        throw e;
      }));
      meta.outcome = 'passed';
    } catch (failure) {
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
      meta.reason = redact(withRedirects(reasonOf(error), meta.exchanges));
      if (requirement.level === 'SHOULD' && !target.strict) {
        meta.outcome = 'warning';
        return;
      }
      meta.outcome = 'failed';
      throw error;
    }
  });
}

/**
 * Declares an observation: information about the target where the contract is silent (e.g.
 * whether customers can be listed without a key). It is reported, never judged; if the target
 * cannot be asked, the observation says so.
 */
export function observe(def: { id: string; title: string }, body: () => Promise<string>): void {
  const meta = { observation: { id: def.id, title: def.title, text: '', exchanges: [] } };
  test(`${def.id} ${def.title}`, { meta, skip: !selected(def) }, async (context) => {
    const target = inject('target');
    if (target.stopChecksAt !== undefined && Date.now() >= target.stopChecksAt) context.skip('not run: run-timeout');
    const redact = redactor(target);
    const meta: ObservationMeta = { id: def.id, title: def.title, text: '', exchanges: [] };
    context.task.meta.observation = meta;
    try {
      meta.text = redact(await withExchangeLog(meta.exchanges, body));
    } catch (error) {
      meta.text = redact(`could not be observed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/**
 * The reason a check failed, as a person reads it: the assertion's own message, without the
 * tail vitest adds to a boolean assertion ("…: expected false to be true // Object.is equality"),
 * which says nothing the message has not said.
 */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/: expected (true|false) to be (true|false)(?: \/\/ Object\.is equality)?$/, '').replace(/ \/\/ Object\.is equality$/, '');
}
