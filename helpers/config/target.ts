import type { VendorConfig } from './vendor-config.ts';
import type { Limits } from '../core/limits.ts';

/** A request header given with --header; `secrets` are the values it took from the environment, by variable. */
export interface ExtraHeader {
  name: string;
  value: string;
  secrets?: { variable: string; value: string }[];
}

/** How the target is reached: the proxy (decided once, from the environment) and TLS material by file. */
export interface Network {
  /** The proxy every request to the target goes through; undefined: straight to the target. */
  proxy?: string;
  /** PEM files: a CA to trust besides the system's (--ca), a client certificate and its key (--cert, --key). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** What the command hands each suite file (through vitest's provide/inject); a limit left out is at its default (limitsOf). */
export interface TargetConfig extends Partial<Limits> {
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
  /**
   * Paths of the sentinel: GETs that worked at the preflight, the one the key was proven on first,
   * asked again before an anomaly is blamed on the target (helpers/http/client.ts). Undefined: no
   * sentinel, every answer is judged as it comes.
   */
  sentinels?: string[];
  /** Exploration after the checks (--explore, --explore-seed): how many commands, and the seed that draws them. */
  explore?: { commands: number; seed: number };
}

declare module 'vitest' {
  export interface ProvidedContext {
    target: TargetConfig;
    /** How many lanes run at once in the suite worker (--concurrency). */
    lanes: number;
  }
}
