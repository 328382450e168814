import { request, type Dispatcher } from 'undici';
import type { TargetConfig } from '../config/target.ts';
import type { Operation } from '../contract/spec.ts';
import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { inCheck, recordExchange, type Exchange, type WireEntry } from './exchanges.ts';
import { redactor } from './redact.ts';
import { rateLimiter } from './rate-limit.ts';
import { dispatcherFor, tlsFailure } from './network.ts';

/** Bodies beyond this fail the check instead of filling memory. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** How much of a body an exchange keeps for reports. */
export const EXCERPT_BYTES = 16 * 1024;

/** Answers worth asking again: the target is busy, or a gateway in front of it failed. */
export const TRANSIENT_STATUSES = [429, 502, 503, 504];
/**
 * Methods retried after any transient answer: repeating them has the same effect.
 */
export const RETRIED_METHODS = ['GET', 'DELETE', 'PATCH'];
/**
 * A POST is not repeated blindly: after a reset, a timeout or a gateway error (502, 504) the
 * record may have been created with the answer lost (the journal and the run marker find such
 * records instead). Only 429 and 503 are answers in which the target itself says it did not take
 * the request, so only those are asked again.
 */
export const POST_RETRY_STATUSES = [429, 503];
export const MAX_RETRIES = 3;

/**
 * Thrown inside a check when the target turned a request away to the end: 429 or 503 on the last
 * retry. The target says "not now", which is no verdict on the contract, so the check, and every
 * check that needed the answer, is blocked by the target, never failed or passed on it. Outside a
 * check (the clean-up, which retries on its own terms; the preflight) the answer is returned.
 */
export class TurnedAway extends Error {
  override name = 'TurnedAway';
  readonly by = 'the target';
  constructor(readonly reason: string) {
    super(`blocked by the target: ${reason}`);
  }
}

/** A Retry-After longer than this is cut to it: the run must end in bounded time. */
export const RETRY_AFTER_CAP_MS = 10_000;
/** Wait before retry n when the target names no Retry-After: 250 ms, 500 ms, 1 s. */
const BACKOFF_MS = 250;

/** Which Authorization header a request carries. */
export type Auth = 'valid' | 'none' | 'expired' | { authorization: string };

export interface SendOptions {
  method: string;
  /** Path under the base URL, starting with "/". */
  path: string;
  body?: unknown;
  auth?: Auth;
  /** Accept header; the contract requires application/json on the business operations. */
  accept?: string;
}

/** A complete answer from the target. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when the body is empty or not JSON (see jsonError). */
  json: unknown;
  jsonError?: string;
  exchange: Exchange;
}

/**
 * Whether an answer is a success: any 2xx, since the contract shows no status for most
 * operations. The one test of it, for checks and clean-up alike.
 */
export const is2xx = (answer: { status: number }): boolean => answer.status >= 200 && answer.status < 300;

/** The path of one record: `path` with its {id} filled in by the URL-encoded id (e.g. `${collection}/{id}`). */
export const fillId = (path: string, id: unknown): string => path.replace(/\{[^}]+\}/, () => encodeURIComponent(String(id)));

/**
 * A creation, deletion or write, told as the target is asked or answers, so that the run can undo
 * it whatever happens next (helpers/safety/journal.ts hears these: see journalledClient).
 */
export type WriteEvent =
  | { kind: 'creating'; listPath: string }
  | { kind: 'created'; path: string; listPath: string; id: unknown }
  | { kind: 'deleted'; path: string }
  | { kind: 'wrote'; path: string; fields: string[] };

/** The target did not give a complete answer; the message says what happened, in one line. */
export class NoAnswerError extends Error {
  override name = 'NoAnswerError';
}

let sent = 0;
/** An id no other request of the run carries: the process, the worker thread, and a counter. */
const nextExchangeId = () => `${process.pid}.${threadId}.${++sent}`;

