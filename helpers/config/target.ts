import type { VendorConfig } from './vendor-config.ts';
import type { ExtraHeader } from '../http/redact.ts';
import type { Network } from '../http/network.ts';

/** What the command hands each suite file (through vitest's provide/inject). */
export interface TargetConfig {
  baseUrl: string;
  apiKey: string;
  expiredKey?: string;
  vendor: VendorConfig;
  strict: boolean;
  readOnly: boolean;
  timeoutMs: number;
  /** --only: a regular expression a check's id and title must match for it to run. */
  only?: string;
  /** Unique per run: marks what this run creates so that it, and only it, is cleaned up. */
  runId: string;
  /** The run journal (JSON lines) every worker appends to: see helpers/safety/journal.ts. */
  journalFile?: string;
  /** The run's request log (JSON lines of WireEntry): every request on the wire, for the HAR and the count. */
  requestLogFile?: string;
  /** How the target is reached: proxy, CA, client certificate. */
  network?: Network;
  /** Headers every request carries besides the suite's own (--header). */
  headers?: ExtraHeader[];
  /** When the run timeout ends the run (epoch ms): no check starts after it. */
  stopChecksAt?: number;
  /** At most this many requests per second (--rate); undefined: no cap. */
  rate?: number;
  /** Pages a list is read to before its completeness is unknown (--max-pages); undefined: MAX_PAGES. */
  maxPages?: number;
  /** How long a read waits for the run's own write to show (--converge-window), in ms; undefined: CONVERGE_WINDOW_MS. */
  convergeWindowMs?: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    target: TargetConfig;
  }
}
