/**
 * The HAR and the request count are complete: every request on the wire — preflight, baseline,
 * checks, observations, suite set-up and clean-up, the after-run recovery — is in the HAR exactly
 * once and in the request count. A counting proxy between the command and the reference sees
 * what the wire carries. A request a check shares, or awaits twice, is in it once.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { logRequests, type RequestLog } from './support/network.ts';
import { sampleRun } from './support/sample-run.ts';
import { loggedOnly, recordExchange, withExchangeLog, withLoggedExchanges, type Exchange } from '../helpers/http/exchanges.ts';
import { sharedStep } from '../helpers/checks/shared-step.ts';
import { toHar } from '../helpers/results/reporters/har.ts';
import { ApiClient } from '../helpers/http/client.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

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

test('a list\'s later pages, which the checks hold as stubs while the run goes on, are whole in the reports: each in the HAR once, with its headers and head', async () => {
  const paged = await startReference({ variations: ['list-pages-link-header'] });
  const wire = await logRequests(paged.url);
  try {
    const run = await runInProcess(['--base-url', wire.url], { SCHEDULING_API_KEY: paged.apiKey, SCHEDULING_EXPIRED_KEY: paged.expiredKey }, undefined, { resultOnly: false });
    expect(run.code, run.stderr).toBe(0);
    type Entry = { request: { method: string; url: string }; response: { headers: { name: string }[]; content: { text: string } } };
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: Entry[] } };
    const at = (e: Entry) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search}`;
    expect(sorted(har.log.entries.map(at))).toEqual(sorted(wire.requests));
    // The pages a Link header named: the run read past the first page of both lists.
    const later = har.log.entries.filter((e) => e.request.method === 'GET' && /\/(customers|team-members)$/.test(new URL(e.request.url).pathname) && new URL(e.request.url).search !== '');
    expect(new Set(later.map((e) => new URL(e.request.url).pathname))).toEqual(new Set(['/api/v1/customers', '/api/v1/team-members']));
    for (const e of later) {
      expect(e.response.headers.map((h) => h.name), at(e)).toContain('content-type');
      expect(e.response.content.text, at(e)).toMatch(/^\[/);
    }
    expect(readFileSync(join(run.reportDir, 'result.json'), 'utf8')).not.toContain('"inLog"');
  } finally {
    await wire.close();
    await paged.close();
  }
});

test('a stub a check holds is replaced by the request log\'s copy; an exchange held whole is the log\'s entry, once in memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scr-log-'));
  const whole = (id: string, url: string): Exchange => ({ id, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, attempt: 1, request: { method: 'GET', url, headers: { accept: 'application/json' } }, response: { status: 200, headers: { 'content-type': 'application/json' }, body: '[{"id":1}]', bodyBytes: 10, truncated: false } });
  const [first, second] = [whole('x.1', 'http://127.0.0.1:9/api/v1/customers'), whole('x.2', 'http://127.0.0.1:9/api/v1/customers?page=2')];
  const file = join(dir, 'requests.jsonl');
  writeFileSync(file, [first, second].map((exchange) => `${JSON.stringify({ phase: 'suites', exchange })}\n`).join(''));
  const stub = loggedOnly(second);
  expect(stub).toMatchObject({ id: 'x.2', inLog: true, request: { url: second.request.url, headers: {} }, response: { status: 200, headers: {}, body: '' } });
  const lost = loggedOnly(whole('x.3', 'http://127.0.0.1:9/api/v1/customers?page=3'));
  const check = { exchanges: [first, stub, lost] };
  const requests = withLoggedExchanges(file, [check]);
  expect(check.exchanges.slice(0, 2)).toEqual([first, second]);
  expect(check.exchanges[1]).toBe(requests[1].exchange);
  expect(requests[0].exchange).toBe(first);
  // A page the log lost stays what the run knew of it, no longer marked a stub (result.json has no such field).
  expect(check.exchanges[2]).toEqual({ ...lost, inLog: undefined });
  expect('inLog' in check.exchanges[2]).toBe(false);
});

test('the client holds a later page as a stub only when it answered 2xx and a request log keeps it whole: a redirect stays whole, for the reason that quotes its Location', async () => {
  const server = createServer((req, res) => {
    if (req.url?.endsWith('page=2')) res.writeHead(301, { location: '/api/v1/customers?page=3' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1}]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'scr-log-'));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const target = (requestLogFile?: string) => ({ baseUrl, apiKey: 'k', vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 1000, runId: 'r', requestLogFile }) as TargetConfig;
  try {
    const held = async (client: ApiClient) => {
      const log: Exchange[] = [];
      await withExchangeLog(log, async () => {
        for (const path of ['/customers?page=2', '/customers?page=3']) await client.send({ method: 'GET', path, fromLog: true, sink: () => undefined });
      });
      return log;
    };
    const [redirect, page] = await held(new ApiClient(target(join(dir, 'requests.jsonl'))));
    expect(redirect.inLog).toBeUndefined();
    expect(redirect.response?.headers.location).toBe('/api/v1/customers?page=3');
    expect(page).toMatchObject({ inLog: true, response: { status: 200, headers: {}, body: '' } });
    // No request log: nothing could show the page whole at the end, so it is held whole.
    const [, unlogged] = await held(new ApiClient(target()));
    expect(unlogged.inLog).toBeUndefined();
    expect(unlogged.response?.body).toBe('[{"id":1}]');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