export class ApiClient {
  /** What the run is doing, for the request log (see WireEntry): the suites' requests, checks and their set-up alike, are "suites". */
  phase = 'suites';
  /** Requests that ended without an answer or with a server error (5xx, 429): an outage, not a verdict. */
  troubles = 0;
  private readonly redact: (text: string) => string;
  private readonly dispatcher: Dispatcher;

  private readonly limiter?: ReturnType<typeof rateLimiter>;

  /**
   * Every attempt goes to `onWire` as it ends, or else to the run's request log
   * (target.requestLogFile): the record of every request on the wire, whoever sent it. Every
   * creation, deletion and write goes to `onWrite`.
   */
  constructor(
    private readonly target: TargetConfig,
    dispatcher?: Dispatcher,
    private readonly onWire?: (entry: WireEntry) => void,
    private readonly onWrite?: (event: WriteEvent) => void,
  ) {
    this.redact = redactor(target);
    this.limiter = rateLimiter(target.rate);
    this.dispatcher = dispatcher ?? dispatcherFor(target.network ?? {}, target.timeoutMs);
  }

  /** Calls a documented operation; `id` fills the path's {id}. */
  call(op: Operation, options: { id?: unknown; body?: unknown; auth?: Auth } = {}): Promise<Answer> {
    return this.send({ method: op.method, path: fillId(op.path, options.id), body: options.body, auth: options.auth });
  }

