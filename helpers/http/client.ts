import type { Dispatcher } from 'undici';
import { request } from './undici-parts.ts';
import { excerpt, fillId, is2xx } from './basics.ts';
import type { TargetConfig } from '../config/target.ts';
import type { Operation } from '../contract/spec.ts';
import { isRecord } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { inCheck, loggedOnly, recordExchange, type Exchange, type WireEntry } from './exchanges.ts';
import { redactor } from './redact.ts';
import { rateLimiter } from './rate-limit.ts';
import { dispatcherFor, tlsFailure } from './network.ts';
import { environmentOf, type Environment } from './environment.ts';
import { limitsOf } from '../core/limits.ts';
import { sentBody, writing } from './write-activity.ts';

/** How much of a body an exchange keeps for reports. */
export const EXCERPT_BYTES = 16 * 1024;

/** Answers asked again at once, a few times: the target is busy, or a gateway in front of it failed. */
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
/** Quick retries of a transient answer before the sentinel is asked (250 ms, 500 ms, 1 s apart). */
export const MAX_RETRIES = 3;

/**
 * Thrown inside a check when a request's answer proves nothing about the implementation: the
 * target turned it away to the end (429 or 503 on the last retry, while the sentinel answered:
 * "not now"), the environment failed it (the target stopped answering, or the key is no longer
 * accepted, for the whole --retry-budget), or it met a limit of the suite (--max-body-mib). The
 * check, and every check that needed the answer, is blocked by `by`, never failed or passed on
 * it. Outside a check (the clean-up, which retries on its own terms; the preflight) the answer is
 * returned, or NoAnswerError thrown.
 */
export class TurnedAway extends Error {
  override name = 'TurnedAway';
  /** `sent`: the request went out (a create turned away after it may still have made its record). */
  constructor(readonly reason: string, readonly by: 'the target' | 'the environment' | 'the suite' = 'the target', readonly sent = true) {
    super(`blocked by ${by}: ${reason}`);
  }
}

/** A Retry-After longer than this is cut to it: the run must end in bounded time. */
export const RETRY_AFTER_CAP_MS = 10_000;
/** Wait before retry n when the target names no Retry-After: 250 ms, doubling, at most MAX_BACKOFF_MS. */
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4_000;

/** Which Authorization header a request carries. */
export type Auth = 'valid' | 'none' | 'expired' | { authorization: string };

/**
 * What a request carries besides its path, body and key, where it is not what the client sends
 * itself (the 401 matrix varies each: helpers/registries/business-auth.ts).
 */
export interface RequestShape {
  /** Headers that replace the client's own (Accept and Content-Type are application/json); undefined leaves one out. */
  headers?: Record<string, string | undefined>;
  /** A query string, "?" included. */
  query?: string;
  /** A connection of the caller's own (ApiClient.connection) instead of the client's pool. */
  connection?: Dispatcher;
}

export interface SendOptions extends RequestShape {
  method: string;
  /** Path under the base URL, starting with "/". */
  path: string;
  body?: unknown;
  auth?: Auth;
  /**
   * Where a body is taken as it arrives instead of whole (a list of any length: see
   * records/list-stream.ts): asked once an attempt's status and headers are in, it returns the
   * sink for that attempt's body, or undefined to read the body whole. The answer's text is then
   * only the body's first EXCERPT_BYTES, and its json what the sink made of the rest.
   */
  sink?: (status: number, headers: Record<string, string>) => BodySink | undefined;
  /** A create that puts back what the run changed (a member the target let it delete): sent even once the run creates nothing more (helpers/safety/journal.ts). */
  restoring?: boolean;
  /** How much of a body taken by a sink the exchange keeps for the reports (default EXCERPT_BYTES): a list's later pages keep less. */
  excerptBytes?: number;
  /**
   * The exchange is shown in the reports from the request log: until the run's end the checks hold
   * a stub of it (loggedOnly), where a request log is kept. A list's later pages: a million customers
   * are ~13 500 of them, which the checks' reports otherwise held in both threads all run long.
   */
  fromLog?: boolean;
}

/**
 * A body taken as it arrives: write() returns true once the sink needs no more of it; end() says
 * what it was; rows(), for a sink that takes whole records out as they come, how many it took.
 */
export interface BodySink {
  write(chunk: Uint8Array): boolean;
  end(): { json: unknown; jsonError?: string };
  rows?(): number;
}

