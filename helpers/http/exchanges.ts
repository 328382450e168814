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
  /** A stub: its headers and body are in the request log, whose copy the reports show (loggedOnly). */
  inLog?: true;
}

const NONE: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * What a check holds of an exchange the request log keeps (ApiClient's `fromLog`): what it was
 * and what came back, without headers or body, until the run's result takes the log's copy
 * (withLoggedExchanges).
 */
export function loggedOnly(e: Exchange): Exchange {
  const r = e.response;
  return {
    startedAt: e.startedAt,
    durationMs: e.durationMs,
    attempt: e.attempt,
    id: e.id,
    inLog: true,
    request: { method: e.request.method, url: e.request.url, headers: NONE },
    ...(r && { response: { status: r.status, headers: NONE, body: '', bodyBytes: r.bodyBytes, truncated: true } }),
    ...(e.error !== undefined && { error: e.error }),
  };
}

/**
 * The request log as written (readRequestLog), each stub the checks and observations hold
 * replaced in place by the log's copy: a request is in memory once, and whole only from here on.
 */
export function withLoggedExchanges(file: string, holders: readonly { exchanges: Exchange[] }[]): WireEntry[] {
  const held = new Map(holders.flatMap((c) => c.exchanges.filter((e) => !e.inLog).map((e) => [e.id, e] as const)));
  const requests = readRequestLog(file, held);
  const stubbed = new Set(holders.flatMap((c) => c.exchanges.filter((e) => e.inLog).map((e) => e.id)));
  if (!stubbed.size) return requests;
  const logged = new Map(requests.filter((r) => stubbed.has(r.exchange.id)).map((r) => [r.exchange.id, r.exchange]));
  for (const c of holders) {
    c.exchanges.forEach((e, i) => {
      if (!e.inLog) return;
      const whole = logged.get(e.id);
      // A line the log lost (a torn last line, a full disk): the stub is what the run knows of it.
      if (whole) c.exchanges[i] = whole;
      else delete e.inLog;
    });
  }
  return requests;
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
