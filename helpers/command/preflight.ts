import { randomBytes } from 'node:crypto';
import { ApiClient, is2xx, NoAnswerError, TRANSIENT_STATUSES, type Answer } from '../http/client.ts';
import { TargetError, UsageError } from '../core/errors.ts';
import { businessFieldName, businessRecordIn } from '../records/record-shapes.ts';
import { isRecord } from '../contract/record.ts';
import { diagnoseTls, proxyShown } from '../http/network.ts';
import type { TargetConfig } from '../config/target.ts';
import type { WireEntry } from '../http/exchanges.ts';
import { loadSpec, type Spec } from '../contract/spec.ts';
import { businessOps } from '../contract/resource-ops.ts';

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
  const waitMs = wait.waitMs ?? 0;
  // Only the pauses are --wait-for-target's: the requests themselves are start-up, and count.
  let paused = 0;
  // Start-up counts (--run-timeout): each request's timeout is cut to what is left of the run.
  const bounded: TargetConfig = { ...target };
  const client = new ApiClient(bounded, undefined, onWire);
  client.phase = 'preflight';
  const spec = await loadSpec();
  const { retrieve } = businessOps(spec);
  let cut = false;
  const ask = (path: string) => {
    const left = (wait.runEndsAt ?? Infinity) + paused - Date.now();
    if (left <= 0) throw new TargetError(`run timeout: the --run-timeout ran out during start-up, before GET ${target.baseUrl}${path} was asked; nothing was changed`);
    bounded.timeoutMs = Math.min(target.timeoutMs, Math.ceil(left));
    cut = bounded.timeoutMs < target.timeoutMs;
    return client.send({ method: 'GET', path });
  };
  const unreachable = (failure: string, via = '') =>
    cut && failure.startsWith('no answer in')
      ? new TargetError(`run timeout: the --run-timeout ran out during start-up: ${target.baseUrl}${via} gave ${failure} (the time left of the run); nothing was changed`)
      : new TargetError(`target unreachable: ${target.baseUrl}${via}: ${failure}`);
  try {
    for (let tries = 1; ; tries++) {
      let answer: Answer | undefined;
      let failure: string | undefined;
      try {
        answer = await ask(retrieve.path);
      } catch (e) {
        if (!(e instanceof NoAnswerError)) throw e;
        failure = e.message.replace(/^GET \S+: /, '');
        if (failure === 'connection reset by the target') failure = (await diagnoseTls(target.baseUrl, target.network ?? {}, target.timeoutMs)) ?? failure;
        // A TLS failure does not go away by waiting: the certificate, CA or client certificate is wrong.
        if (failure.startsWith('TLS')) throw new TargetError(`${target.baseUrl}: ${failure}`);
        if (cut) throw unreachable(failure);
      }
      const waiting = failure !== undefined || (answer !== undefined && TRANSIENT_STATUSES.includes(answer.status));
      const left = started + waitMs - Date.now();
      if (waiting && left > 0) {
        if (tries === 1) wait.say?.(`waiting up to ${waitMs / 1000} s for ${target.baseUrl} to answer (--wait-for-target)\n`);
        const pauseStarted = Date.now();
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_STEP_MS, left)));
        paused += Date.now() - pauseStarted;
        continue;
      }
      const after = waitMs && tries > 1 ? ` (after ${Math.round((Date.now() - started) / 1000)} s of --wait-for-target)` : '';
      const via = target.network?.proxy ? ` (through the proxy ${proxyShown(target.network.proxy)})` : '';
      if (failure !== undefined) throw unreachable(`${failure}${after}`, via);
      if (answer?.status === 401) {
        throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}${retrieve.path} answered 401 with the given key`);
      }
      // The retrieval's body is not shown: where the record sits in it is learned, never guessed.
      if (answer?.status === 200 && isRecord(answer.json)) {
        const names = spec.businessFields.map((f) => businessFieldName(f.specName, f.vendorConfigKey, target));
        const read = businessRecordIn(answer.json, names, target.vendor.businessEnvelope);
        if ('problem' in read) throw new UsageError(`GET ${target.baseUrl}${retrieve.path}: ${read.problem}`);
      }
      const missing = await noApi(ask, spec, answer!).catch((e: Error) => {
        if (e instanceof NoAnswerError) throw unreachable(e.message.replace(/^GET \S+: /, ''), via);
        throw e;
      });
      if (missing) throw new TargetError(`no Scheduling API v1 at ${target.baseUrl}: ${missing} — is the base URL right?`);
      return paused;
    }
  } finally {
    await client.close();
  }
}

/**
 * The sentinel's paths (TargetConfig.sentinels): the documented GETs that need no id, as the
 * preflight asks them, the singleton first (the business retrieval, on which the key was proven),
 * then collections the run cannot grow, then the rest: the smallest known-good answers first.
 */
export function sentinelPaths(spec: Spec): string[] {
  const has = (method: string, path: string) => spec.operations.some((o) => o.method === method && o.path === path);
  const rank = (path: string) => (has('PATCH', path) ? 0 : has('POST', path) ? 2 : 1);
  const paths = [...new Set(spec.operations.filter((o) => o.method === 'GET' && !o.itemPath).map((o) => o.path))];
  return paths.toSorted((a, b) => rank(a) - rank(b));
}

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
  const paths = [...new Set(spec.operations.filter((o) => o.method === 'GET' && !o.itemPath && o.path !== retrieve.path).map((o) => o.path))];
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
