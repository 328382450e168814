import type { CheckId, MustRequirementId, RequirementIdPrefix } from '../../helpers/contract/catalog.ts';

/**
 * A check id, or a prefix of check ids ending in "*": "BUS-AUTH-MISSING:*" (the variants of a
 * requirement), "BUS-UPDATE-*" (a group of requirements), "*" (every check). A typo in the
 * requirement part fails the type check; the fault matrix holds the variants to the run.
 */
export type KillPattern = CheckId | '*' | `${RequirementIdPrefix}*`;

/**
 * A fault breaks exactly one thing in the reference implementation, and names the checks that
 * must fail because of it (`kills`). The project's tests run the suite against each fault and
 * hold it to exactly that list.
 */
export interface Fault {
  name: string;
  description: string;
  kills: KillPattern[];
  /**
   * MUST requirements the fault leaves without proof (no check of theirs can pass, or some are
   * blocked): a run that fails nothing must then end INCOMPLETE (exit 2), naming exactly these.
   */
  untested?: MustRequirementId[];
  /**
   * Checks the fault leaves blocked, each by the check that judges the root cause (one root
   * cause, one failure): the fault matrix holds each to that outcome and its reason.
   */
  blocks?: Partial<Record<CheckId, CheckId>>;
  /** What the reason of a check this fault flags must say (the fault matrix holds it to that). */
  says?: Partial<Record<CheckId, RegExp>>;
  /**
   * A record whose state this fault hides from every read (a retrieval that never shows a
   * change), and why: the fault matrix does not hold a run with this fault to naming that record
   * when it is left changed, as it holds every run to naming every other.
   */
  leftUnseen?: { record: string; why: string };
  /**
   * A fault found by exploration alone: the fault matrix runs it with the hand-written checks
   * off (--only EXPLORE), this many commands drawn from this seed (helpers/explore/).
   */
  explore?: { commands: number; seed: number };
  /**
   * Checks this fault fails or not depending on the order the suite's concurrent checks reach the
   * target, and why: a fault whose effect depends on that order (rows kept by position). The
   * matrix holds the run to its kills, and lets these fail too; nothing else.
   */
  orderDependent?: { checks: KillPattern[]; why: string };
  /** How the suite judged this fault at first contact, before any check was written for it (FIRST-CONTACT.md). */
  firstContact?: FirstContact;
}

/** A red-team measurement: the suite's verdict on a fault or variation written from the contract alone. */
export interface FirstContact {
  round: string;
  outcome: 'right' | 'wrong';
  verdict: string;
  note: string;
}

/** Whether a check id matches a pattern from a fault's `kills` (exact, or a prefix ending in "*"). */
export function matches(pattern: string, checkId: string): boolean {
  return pattern.endsWith('*') ? checkId.startsWith(pattern.slice(0, -1)) : checkId === pattern;
}
