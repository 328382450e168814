import { randomBytes } from 'node:crypto';
import { ApiClient, is2xx, NoAnswerError, TRANSIENT_STATUSES, type Answer } from '../http/client.ts';
import { RunTimeoutError, TargetError, UsageError } from '../core/errors.ts';
import { businessFieldName, businessRecordIn } from '../records/record-shapes.ts';
import { isRecord } from '../contract/record.ts';
import { diagnoseTls, proxyShown } from '../http/network.ts';
import type { TargetConfig } from '../config/target.ts';
import type { WireEntry } from '../http/exchanges.ts';
import { loadSpec, type Spec } from '../contract/spec.ts';
import { businessOps, everyResource, type ResourceOps } from '../contract/resource-ops.ts';

/** Pause between two tries of a target that does not answer yet (--wait-for-target). */
const WAIT_STEP_MS = 1000;

/**
 * A few requests before the suites: a target that cannot be reached, that refuses the key, or
 * that is not the Scheduling API at all ends the run at once with one clear line instead of a
 * screen of failed checks; so does a retrieval whose record could sit under two properties, or
 * not under the configured one. With `waitMs`
 * (--wait-for-target) a target that does not answer yet, or whose gateway answers 502/503/504,
 * is asked again until it answers or the time is up. Returns how long it paused between tries.
 */
