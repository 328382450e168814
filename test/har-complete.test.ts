/**
 * The HAR and the request count are complete: every request on the wire — preflight, baseline,
 * checks, observations, suite set-up and clean-up, the after-run recovery — is in the HAR exactly
 * once and in the request count. A counting proxy between the command and the reference sees
 * what the wire carries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { logRequests, type RequestLog } from './support/network.ts';

let ref: RunningReference | undefined;
let proxy: RequestLog | undefined;
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

const sorted = (list: string[]) => [...list].sort();

test('the HAR holds every request on the wire exactly once, and the summary counts them all', async () => {
  // Every 5th request answers 503: the retried attempts are on the wire too.
  ref = await startReference({ robustness: ['unavailable-every-5th'] });
  proxy = await logRequests(ref.url);
  const run = await runInProcess(['--base-url', proxy.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  expect(run.code, run.stderr).toBe(0);
  const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: { request: { method: string; url: string } }[] } };
  const inHar = har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search}`);
  const result = JSON.parse(readFileSync(join(run.reportDir, 'result.json'), 'utf8')) as { counts: { requests: number } };
  expect(sorted(inHar)).toEqual(sorted(proxy.requests));
  expect(result.counts.requests).toBe(proxy.requests.length);
  expect(run.stdout).toMatch(new RegExp(`\\b${proxy.requests.length} requests\\b`));
});
