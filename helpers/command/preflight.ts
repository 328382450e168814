import { ApiClient, NoAnswerError, TRANSIENT_STATUSES, type Answer } from '../http/client.ts';
import { TargetError } from './errors.ts';
import { diagnoseTls, proxyShown } from '../http/network.ts';
import type { TargetConfig } from '../config/target.ts';

/** Pause between two tries of a target that does not answer yet (--wait-for-target). */
const WAIT_STEP_MS = 1000;

/**
 * One request before the suites: a target that cannot be reached, or that refuses the key,
 * ends the run at once with one clear line instead of a screen of failed checks. With `waitMs`
 * (--wait-for-target) a target that does not answer yet, or whose gateway answers 502/503/504,
 * is asked again until it answers or the time is up. Returns how long it waited.
 */
export async function preflight(target: TargetConfig, wait: { waitMs?: number; say?: (text: string) => void } = {}): Promise<number> {
  const started = Date.now();
  const waitMs = wait.waitMs ?? 0;
  const client = new ApiClient(target);
  try {
    for (let tries = 1; ; tries++) {
      let answer: Answer | undefined;
      let failure: string | undefined;
      try {
        answer = await client.send({ method: 'GET', path: '/api/v1/business' });
      } catch (e) {
        if (!(e instanceof NoAnswerError)) throw e;
        failure = e.message.replace(/^GET \S+: /, '');
        if (failure === 'connection reset by the target') failure = (await diagnoseTls(target.baseUrl, target.network ?? {}, target.timeoutMs)) ?? failure;
        // A TLS failure does not go away by waiting: the certificate, CA or client certificate is wrong.
        if (failure.startsWith('TLS')) throw new TargetError(`${target.baseUrl}: ${failure}`);
      }
      const waiting = failure !== undefined || (answer !== undefined && TRANSIENT_STATUSES.includes(answer.status));
      const left = started + waitMs - Date.now();
      if (waiting && left > 0) {
        if (tries === 1) wait.say?.(`waiting up to ${waitMs / 1000} s for ${target.baseUrl} to answer (--wait-for-target)\n`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_STEP_MS, left)));
        continue;
      }
      const after = waitMs && tries > 1 ? ` (after ${Math.round((Date.now() - started) / 1000)} s of --wait-for-target)` : '';
      const via = target.network?.proxy ? ` (through the proxy ${proxyShown(target.network.proxy)})` : '';
      if (failure !== undefined) throw new TargetError(`target unreachable: ${target.baseUrl}${via}: ${failure}${after}`);
      if (answer?.status === 401) {
        throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}/api/v1/business answered 401 with the given key`);
      }
      return Date.now() - started;
    }
  } finally {
    await client.close();
  }
}
