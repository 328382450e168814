/**
 * The HTTP client's safety mechanics, against tiny local servers: bounded bodies, which
 * requests are retried and how each attempt shows, the request rate cap, the secret scan and the
 * plain-HTTP warning.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ApiClient, MAX_RETRIES, NoAnswerError, RETRY_AFTER_CAP_MS, retryDelay } from '../helpers/http/client.ts';
import { withExchangeLog, type Exchange } from '../helpers/http/exchanges.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { scanForSecrets } from '../helpers/safety/secret-scan.ts';
import { plainHttpWarning } from '../helpers/command/options.ts';

const KEY = 'sk_unit_never_shown_0815';
const servers: { close(): void }[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function serve(listener: RequestListener): Promise<TargetConfig> {
  const server = createServer(listener);
  servers.push({ close: () => (server.closeAllConnections(), server.close()) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: KEY,
    vendor: DEFAULT_VENDOR_CONFIG,
    strict: false,
    readOnly: false,
    timeoutMs: 5000,
    runId: 'scr-20260101-00000000',
  };
}

describe('response bodies are capped', () => {
  test('an endless body fails the request after 5 MiB, with bounded memory', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const target = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const client = new ApiClient(target);
    global.gc?.();
    const before = process.memoryUsage();
    await expect(client.send({ method: 'GET', path: '/big' })).rejects.toThrow(/larger than 5 MiB/);
    const after = process.memoryUsage();
    const grownMiB = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20;
    expect(grownMiB).toBeLessThan(64);
    await client.close();
  });
});

describe('transient answers are retried, a bounded number of times, only when safe', () => {
  function flaky(status: number, failures: number) {
    const seen: string[] = [];
    const listener: RequestListener = (req, res) => {
      seen.push(req.method ?? '');
      const n = seen.filter((m) => m === req.method).length;
      if (n <= failures) return void res.writeHead(status, { 'retry-after': '0' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"x1"}');
    };
    return { seen, listener };
  }

  test.for(['GET', 'PATCH', 'DELETE'])('%s after 503 is retried; every attempt is in the exchanges', async (method) => {
    const { seen, listener } = flaky(503, 2);
    const client = new ApiClient(await serve(listener));
    const log: Exchange[] = [];
    const answer = await withExchangeLog(log, () => client.send({ method, path: '/x', body: method === 'PATCH' ? {} : undefined }));
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(log.map((e) => [e.attempt, e.response?.status])).toEqual([[1, 503], [2, 503], [3, 200]]);
    await client.close();
  });

  test('POST is not repeated after an answer that may hide a creation (502, 504)', async () => {
    for (const status of [502, 504]) {
      const { seen, listener } = flaky(status, 1);
      const client = new ApiClient(await serve(listener));
      expect((await client.send({ method: 'POST', path: '/x', body: {} })).status).toBe(status);
      expect(seen).toEqual(['POST']);
      await client.close();
    }
  });

  test('POST is repeated after 429 and 503: the target says it did not take the request', async () => {
    for (const status of [429, 503]) {
      const { seen, listener } = flaky(status, 1);
      const client = new ApiClient(await serve(listener));
      expect((await client.send({ method: 'POST', path: '/x', body: {} })).status).toBe(200);
      expect(seen).toEqual(['POST', 'POST']);
      await client.close();
    }
  });

  test(`at most ${MAX_RETRIES} retries, then the last answer stands`, async () => {
    const { seen, listener } = flaky(429, 100);
    const client = new ApiClient(await serve(listener));
    expect((await client.send({ method: 'GET', path: '/x' })).status).toBe(429);
    expect(seen).toHaveLength(MAX_RETRIES + 1);
    await client.close();
  });

  test('a connection reset is retried for GET', async () => {
    let n = 0;
    const client = new ApiClient(
      await serve((req, res) => {
        if (++n === 1) return void req.socket.destroy();
        res.writeHead(200).end('[]');
      }),
    );
    const log: Exchange[] = [];
    expect((await withExchangeLog(log, () => client.send({ method: 'GET', path: '/x' }))).status).toBe(200);
    expect(log[0].error).toMatch(/connection reset/);
    expect(log[1].attempt).toBe(2);
    await client.close();
  });

  test('Retry-After is honoured, and capped', () => {
    const answer = (status: number, retryAfter?: string) => ({ status, headers: (retryAfter === undefined ? {} : { 'retry-after': retryAfter }) as Record<string, string> });
    expect(retryDelay(answer(503, '2'), 1)).toBe(2000);
    expect(retryDelay(answer(503, '3600'), 1)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryDelay(answer(429, new Date(Date.now() + 60 * 60_000).toUTCString()), 1)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryDelay(answer(502), 3)).toBe(1000);
    expect(retryDelay(answer(500, '1'), 1)).toBeUndefined();
    expect(retryDelay(answer(404), 1)).toBeUndefined();
    expect(retryDelay({ transient: false }, 1)).toBeUndefined();
  });
});

test('--rate caps the requests per second', async () => {
  const target = { ...(await serve((_req, res) => res.end('{}'))), rate: 20 };
  const client = new ApiClient(target);
  const started = Date.now();
  for (let i = 0; i < 6; i++) await client.send({ method: 'GET', path: '/x' });
  expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 50 - 10);
  await client.close();
});

describe('secrets', () => {
  test('the scan finds a raw or URL-encoded key in any file the run wrote, and names the key only by its placeholder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scr-scan-'));
    mkdirSync(join(dir, 'har'));
    writeFileSync(join(dir, 'result.json'), '{"authorization":"Bearer $SCHEDULING_API_KEY"}');
    writeFileSync(join(dir, 'har', 'run.har'), `{"url":"https://x/?k=${encodeURIComponent('k/+=y')}"}`);
    writeFileSync(join(dir, 'junit.xml'), `<failure>Bearer ${KEY}</failure>`);
    writeFileSync(join(dir, 'notes.txt'), `a file of the user's, not the run's: ${KEY}`);
    const written = ['result.json', 'har/run.har', 'junit.xml'].map((f) => join(dir, f));
    const leaks = scanForSecrets(written, { apiKey: KEY, expiredKey: 'k/+=y' });
    expect(leaks.map((l) => [l.file.slice(dir.length), l.key])).toEqual(
      expect.arrayContaining([['/junit.xml', '$SCHEDULING_API_KEY'], ['/har/run.har', '$SCHEDULING_EXPIRED_KEY']]),
    );
    expect(leaks).toHaveLength(2);
    expect(JSON.stringify(leaks)).not.toContain(KEY);
  });

  test('a plain-HTTP base URL other than loopback gets a warning, unless --allow-http', () => {
    expect(plainHttpWarning('http://staging.example.com', false)).toMatch(/clear text.*--allow-http/);
    expect(plainHttpWarning('http://staging.example.com', true)).toBeUndefined();
    expect(plainHttpWarning('https://staging.example.com', false)).toBeUndefined();
    for (const local of ['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:80']) expect(plainHttpWarning(local, false)).toBeUndefined();
  });
});

test('NoAnswerError names what happened in one line', async () => {
  const client = new ApiClient({ ...(await serve(() => undefined)), timeoutMs: 300 });
  const error = await client.send({ method: 'GET', path: '/hang' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NoAnswerError);
  expect((error as Error).message).toBe('GET /hang: no answer in 0.3 s');
  await client.close();
});
