/**
 * The HTTP client's safety mechanics, against tiny local servers: bounded bodies, which
 * requests are retried and how each attempt shows, the request rate cap, the secret scan and the
 * plain-HTTP warning.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ApiClient, MAX_RETRIES, NoAnswerError, RETRY_AFTER_CAP_MS, retryDelay, TurnedAway } from '../helpers/http/client.ts';
import { BLOCKS_BEFORE_STOP, environmentOf } from '../helpers/http/environment.ts';
import { withExchangeLog, type Exchange } from '../helpers/http/exchanges.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { scanForSecrets } from '../helpers/safety/secret-scan.ts';
import { redactor } from '../helpers/http/redact.ts';
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
  test('an endless body ends the request after 5 MiB, with bounded memory', async () => {
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

  test('inside a check, a body over the cap blocks it by the suite, naming the flag that raises it; --max-body-mib raises it', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(2 * 2 ** 20) });
    const target = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const small = new ApiClient({ ...target, maxBodyBytes: 2 ** 20, sentinels: ['/x'] });
    const error = await withExchangeLog([], () => small.send({ method: 'GET', path: '/big' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnedAway);
    expect((error as TurnedAway).message).toBe('blocked by the suite: GET /big: response body larger than 1 MiB, the suite\'s limit (--max-body-mib raises it)');
    const large = new ApiClient({ ...target, maxBodyBytes: 3 * 2 ** 20, sentinels: ['/x'] });
    expect((await withExchangeLog([], () => large.send({ method: 'GET', path: '/big' }))).status).toBe(200);
    await Promise.all([small.close(), large.close()]);
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

describe('an anomaly inside a check asks the sentinel before the answer is judged', () => {
  let runs = 0;
  /** A target whose /sentinel and /x answer as `answer` says at each moment; every request is written down. */
  async function target(answer: (path: string, auth: string | undefined) => number, retryBudgetMs = 1500) {
    const seen: string[] = [];
    const config = await serve((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const status = answer(req.url ?? '', req.headers.authorization);
      res.writeHead(status, { 'content-type': status >= 500 ? 'text/html' : 'application/json' }).end(status >= 500 ? '<html>Bad Gateway</html>' : '{}');
    });
    // A run of its own: the environment's state is kept per run.
    return { seen, client: new ApiClient({ ...config, runId: `scr-20260101-0000${String(++runs).padStart(4, '0')}`, sentinels: ['/sentinel'], retryBudgetMs }) };
  }
  const inCheck = <T>(fn: () => Promise<T>) => withExchangeLog([], fn);

  test('a 500 on one path while the sentinel answers is the implementation\'s answer: judged at once', async () => {
    const { seen, client } = await target((path) => (path === '/x' ? 500 : 200));
    expect((await inCheck(() => client.send({ method: 'GET', path: '/x' }))).status).toBe(500);
    expect(seen).toEqual(['GET /x', 'GET /sentinel']);
    await client.close();
  });

  test('no answer (a reset) while the sentinel answers proves nothing: blocked by the environment, never judged; a POST is not sent again', async () => {
    const seen: string[] = [];
    const config = await serve((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/x') return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const client = new ApiClient({ ...config, runId: `scr-20260101-0000${String(++runs).padStart(4, '0')}`, sentinels: ['/sentinel'] });
    const error = await inCheck(() => client.send({ method: 'POST', path: '/x', body: {} })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnedAway);
    expect((error as TurnedAway).message).toBe('blocked by the environment: POST /x got no answer (connection reset by the target), and is not asked again, as it may have been taken (the clean-up finds what it created by the run marker)');
    expect(seen).toEqual(['POST /x', 'GET /sentinel']);
    await client.close();
  });

  test('a DELETE whose first attempt got no answer and whose repeat answers 404 proves nothing: the first may have deleted it', async () => {
    let deletes = 0;
    const config = await serve((req, res) => {
      if (req.method === 'DELETE' && ++deletes === 1) return void req.socket.destroy();
      res.writeHead(req.method === 'DELETE' ? 404 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    const client = new ApiClient({ ...config, runId: `scr-20260101-0000${String(++runs).padStart(4, '0')}`, sentinels: ['/sentinel'] });
    await expect(inCheck(() => client.send({ method: 'DELETE', path: '/x' }))).rejects.toThrow('blocked by the environment: DELETE /x got no answer (connection reset by the target), and asked again answered 404: the first attempt may have deleted it');
    expect(deletes).toBe(2);
    await client.close();
  });

  test('an outage of every path (HTML 502) is waited out within the budget, and the answer after it judged', async () => {
    // Longer than the quick retries (1.75 s), well within the budget.
    const until = Date.now() + 2500;
    const { seen, client } = await target(() => (Date.now() < until ? 502 : 200), 30_000);
    expect((await inCheck(() => client.send({ method: 'PATCH', path: '/x', body: {} }))).status).toBe(200);
    expect(seen).toContain('GET /sentinel');
    await client.close();
  });

  test('an answer that came while the sentinel failed is asked again once the sentinel answers, never judged', async () => {
    let sentinelAsked = 0;
    const { seen, client } = await target((path) => (path === '/sentinel' ? (++sentinelAsked === 1 ? 500 : 200) : seen.filter((s) => s === 'GET /x').length <= 2 ? 500 : 204));
    expect((await inCheck(() => client.send({ method: 'GET', path: '/x' }))).status).toBe(204);
    expect(seen).toEqual(['GET /x', 'GET /sentinel', 'GET /x', 'GET /sentinel', 'GET /x']);
    await client.close();
  });

  test(`down for the whole budget: blocked by the environment; after ${BLOCKS_BEFORE_STOP} in a row the next request is not sent`, async () => {
    const { seen, client } = await target(() => 503);
    for (let i = 0; i < BLOCKS_BEFORE_STOP; i++) {
      const error = await inCheck(() => client.send({ method: 'GET', path: '/x' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TurnedAway);
      expect((error as TurnedAway).message).toMatch(/^blocked by the environment: the target stopped answering \(GET \/sentinel, the request that worked at the start, answered 503 with an HTML page\): GET \/x answered 503 with an HTML page, for 1\.5 s \(--retry-budget\)/);
    }
    const before = seen.length;
    await expect(inCheck(() => client.send({ method: 'GET', path: '/x' }))).rejects.toThrow(/^blocked by the environment: GET \/x was not sent: the target stopped answering/);
    expect(seen).toHaveLength(before);
    await client.close();
  });

  test('the valid key refused after it worked: the sentinel is the request it was proven on, and says so', async () => {
    const { client } = await target((_path, auth) => (auth === `Bearer ${KEY}` ? 401 : 200));
    await expect(inCheck(() => client.send({ method: 'POST', path: '/x', body: {} }))).rejects.toThrow(/^blocked by the environment: the key is no longer accepted \(GET \/sentinel, the request that worked at the start, answered 401 to the valid key\): POST \/x answered 401 to the valid key/);
    // Another key refused is an answer like any other.
    expect((await inCheck(() => client.send({ method: 'GET', path: '/x', auth: 'none' }))).status).toBe(200);
    await client.close();
  });

  test('a POST whose answer may hide a creation is not asked again: blocked while the sentinel fails, judged while it answers', async () => {
    const down = await target(() => 502);
    await expect(inCheck(() => down.client.send({ method: 'POST', path: '/x', body: {} }))).rejects.toThrow(/^blocked by the environment: POST \/x answered 502 with an HTML page, and the target stopped answering .*: not asked again, as it may have been taken/);
    expect(down.seen.filter((s) => s.startsWith('POST'))).toHaveLength(1);
    const up = await target((path) => (path === '/x' ? 502 : 200));
    expect((await inCheck(() => up.client.send({ method: 'POST', path: '/x', body: {} }))).status).toBe(502);
    expect(up.seen).toEqual(['POST /x', 'GET /sentinel']);
    await Promise.all([down.client.close(), up.client.close()]);
  });

  test('outside a check (the clean-up, the preflight) the answer is returned as before: no sentinel', async () => {
    const { seen, client } = await target((path) => (path === '/x' ? 500 : 200));
    expect((await client.send({ method: 'GET', path: '/x' })).status).toBe(500);
    expect(seen).toEqual(['GET /x']);
    await client.close();
  });
});

test("a thread's environment lasts one run: the next run's first ask closes the channels of the one before", () => {
  const first = environmentOf('scr-20260101-00990001');
  const channel = first.listen();
  expect(environmentOf('scr-20260101-00990001')).toBe(first);
  const next = environmentOf('scr-20260101-00990002');
  expect(next).not.toBe(first);
  expect(() => channel.postMessage({ reason: 'late' })).toThrow(/closed/);
  expect(environmentOf('scr-20260101-00990002')).toBe(next);
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

  test('every form a key travels in (URL-encoded; base64 and base64url of the key, of key: and of :key; the key inside a body encoded whole, wherever it starts) is redacted, and the scan finds any the redaction missed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scr-scan-'));
    const b64 = (text: string) => [Buffer.from(text).toString('base64'), Buffer.from(text).toString('base64url')];
    // Keys whose encodings hold + and /, so that base64 and base64url differ.
    for (const key of [KEY, '>>>?key~~~??>']) {
      const forms = [encodeURIComponent(key), ...[key, `${key}:`, `:${key}`, `{"token":"${key}"}`, `x${key}`, `xy${key}`].flatMap(b64)];
      const redact = redactor({ apiKey: key });
      forms.forEach((form, i) => {
        const raw = join(dir, `raw-${i}.txt`);
        const redacted = join(dir, `redacted-${i}.txt`);
        writeFileSync(raw, `before ${form} after`);
        writeFileSync(redacted, redact(`before ${form} after`));
        expect(scanForSecrets([raw], { apiKey: key }).map((l) => l.key), form).toEqual([expect.stringContaining('$SCHEDULING_API_KEY')]);
        expect(scanForSecrets([redacted], { apiKey: key }), form).toEqual([]);
        expect(readFileSync(redacted, 'utf8'), form).toMatch(/\$SCHEDULING_API_KEY/);
      });
    }
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
