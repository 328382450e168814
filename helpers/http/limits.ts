/**
 * The suite's own limits and patience, as the command line defaults them: kept apart from the
 * client so that reading options loads no HTTP code.
 */

/** Bodies beyond this are not read, unless told (--max-body-mib): a limit of the suite, never the target's failure. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** How long, unless told (--retry-budget), a check waits out a target that stopped answering: a deploy-sized blip. */
export const RETRY_BUDGET_MS = 30_000;
