/**
 * The HAR and the request count are complete: every request on the wire — preflight, baseline,
 * checks, observations, suite set-up and clean-up, the after-run recovery — is in the HAR exactly
 * once and in the request count. A counting proxy between the command and the reference sees
 * what the wire carries. A request a check shares, or awaits twice, is in it once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { logRequests, type RequestLog } from './support/network.ts';
import { sampleRun } from './support/sample-run.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../helpers/http/exchanges.ts';
import { sharedStep } from '../helpers/checks/shared-step.ts';
import { toHar } from '../helpers/results/reporters/har.ts';

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
  const run = await runInProcess(['--base-url', proxy.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: false });
  expect(run.code, run.stderr).toBe(0);
  const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: { request: { method: string; url: string } }[] } };
  const inHar = har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search}`);
  const result = JSON.parse(readFileSync(join(run.reportDir, 'result.json'), 'utf8')) as { counts: { requests: number } };
  expect(sorted(inHar)).toEqual(sorted(proxy.requests));
  expect(result.counts.requests).toBe(proxy.requests.length);
  expect(run.stdout).toMatch(new RegExp(`\\b${proxy.requests.length} requests\\b`));
});

test('a check that awaits a shared step twice shows its exchanges once, and the HAR holds each exchange once', async () => {
  const exchange: Exchange = { id: 'x.1', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, attempt: 1, request: { method: 'GET', url: 'http://127.0.0.1:9/api/v1/business', headers: {} } };
  const step = sharedStep(async () => recordExchange(exchange));
  const log: Exchange[] = [];
  await withExchangeLog(log, async () => {
    await step();
    await step();
  });
  expect(log).toEqual([exchange]);
  const run = sampleRun();
  const twice = { ...run, checks: [{ ...run.checks[0], exchanges: [exchange, exchange] }], observations: [], outsideChecks: [] };
  expect(toHar(twice).log.entries).toHaveLength(1);
});