  /**
   * Sends a request; transient answers to requests that are safe to repeat are retried (see
   * retryDelay), each attempt recorded as its own exchange. Creations, deletions and writes go to
   * onWrite (the run journal) so that the run can undo them whatever happens next.
   */
  async send(options: SendOptions): Promise<Answer> {
    const url = this.target.baseUrl + options.path;
    const headers: Record<string, string> = Object.fromEntries((this.target.headers ?? []).map((h) => [h.name.toLowerCase(), h.value]));
    headers.accept = options.accept ?? 'application/json';
    const authorization = this.authorization(options.auth ?? 'valid');
    if (authorization !== undefined) headers.authorization = authorization;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    if (options.method === 'PATCH') {
      const fields = options.body && typeof options.body === 'object' && !Array.isArray(options.body) ? Object.keys(options.body) : [];
      this.onWrite?.({ kind: 'wrote', path: options.path, fields });
    }
    if (options.method === 'POST') this.onWrite?.({ kind: 'creating', listPath: options.path });
    for (let attempt = 1; ; attempt++) {
      await this.limiter?.wait();
      const outcome = await this.attempt(options, url, headers, body, attempt);
      const delay = attempt <= MAX_RETRIES && retriable(options.method, outcome) ? retryDelay(outcome, attempt) : undefined;
      if (delay === undefined) {
        if ('failure' in outcome || outcome.status >= 500 || outcome.status === 429) this.troubles += 1;
        if ('failure' in outcome) throw new NoAnswerError(`${options.method} ${options.path}: ${outcome.failure}`);
        this.journalAnswer(options, outcome);
        if (POST_RETRY_STATUSES.includes(outcome.status) && inCheck()) {
          throw new TurnedAway(`${options.method} ${options.path} answered ${outcome.status} each of the ${attempt} times it was asked (the target says "not now"): try again later${outcome.status === 429 ? ', or with a lower --rate' : ''}`);
        }
        return outcome;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private async attempt(
    options: SendOptions,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    attempt: number,
  ): Promise<Answer | { failure: string; transient: boolean }> {
    const started = Date.now();
    const exchange: Exchange = {
      startedAt: new Date(started).toISOString(),
      durationMs: 0,
      request: { method: options.method, url, headers: this.redactHeaders(headers), body: body && this.redact(body) },
      attempt,
      id: nextExchangeId(),
    };
    try {
      // undici's request() never follows redirects: a 3xx is reported as the answer it is,
      // and the key is never sent to another origin.
      const res = await request(url, {
        method: options.method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.target.timeoutMs),
      });
      const { text, bytes } = await readCapped(res.body);
      const resHeaders = flattenHeaders(res.headers);
      exchange.response = {
        status: res.statusCode,
        headers: this.redactHeaders(resHeaders),
        body: this.redact(text.slice(0, EXCERPT_BYTES)),
        bodyBytes: bytes,
        truncated: text.length > EXCERPT_BYTES,
      };
      exchange.durationMs = Date.now() - started;
      this.record(exchange);
      return { status: res.statusCode, headers: resHeaders, text, ...parseJson(text), exchange };
    } catch (e) {
      exchange.durationMs = Date.now() - started;
      exchange.error = this.redact(describeFailure(e, this.target.timeoutMs));
      this.record(exchange);
      return { failure: exchange.error, transient: isConnectionReset(e) };
    }
  }

  private record(exchange: Exchange): void {
    recordExchange(exchange);
    const entry = { phase: this.phase, exchange };
    if (this.onWire) this.onWire(entry);
    else if (this.target.requestLogFile) appendFileSync(this.target.requestLogFile, `${JSON.stringify(entry)}\n`);
  }

  private journalAnswer(options: SendOptions, answer: Answer): void {
    if (!this.onWrite) return;
    const ok = is2xx(answer);
    if (options.method === 'POST' && ok && answer.json && typeof answer.json === 'object' && !Array.isArray(answer.json)) {
      const id = (answer.json as Record<string, unknown>)[this.target.vendor.idField];
      if (id !== undefined && id !== null) {
        this.onWrite({ kind: 'created', path: fillId(`${options.path}/{id}`, id), listPath: options.path, id });
      }
    }
    if (options.method === 'DELETE' && (ok || answer.status === 404)) this.onWrite({ kind: 'deleted', path: options.path });
  }

  private authorization(auth: Auth): string | undefined {
    if (auth === 'none') return undefined;
    if (auth === 'valid') return `Bearer ${this.target.apiKey}`;
    if (auth === 'expired') return `Bearer ${this.target.expiredKey ?? ''}`;
    return auth.authorization;
  }

  private redactHeaders(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, this.redact(v)]));
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

function retriable(method: string, outcome: { status: number } | { transient: boolean }): boolean {
  if (RETRIED_METHODS.includes(method)) return true;
  return method === 'POST' && 'status' in outcome && POST_RETRY_STATUSES.includes(outcome.status);
}

/** How long to wait before repeating an attempt, or undefined when it is not worth repeating. */
export function retryDelay(outcome: { status: number; headers: Record<string, string> } | { transient: boolean }, attempt: number): number | undefined {
  const backoff = BACKOFF_MS * 2 ** (attempt - 1);
  if ('transient' in outcome) return outcome.transient ? backoff : undefined;
  if (!TRANSIENT_STATUSES.includes(outcome.status)) return undefined;
  const retryAfter = outcome.headers['retry-after'];
  if (retryAfter === undefined) return backoff;
  const seconds = Number(retryAfter);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS) : backoff;
}

function isConnectionReset(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

class BodyTooLarge extends Error {}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }): Promise<{ text: string; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > MAX_BODY_BYTES) {
      body.destroy();
      throw new BodyTooLarge();
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes };
}

function parseJson(text: string): { json: unknown; jsonError?: string } {
  if (text.trim() === '') return { json: undefined, jsonError: 'empty body' };
  try {
    return { json: JSON.parse(text) };
  } catch (e) {
    return { json: undefined, jsonError: `not JSON (${(e as Error).message}): ${excerpt(text)}` };
  }
}

/** A short, single-line excerpt of a body, for messages. */
export function excerpt(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > max ? `${line.slice(0, max)}…` : line);
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function describeFailure(e: unknown, timeoutMs: number): string {
  if (e instanceof BodyTooLarge) return `response body larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`;
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  if (err.name === 'TimeoutError' || err.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `no answer in ${timeoutMs / 1000} s`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found (DNS)';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the target';
  const tls = tlsFailure(code, err.cause?.message ?? err.message ?? '');
  if (tls) return tls;
  return (err.message ?? String(e)).split('\n')[0];
}
