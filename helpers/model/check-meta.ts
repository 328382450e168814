import type { CheckIdentity } from '../contract/catalog.ts';
import type { Exchange } from '../http/exchanges.ts';
import type { Outcome } from '../core/outcome.ts';

// What a check in the suite worker hands the main process's reporters, through vitest's task meta.

/** What a check tells the reporters, on top of vitest's own result. */
export interface CheckMeta extends CheckIdentity {
  /** The lane's resource, where a suite file holds several (else the file's name is). */
  resource?: string;
  changesData: boolean;
  outcome?: Outcome;
  reason?: string;
  exchanges: Exchange[];
  notes: string[];
}

/** Something the suite reports about the target that the contract does not rule on: never fails. */
export interface ObservationMeta {
  id: string;
  title: string;
  resource?: string;
  text: string;
  exchanges: Exchange[];
}

declare module 'vitest' {
  interface TaskMeta {
    conformance?: CheckMeta;
    observation?: ObservationMeta;
    /** A block that runs side by side with others, taking turns up to --concurrency (helpers/vitest/runner.ts). */
    lane?: boolean;
  }
}
