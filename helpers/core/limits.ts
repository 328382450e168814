/**
 * The suite's own limits and patience, as the command line defaults them. A target names each
 * (TargetConfig, filled from the options) or leaves it to its default here: limitsOf is the one
 * place a default is applied. Kept apart from the client so that reading options loads no HTTP code.
 */

/** Bodies beyond this are not read, unless told (--max-body-mib): a limit of the suite, never the target's failure. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** How long, unless told (--retry-budget), a check waits out a target that stopped answering: a deploy-sized blip. */
export const RETRY_BUDGET_MS = 30_000;
/** How long a read waits for the run's own write to show, unless told (--converge-window): see converge.ts. */
export const CONVERGE_WINDOW_MS = 3000;
/** Pages read before a list's completeness is called unknown, unless told (--max-pages): a guard against a list that never ends, far past a production-sized one (a million records in pages of 1000). */
export const MAX_PAGES = 10_000;

export interface Limits {
  /** Pages a list is read to before its completeness is unknown (--max-pages). */
  maxPages: number;
  /** How long a read waits for the run's own write to show (--converge-window), in ms. */
  convergeWindowMs: number;
  /** How long a check waits out a target that stopped answering (--retry-budget), in ms. */
  retryBudgetMs: number;
  /** The largest body the suite reads (--max-body-mib), in bytes. */
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: Limits = { maxPages: MAX_PAGES, convergeWindowMs: CONVERGE_WINDOW_MS, retryBudgetMs: RETRY_BUDGET_MS, maxBodyBytes: MAX_BODY_BYTES };

/**
 * How long one check may take (ms): eight request timeouts, at least a minute. Past it the check is
 * blocked by the suite (its own patience ran out: a long list read again, a slow target), never
 * failed: the contract promises no speed. Vitest's own timeout is SLACK later, so that the
 * check's own deadline is what a user sees.
 */
export function checkTimeMs(target: { timeoutMs: number }): number {
  return Math.max(60_000, target.timeoutMs * 8);
}
export const CHECK_TIME_SLACK_MS = 10_000;

/** The limits a target names, each it leaves out at its default. */
export function limitsOf(target: Partial<Limits>): Limits {
  return {
    maxPages: target.maxPages ?? DEFAULT_LIMITS.maxPages,
    convergeWindowMs: target.convergeWindowMs ?? DEFAULT_LIMITS.convergeWindowMs,
    retryBudgetMs: target.retryBudgetMs ?? DEFAULT_LIMITS.retryBudgetMs,
    maxBodyBytes: target.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes,
  };
}
