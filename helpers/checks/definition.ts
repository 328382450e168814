// What a check is, as data: the registries (helpers/registries/) declare them, the suite files
// run them through vitest (helpers/vitest/), and the command lists them without starting vitest.
import { TurnedAway } from '../http/client.ts';
import type { CheckId } from '../contract/catalog.ts';
import type { TargetConfig } from '../config/target.ts';
import type { Spec } from '../contract/spec.ts';

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

/**
 * The one conversion into blocked. An error that is an outcome of its own stays so: Blocked, or a
 * request whose answer proves nothing (TurnedAway: by the target, the environment or the suite).
 * Given `by`, any other failure becomes "blocked by `by`", the check that judges it.
 */
export function asBlocked(error: unknown): Blocked | undefined;
export function asBlocked(error: unknown, by: string): Blocked;
export function asBlocked(error: unknown, by?: string): Blocked | undefined {
  if (error instanceof Blocked) return error;
  if (error instanceof TurnedAway) return new Blocked(error.by, error.reason);
  const own = suiteFault(error);
  if (own) return new Blocked('the suite', own);
  if (by === undefined) return undefined;
  return new Blocked(by, error instanceof Error ? error.message.split('\n')[0] : String(error));
}

/**
 * An error of the suite's own code (a TypeError, an assertion of a library), not a judgement of
 * the target: the check proves nothing either way. Said without the library's words.
 */
export function suiteFault(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const own = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError].some((k) => error.constructor === k) || error.name === 'AssertionError';
  if (!own) return undefined;
  const what = error.name === 'AssertionError' ? 'an internal assertion failed' : `${error.name}: ${error.message.split('\n')[0]}`;
  return `the suite could not judge this check: an error in its own code (${what}); this says nothing of the target, please report it`;
}

export interface CheckRun {
  /** Ends the check as not applicable, with the reason. */
  notApplicable(reason: string): never;
  /** Ends the check as blocked: `by` (a check id) observes why its precondition is missing. */
  blocked(by: string, reason: string): never;
  /** Adds a line of information to the report of this check. */
  note(text: string): void;
}

/** One conformance check; its level and clause come from the catalog, by its requirement id. */
export interface Check<C> {
  /**
   * Requirement id from spec/requirements.yaml, optionally ":" and a variant (e.g.
   * BUS-UPDATE-APPLIES:name): an id the catalog does not hold fails the type check.
   */
  id: CheckId;
  title: string;
  /** Checks that change data on the target are left out of --read-only runs. */
  changesData?: boolean;
  /** Checks whose work this one judges: one that --only left out makes this one not applicable (it did not run). */
  needs?: CheckId[];
  run(ctx: C, run: CheckRun): Promise<void>;
}

/** Information about the target where the contract is silent: reported, never judged. */
export interface Observation<C> {
  observation: string;
  title: string;
  observe(ctx: C): Promise<string>;
}

/** Checks that belong together (a describe block), in the order they run. */
export interface Group<C> {
  group: string;
  /** The checks of the group run at once (each works on records of its own). */
  concurrent?: boolean;
  /**
   * The group runs beside its neighbours that say so too, when --concurrency lets lanes run side
   * by side (their records are disjoint); its own checks still in order, unless `concurrent`.
   */
  alongside?: boolean;
  entries: Entry<C>[];
  beforeAll?(ctx: C): Promise<unknown>;
  afterAll?(ctx: C): Promise<unknown>;
}

export type Entry<C> = Check<C> | Observation<C> | Group<C>;

/**
 * A resource's checks in contract order. `open` builds what its checks share in one run (the
 * client, the lane): only the suite worker calls it, so listing the checks sends nothing.
 */
export interface Registry<C> {
  entries: Entry<C>[];
  open(): C;
  /** Before the first check of the file (a snapshot to take). */
  start?(ctx: C): Promise<unknown>;
  /** Settles whether a difference a check found may be another writer's (see JUDGES_DIFFERENCES). */
  settle?: { prefix: string; with(ctx: C): Promise<void> };
  close(ctx: C): Promise<void>;
}

/** What decides a registry's checks: the spec and the target's configuration (its vendor config, its keys). */
export type Declare<C> = (spec: Spec, target: TargetConfig) => Registry<C>;

export const isGroup = <C>(e: Entry<C>): e is Group<C> => 'group' in e;
export const isObservation = <C>(e: Entry<C>): e is Observation<C> => 'observation' in e;

/** Every check of the entries, depth first: the order a run meets them. */
export function checksOf<C>(entries: Entry<C>[]): Check<C>[] {
  return entries.flatMap((e) => (isGroup(e) ? checksOf(e.entries) : isObservation(e) ? [] : [e]));
}
