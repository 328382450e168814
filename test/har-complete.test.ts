/**
 * Issue 12 §4: every request on the wire — preflight, baseline, checks, observations, suite
 * set-up and clean-up, the after-run recovery — is in the HAR exactly once and in the request
 * count. A counting proxy between the command and the reference sees what the wire carries.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runCli } from './support/cli.ts';

let ref: RunningReference | undefined;
const servers: ReturnType<typeof createServer>[] = [];
afterAll(async () => {
  await ref?.close();
  for (const s of servers) s.closeAllConnections(), s.close();
});

/** A proxy to `origin` that notes "METHOD path" of every request it passes on. */
async function countingProxy(origin: string): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const target = new URL(origin);
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const sorted = (list: string[]) => [...list].sort();

test('the HAR holds every request on the wire exactly once, and the summary counts them all', async () => {
  // Every 5th request answers 503: the retried attempts are on the wire too.
  ref = await startReference({ robustness: ['unavailable-every-5th'] });
  const proxy = await countingProxy(ref.url);
  const run = await runCli(['--base-url', proxy.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  expect(run.code, run.stderr).toBe(0);
  const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: { request: { method: string; url: string } }[] } };
  const inHar = har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search}`);
  const result = JSON.parse(readFileSync(join(run.reportDir, 'result.json'), 'utf8')) as { counts: { requests: number } };
  expect(sorted(inHar)).toEqual(sorted(proxy.seen));
  expect(result.counts.requests).toBe(proxy.seen.length);
  expect(run.stdout).toMatch(new RegExp(`\\b${proxy.seen.length} requests\\b`));
});