export async function preflight(target: TargetConfig, wait: { waitMs?: number; say?: (text: string) => void; runEndsAt?: number } = {}, onWire?: (entry: WireEntry) => void): Promise<number> {
  const started = Date.now();
  const asker = new StartUpAsker(target, wait.runEndsAt ?? Infinity, onWire);
  try {
    const spec = await loadSpec();
    const { retrieve } = businessOps(spec);
    const { answer, failure, tries } = await retrievalAnswer(asker, retrieve.path, { ...wait, started });
    const after = wait.waitMs && tries > 1 ? ` (after ${Math.round((Date.now() - started) / 1000)} s of --wait-for-target)` : '';
    const via = target.network?.proxy ? ` (through the proxy ${proxyShown(target.network.proxy)})` : '';
    if (answer === undefined) throw asker.unreachable(`${failure}${after}`, via);
    if (answer.status === 401) throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}${retrieve.path} answered 401 with the given key`);
    // The retrieval's body is not shown: where the record sits in it is learned, never guessed.
    if (answer.status === 200 && isRecord(answer.json)) {
      const names = spec.businessFields.map((f) => businessFieldName(f.specName, f.vendorConfigKey, target));
      const read = businessRecordIn(answer.json, names, target.vendor.businessEnvelope);
      if ('problem' in read) throw new UsageError(`GET ${target.baseUrl}${retrieve.path}: ${read.problem}`);
    }
    const missing = await noApi((path) => asker.ask(path), spec, answer).catch((e: Error) => {
      throw e instanceof NoAnswerError ? asker.unreachable(e.message.replace(/^GET \S+: /, ''), via) : e;
    });
    // A redirect is followed by no request of the suite (the key goes to the configured origin only): say where it pointed.
    const moved = answer.status >= 300 && answer.status < 400 && answer.headers.location ? ` (GET ${retrieve.path} answered ${answer.status} with Location: ${answer.headers.location}; no redirect is followed)` : '';
    if (missing) throw new TargetError(`no Scheduling API v1 at ${target.baseUrl}: ${missing}${moved} — is the base URL right?`);
    return asker.paused;
  } finally {
    await asker.close();
  }
}

/**
 * The preflight's requests. Start-up counts (--run-timeout): each request's timeout is cut to what
 * is left of the run; only the pauses are --wait-for-target's, so they do not count.
 */
class StartUpAsker {
  paused = 0;
  /** Whether the last request's timeout was cut to the run's end. */
  private cut = false;
  private readonly bounded: TargetConfig;
  private readonly client: ApiClient;

  constructor(
    readonly target: TargetConfig,
    private readonly runEndsAt: number,
    onWire?: (entry: WireEntry) => void,
  ) {
    this.bounded = { ...target };
    this.client = new ApiClient(this.bounded, undefined, onWire);
    this.client.phase = 'preflight';
  }

  ask(path: string): Promise<Answer> {
    const left = this.runEndsAt + this.paused - Date.now();
    if (left <= 0) throw new RunTimeoutError(`run timeout: the --run-timeout ran out during start-up, before GET ${this.target.baseUrl}${path} was asked; nothing was changed`);
    this.bounded.timeoutMs = Math.min(this.target.timeoutMs, Math.ceil(left));
    this.cut = this.bounded.timeoutMs < this.target.timeoutMs;
    return this.client.send({ method: 'GET', path });
  }

  /** One try: the answer, or why none came. A TLS failure does not go away by waiting (the certificate, CA or client certificate is wrong), nor does the run's end. */
  async try(path: string): Promise<{ answer: Answer; failure?: undefined } | { answer?: undefined; failure: string }> {
    try {
      return { answer: await this.ask(path) };
    } catch (e) {
      if (!(e instanceof NoAnswerError)) throw e;
      let failure = e.message.replace(/^GET \S+: /, '');
      if (failure === 'connection reset by the target') failure = (await diagnoseTls(this.target.baseUrl, this.target.network ?? {}, this.target.timeoutMs)) ?? failure;
      if (failure.startsWith('TLS')) throw new TargetError(`${this.target.baseUrl}: ${failure}`);
      if (this.cut) throw this.unreachable(failure);
      return { failure };
    }
  }

  async pause(ms: number): Promise<void> {
    const pauseStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.paused += Date.now() - pauseStarted;
  }

  unreachable(failure: string, via = ''): Error {
    return this.cut && failure.startsWith('no answer in')
      ? new RunTimeoutError(`run timeout: the --run-timeout ran out during start-up: ${this.target.baseUrl}${via} gave ${failure} (the time left of the run); nothing was changed`)
      : new TargetError(`target unreachable: ${this.target.baseUrl}${via}: ${failure}`);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The retrieval's answer, asked again while the target does not answer or its gateway answers 502/503/504, for up to `waitMs` from `started`. */
async function retrievalAnswer(asker: StartUpAsker, path: string, wait: { waitMs?: number; say?: (text: string) => void; started: number }) {
  const waitMs = wait.waitMs ?? 0;
  for (let tries = 1; ; tries++) {
    const tried = await asker.try(path);
    const waiting = tried.answer === undefined || TRANSIENT_STATUSES.includes(tried.answer.status);
    const left = wait.started + waitMs - Date.now();
    if (!waiting || left <= 0) return { ...tried, tries };
    if (tries === 1) wait.say?.(`waiting up to ${waitMs / 1000} s for ${asker.target.baseUrl} to answer (--wait-for-target)\n`);
    await asker.pause(Math.min(WAIT_STEP_MS, left));
  }
}

/**
 * The sentinel's paths (TargetConfig.sentinels): the documented GETs that need no id, as the
 * preflight asks them, the singleton first (the business retrieval, on which the key was proven),
 * then collections the run cannot grow, then the rest: the smallest known-good answers first.
 */
export function sentinelPaths(spec: Spec): string[] {
  const rank = ({ list, update, create }: ResourceOps) => (update?.path === list?.path ? 0 : create?.path === list?.path ? 2 : 1);
  return everyResource(spec)
    .filter(({ ops }) => ops.list)
    .toSorted((a, b) => rank(a.ops) - rank(b.ops))
    .map(({ ops }) => ops.list!.path);
}

/** The documented GETs that need no id: each resource's list, or the singleton's retrieval. */
const readsWithoutId = (spec: Spec) => everyResource(spec).flatMap(({ ops }) => (ops.list ? [ops.list.path] : []));

const isHtml = (a: Answer) => /^text\/html/i.test(a.headers['content-type'] ?? '') || /^\s*<(!doctype|html)/i.test(a.text);

/** Whether an answer is a business record: a 2xx JSON object with a documented field, at its top or one level down (an envelope). */
function looksLikeTheBusiness(answer: Answer, fields: string[]): boolean {
  if (!is2xx(answer) || !isRecord(answer.json)) return false;
  const hasField = (row: Record<string, unknown>) => fields.some((f) => f in row);
  return hasField(answer.json) || Object.values(answer.json).some((v) => isRecord(v) && hasField(v));
}

/**
 * Why the target cannot be the Scheduling API, or undefined when it may be. Nothing more is asked
 * when the retrieval answered a business record. Else every documented path that needs no id
 * (GET, so nothing changes) and, if they all answered alike, one undocumented path: only when
 * *every* documented path answers 404, HTML, or what any path answers is it no API; one missing
 * route is a finding the checks report.
 */
async function noApi(ask: (path: string) => Promise<Answer>, spec: Spec, business: Answer): Promise<string | undefined> {
  if (looksLikeTheBusiness(business, spec.businessFields.map((f) => f.specName))) return undefined;
  const retrieve = businessOps(spec).retrieve;
  const paths = readsWithoutId(spec).filter((p) => p !== retrieve.path);
  const answers: Answer[] = [business];
  for (const path of paths) answers.push(await ask(path));
  if (answers.every((a) => a.status === 404)) return 'every documented path answered 404';
  if (answers.every(isHtml)) return 'every documented path answered an HTML page';
  const same = (a: Answer, b: Answer) => a.status === b.status && a.text === b.text;
  if (answers.every((a) => same(a, answers[0]))) {
    // A path beside the retrieval's, under the same version prefix, that the contract does not have.
    const control = await ask(retrieve.path.replace(/[^/]+$/, `scr-no-such-path-${randomBytes(4).toString('hex')}`));
    if (same(control, answers[0])) return `every documented path answered ${answers[0].status} with the same body as a path the contract does not have`;
  }
  return undefined;
}
