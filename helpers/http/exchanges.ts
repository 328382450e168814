import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { eachLine } from '../core/lines.ts';

/** One request and what came back, already redacted: this is what reports and HAR files show. */
export interface Exchange {
  startedAt: string;
  durationMs: number;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    /** The body as text, cut to EXCERPT_BYTES. */
    body: string;
    bodyBytes: number;
    truncated: boolean;
  };
  /** Set when no complete answer came back (timeout, refused, body too large). */
  error?: string;
  /** 1 for the first attempt; higher when the request was retried. */
  attempt: number;
  /** Unique in the run: a check that shares another's step shows the same request, sent once. */
  id?: string;
}

/** A request on the wire, as the run's request log (requests.jsonl) holds it. */
export interface WireEntry {
  /** What the run was doing outside the checks: preflight, baseline, suite set-up or clean-up… */
  phase: string;
  exchange: Exchange;
}

/** The exchanges of the check that is running: concurrent checks each get their own log. */
const current = new AsyncLocalStorage<Exchange[]>();

/** Whether a check (or a step it shares) is running here: its requests are logged for its report. */
export const inCheck = (): boolean => current.getStore() !== undefined;

export function withExchangeLog<T>(log: Exchange[], fn: () => Promise<T>): Promise<T> {
  return current.run(log, fn);
}

/** Adds an exchange to the running check's report, once: a check may await a shared step twice. */
export function recordExchange(exchange: Exchange): void {
  const log = current.getStore();
  if (log && !(exchange.id !== undefined && log.some((e) => e.id === exchange.id))) log.push(exchange);
}

/**
 * The request log as written, read a line at a time (a long list's run logs tens of thousands); a
 * line torn by a killed worker is skipped. An exchange `held` already (a check's, by its id) is
 * given as that copy: the log's own would be a second one in memory.
 */
export function readRequestLog(file: string, held?: ReadonlyMap<string | undefined, Exchange>): WireEntry[] {
  if (!existsSync(file)) return [];
  const entries: WireEntry[] = [];
  eachLine(file, (line) => {
    try {
      if (!line.trim()) return;
      const entry = JSON.parse(line) as WireEntry;
      const same = entry.exchange.id === undefined ? undefined : held?.get(entry.exchange.id);
      entries.push(same ? { phase: entry.phase, exchange: same } : entry);
    } catch {
      // torn
    }
  });
  return entries;
}