/** For a request whose status is all that is judged: its body goes by unread, whatever its length. */
export const statusOnly = (): BodySink => ({ write: () => false, end: () => ({ json: undefined, jsonError: 'not read: only the status is judged' }) });

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

// The pure helpers live apart (basics.ts), so that --help and --version load no undici.
export { excerpt, fillId, is2xx } from './basics.ts';

/**
 * A creation, deletion or write, told as the target is asked or answers, so that the run can undo
 * it whatever happens next (helpers/safety/journal.ts hears these: see journalledClient).
 */
export type WriteEvent =
  | { kind: 'creating'; listPath: string }
  | { kind: 'created'; path: string; listPath: string; id: unknown }
  | { kind: 'deleting'; path: string }
  | { kind: 'deleted'; path: string }
  | { kind: 'wrote'; path: string; fields: string[]; values?: Record<string, unknown> };

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
  /** Requests sent that may change data (all but GET and HEAD): a read taken since the last of them is as current as a new one would be, as far as this run knows. */
  writesSent = 0;
  /** When the last answer to such a request came (epoch ms; 0 before any): reads of what this client wrote may lag from there (see quiesce). */
  lastWriteAt = 0;
  /**
   * Aborted when the run is cut short (a second Ctrl-C during the clean-up): what is under way ends
   * now, and nothing more is sent or journalled, so that the journal the reports are made from
   * says all this client may have done.
   */
  stopped?: AbortSignal;
  private readonly redact: (text: string) => string;
  private readonly dispatcher: Dispatcher;

  private readonly limiter?: ReturnType<typeof rateLimiter>;

  /**
   * Every attempt goes to `onWire` as it ends, or else to the run's request log
   * (target.requestLogFile): the record of every request on the wire, whoever sent it. Every
   * creation, deletion and write goes to `onWrite`.
   */
  constructor(
    /** Read by the list reader (paging, the page cap) where a helper is handed the client alone. */
    readonly target: TargetConfig,
    dispatcher?: Dispatcher,
    private readonly onWire?: (entry: WireEntry) => void,
    private readonly onWrite?: (event: WriteEvent) => void,
  ) {
    this.redact = redactor(target);
    this.limiter = rateLimiter(target.rate);
    this.dispatcher = dispatcher ?? dispatcherFor(target.network ?? {}, target.timeoutMs);
  }

  /** Calls a documented operation; `id` fills the path's {id}. */
  call(op: Operation, options: { id?: unknown; body?: unknown; auth?: Auth; sink?: SendOptions['sink']; restoring?: boolean } & RequestShape = {}): Promise<Answer> {
    const { id, ...sent } = options;
    return this.send({ method: op.method, path: fillId(op.path, id), ...sent });
  }

  /**
   * One new connection to the target, for requests that must go on it and no other (a fresh
   * connection; one that has just carried the valid key); the caller closes it. Through a plain
   * http proxy, it is the connection to the proxy.
   */
  connection(): Dispatcher {
    return dispatcherFor(this.target.network ?? {}, this.target.timeoutMs, 1);
  }

  /**
   * Sends a request; transient answers to requests that are safe to repeat are retried (see
   * retryDelay), each attempt recorded as its own exchange. Creations, deletions and writes go to
   * onWrite (the run journal) so that the run can undo them whatever happens next.
   *
   * Inside a check, an answer that may be the environment's rather than the implementation's (an
   * anomaly: see anomalyOf) is not judged before the sentinel (target.sentinels) is asked: while
   * it answers, the answer is the implementation's and stands; while it fails too, the request is
   * asked again with backoff until the environment has been down for --retry-budget, and then the
   * check is blocked by the environment. A POST that may have been taken is not asked again.
   */
  async send(options: SendOptions): Promise<Answer> {
    if (options.method === 'GET' || options.method === 'HEAD') return this.sendCounted(options);
    // Counted until its end, whatever it ends in: a list read meanwhile may be moved by it.
    const done = writing(options.method, options.path);
    sentBody(options.body);
    try {
      return await this.sendCounted(options);
    } finally {
      done();
    }
  }

  private async sendCounted(options: SendOptions): Promise<Answer> {
    const url = this.target.baseUrl + options.path + (options.query ?? '');
    const headers = this.headersFor(options);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const env = inCheck() && this.target.sentinels?.length ? environmentOf(this.target.runId) : undefined;
    const asked = `${options.method} ${options.path}`;
    const cutShort = () => new NoAnswerError(`${asked}: not sent: the run was cut short`);
    if (this.stopped?.aborted) throw cutShort();
    if (env?.gone) throw new TurnedAway(`${asked} was not sent: ${env.gone}`, 'the environment', false);
    // What --read-only promises a shared target is held here, whatever a check or lane forgets.
    if (this.target.readOnly && options.method !== 'GET' && options.method !== 'HEAD') throw new TurnedAway(`--read-only: ${asked} was not sent (a read-only run sends only GET)`, 'the suite', false);
    if (options.method !== 'GET' && options.method !== 'HEAD') this.writesSent += 1;
    if (options.method === 'PATCH') {
      const fields = options.body && typeof options.body === 'object' && !Array.isArray(options.body) ? Object.keys(options.body) : [];
      // The values too: a field the run put back that holds one of them later is the run's own write left, not another write's doing (helpers/safety/frame.ts).
      this.onWrite?.({ kind: 'wrote', path: options.path, fields, ...(fields.length ? { values: options.body as Record<string, unknown> } : {}) });
    }
    if (options.method === 'POST') this.onWrite?.({ kind: 'creating', listPath: options.path });
    // Even a delete the target refuses addresses its record: what changes there is not another's doing.
    if (options.method === 'DELETE') this.onWrite?.({ kind: 'deleting', path: options.path });
    // Whether the last answer came while the sentinel failed too: it proves nothing, once it answers again.
    let whileDown = false;
    // An attempt that got no answer may have been applied: a repeated DELETE then meets the record gone.
    let lost: string | undefined;
    for (let attempt = 1; ; attempt++) {
      await this.limiter?.wait();
      const outcome = await this.attempt(options, url, headers, body, attempt);
      if (this.stopped?.aborted) throw cutShort();
      if ('failure' in outcome) lost = outcome.failure;
      if ('limit' in outcome && inCheck()) throw new TurnedAway(`${asked}: ${outcome.failure}`, 'the suite');
      const trouble = anomalyOf(outcome, options.auth ?? 'valid');
      // A refused key is an answer in which the target says it did not take the request.
      const repeatable = retriable(options.method, outcome) || trouble === KEY_REFUSED;
      // Only an answer to the valid key says the key still works.
      if (trouble === undefined) {
        if ((options.auth ?? 'valid') === 'valid') env?.healthy();
      } else if (repeatable && attempt <= MAX_RETRIES && retryDelay(outcome, attempt) !== undefined) {
        await pause(retryDelay(outcome, attempt)!);
        continue;
      } else if (env) {
        const down = await this.sentinel(env, options, trouble);
        if (down === undefined && whileDown && repeatable) {
          whileDown = false;
          continue;
        }
        whileDown = down !== undefined;
        if (down !== undefined) {
          const left = env.downSince! + limitsOf(this.target).retryBudgetMs - Date.now();
          if (repeatable && left > 0) {
            await pause(Math.min(left, retryDelay(outcome, attempt, true)!));
            continue;
          }
          if (!repeatable) throw new TurnedAway(`${asked} ${trouble}, and ${down}: not asked again, as it may have been taken (the clean-up finds what it created by the run marker)`, 'the environment');
          env.blocked(down);
          throw new TurnedAway(`${down}: ${asked} ${trouble}, for ${limitsOf(this.target).retryBudgetMs / 1000} s (--retry-budget) and ${attempt} attempts`, 'the environment');
        }
      }
      // An outage the clean-up may wait out; a refused key does not come back by waiting.
      if (trouble !== undefined && trouble !== KEY_REFUSED) this.troubles += 1;
      if (options.method !== 'GET' && options.method !== 'HEAD') this.lastWriteAt = Date.now();
      if ('failure' in outcome) {
        // No answer says nothing of the implementation, whatever the sentinel says: the network or a proxy may have lost it.
        if (env) throw new TurnedAway(`${asked} ${trouble}${repeatable ? '' : ', and is not asked again, as it may have been taken (the clean-up finds what it created by the run marker)'}`, 'the environment');
        throw new NoAnswerError(`${asked}: ${outcome.failure}`);
      }
      this.journalAnswer(options, outcome);
      if (env && lost !== undefined && options.method === 'DELETE' && outcome.status === 404) {
        throw new TurnedAway(`${asked} got no answer (${lost}), and asked again answered 404: the first attempt may have deleted it`, 'the environment');
      }
      if (POST_RETRY_STATUSES.includes(outcome.status) && inCheck()) {
        throw new TurnedAway(`${asked} answered ${outcome.status} each of the ${attempt} times it was asked (the target says "not now"): try again later${outcome.status === 429 ? ', or with a lower --rate' : ''}`);
      }
      return outcome;
    }
  }

  /**
   * Asks the sentinel: the preflight's known-good request (the first of target.sentinels, the one
   * the key was proven on; for other trouble of that very request, the next). Why the environment
   * is down, or undefined while the sentinel answers as it did.
   */
  private sentinel(env: Environment, options: SendOptions, trouble: string): Promise<string | undefined> {
    const sentinels = this.target.sentinels!;
    const keyTrouble = trouble === KEY_REFUSED;
    const path = keyTrouble ? sentinels[0] : (sentinels.find((p) => options.method !== 'GET' || p !== options.path) ?? sentinels[0]);
    const ask: SendOptions = { method: 'GET', path };
    return env.sentinel(path, async () => {
      await this.limiter?.wait();
      const outcome = await this.attempt(ask, this.target.baseUrl + path, this.headersFor(ask), undefined, 1);
      const failed = anomalyOf(outcome, 'valid');
      if (failed === undefined) return undefined;
      // The preflight asked the first; the others are asked only when the first is the request in trouble.
      const said = `GET ${path}, ${path === sentinels[0] ? 'the request that worked at the start' : 'a known-good request'}, ${failed}`;
      return failed === KEY_REFUSED ? `the key is no longer accepted (${said})` : `the target stopped answering (${said})`;
    });
  }

  private headersFor(options: SendOptions): Record<string, string> {
    const headers: Record<string, string> = Object.fromEntries((this.target.headers ?? []).map((h) => [h.name.toLowerCase(), h.value]));
    headers.accept = 'application/json';
    const authorization = this.authorization(options.auth ?? 'valid');
    if (authorization !== undefined) headers.authorization = authorization;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === undefined) delete headers[name.toLowerCase()];
      else headers[name.toLowerCase()] = value;
    }
    return headers;
  }

  private async attempt(
    options: SendOptions,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    attempt: number,
  ): Promise<Answer | Failure> {
    const started = Date.now();
    const exchange: Exchange = {
      startedAt: new Date(started).toISOString(),
      durationMs: 0,
      request: { method: options.method, url, headers: this.redactHeaders(headers), body: body && this.redact(body) },
      attempt,
      id: nextExchangeId(),
    };
    // The timeout bounds a whole answer; for a body taken as it arrives (a list of any length,
    // parsed on the way at a pace of the suite's own), it bounds what comes between two rows, as
    // the byte cap does: a list of any length may take its time, a body trickling a byte at a
    // time still ends within it (a wait for each chunk would let it hold the run for ever).
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const wait = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(new DOMException(`no answer in ${this.target.timeoutMs} ms`, 'TimeoutError')), this.target.timeoutMs);
    };
    wait();
    try {
      // undici's request() never follows redirects: a 3xx is reported as the answer it is,
      // and the key is never sent to another origin.
      const res = await request(options.connection ?? this.dispatcher, url, {
        method: options.method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: this.stopped ? AbortSignal.any([abort.signal, this.stopped]) : abort.signal,
      });
      const resHeaders = flattenHeaders(res.headers);
      const sink = options.sink?.(res.statusCode, resHeaders);
      const excerpt = sink ? Math.min(options.excerptBytes ?? EXCERPT_BYTES, EXCERPT_BYTES) : EXCERPT_BYTES;
      const { text, bytes, parsed } = sink ? await readInto(res.body, sink, wait, excerpt) : await readCapped(res.body, limitsOf(this.target).maxBodyBytes);
      exchange.response = {
        status: res.statusCode,
        headers: this.redactHeaders(resHeaders),
        body: this.redact(text.slice(0, excerpt)),
        bodyBytes: bytes,
        truncated: bytes > excerpt,
      };
      exchange.durationMs = Date.now() - started;
      this.record(exchange, options.fromLog);
      return { status: res.statusCode, headers: resHeaders, text, ...(parsed ?? parseJson(text)), exchange };
    } catch (e) {
      exchange.durationMs = Date.now() - started;
      exchange.error = this.redact(describeFailure(e, this.target.timeoutMs));
      this.record(exchange);
      return { failure: exchange.error, transient: isConnectionReset(e), ...(e instanceof BodyTooLarge && { limit: true as const }) };
    } finally {
      clearTimeout(timer);
    }
  }

  private record(exchange: Exchange, fromLog = false): void {
    // A page that did not answer 2xx is held whole: a check's reason may quote it (a redirect's Location).
    const stub = fromLog && !this.onWire && this.target.requestLogFile && exchange.response && is2xx(exchange.response);
    recordExchange(stub ? loggedOnly(exchange) : exchange);
    const entry = { phase: this.phase, exchange };
    if (this.onWire) this.onWire(entry);
    else if (this.target.requestLogFile) appendFileSync(this.target.requestLogFile, `${JSON.stringify(entry)}\n`);
  }

  private journalAnswer(options: SendOptions, answer: Answer): void {
    if (!this.onWrite) return;
    const ok = is2xx(answer);
    if (options.method === 'POST' && ok) {
      const id = recordIn(answer.json, this.target.vendor.idField, isRecord(options.body) ? { sent: options.body } : undefined)?.[this.target.vendor.idField];
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

/** No complete answer: what happened, whether it is worth asking again at once, and whether it was a limit of the suite. */
type Failure = { failure: string; transient: boolean; limit?: true };

/** What the sentinel answering 401 to the valid key is said to do. */
const KEY_REFUSED = 'answered 401 to the valid key';

/**
 * What may be the environment's rather than the implementation's in an outcome, as a phrase
 * ("answered 502 with an HTML page"), or undefined: a 5xx or 429 whatever its body, no complete
 * answer (a reset, a timeout, a refused connection), the valid key refused (the preflight proved
 * it). A limit of the suite is not the environment's either: it is reported apart.
 */
export function anomalyOf(outcome: Answer | Failure, auth: Auth): string | undefined {
  if ('failure' in outcome) return outcome.limit ? undefined : `got no answer (${outcome.failure})`;
  if (outcome.status >= 500 || outcome.status === 429) return `answered ${outcome.status}${/^text\/html/i.test(outcome.headers['content-type'] ?? '') ? ' with an HTML page' : ''}`;
  if (outcome.status === 401 && auth === 'valid') return KEY_REFUSED;
  return undefined;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retriable(method: string, outcome: { status: number } | { transient: boolean }): boolean {
  if (RETRIED_METHODS.includes(method)) return true;
  return method === 'POST' && 'status' in outcome && POST_RETRY_STATUSES.includes(outcome.status);
}

/**
 * How long to wait before repeating an attempt, or undefined when it is not worth repeating at
 * once; `anomaly`: it is worth repeating (the sentinel says the environment is down).
 */
export function retryDelay(outcome: { status: number; headers: Record<string, string> } | { transient: boolean }, attempt: number, anomaly = false): number | undefined {
  const backoff = Math.min(BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  if ('transient' in outcome) return outcome.transient || anomaly ? backoff : undefined;
  if (!TRANSIENT_STATUSES.includes(outcome.status)) return anomaly ? backoff : undefined;
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

/** A body (or, in a body taken by a sink, one record of it) past the suite's limit: thrown by the reader or the sink. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number, what = 'response body') {
    super(`${what} larger than ${limit / 1024 / 1024} MiB, the suite's limit (--max-body-mib raises it)`);
  }
}

/** Hands the body to `sink` chunk by chunk, keeping only its first `excerpt` bytes as text (for reports and messages). */
async function readInto(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, sink: BodySink, progress: () => void, excerpt: number): Promise<{ text: string; bytes: number; parsed: ReturnType<BodySink['end']> }> {
  const head: Buffer[] = [];
  let bytes = 0;
  let rows = sink.rows?.();
  for await (const chunk of body) {
    // A sink that takes no records out (a body going by unread) has no row to wait for: each chunk counts.
    if (rows === undefined) progress();
    if (bytes < excerpt) head.push(chunk.subarray(0, excerpt - bytes));
    bytes += chunk.length;
    const done = sink.write(chunk);
    if (rows !== undefined && sink.rows!() !== rows) {
      rows = sink.rows!();
      progress();
    }
    if (done) {
      body.destroy();
      break;
    }
  }
  return { text: Buffer.concat(head).toString('utf8'), bytes, parsed: sink.end() };
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, limit: number): Promise<{ text: string; bytes: number; parsed?: undefined }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > limit) {
      body.destroy();
      throw new BodyTooLarge(limit);
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

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function describeFailure(e: unknown, timeoutMs: number): string {
  if (e instanceof BodyTooLarge) return e.message;
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
