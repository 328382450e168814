/**
 * The networks staging sits behind. A forward proxy, an HTTPS front with the test CA
 * (scripts/make-test-certs.sh) and one asking for a client certificate are started here, in
 * front of the reference; main() runs in process. The key reaches the target and nothing else.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runCli, runInProcess, type CliRun } from './support/cli.ts';
import { forwardProxy, pem, STAGING_HOST, tlsFront } from './support/network.ts';
import { proxyFor } from '../helpers/http/network.ts';
import { parseOptions } from '../helpers/command/options.ts';
import { curlCommand } from '../helpers/results/reporters/curl.ts';

const KEY = 'sk_network_secret_8086';
const env = { SCHEDULING_API_KEY: KEY };
/** One cheap check: enough to prove the path to the target works. */
const ONE = ['--only', '^BUS-GET-200 '];
let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ apiKey: KEY });
});
afterAll(() => ref?.close());

const reportFiles = (run: CliRun) => readdirSync(run.reportDir).map((f) => readFileSync(join(run.reportDir, f), 'utf8')).join('\n');
const result = (run: CliRun) => JSON.parse(readFileSync(join(run.reportDir, 'result.json'), 'utf8'));
const oneLine = (run: CliRun) => {
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
};

describe('HTTPS_PROXY / HTTP_PROXY / NO_PROXY', () => {
  test('an https target is reached through the proxy by a tunnel; the proxy never sees the key; the report names the proxy', async () => {
    const front = await tlsFront(ref.url);
    const proxy = await forwardProxy({ credentials: 'ops:proxy-pass-31' });
    try {
      const port = new URL(front.url).port;
      const proxyUrl = proxy.url.replace('://', '://ops:proxy-pass-31@');
      const run = await runInProcess(['--base-url', `https://${STAGING_HOST}:${port}`, '--ca', pem('ca'), ...ONE], { ...env, HTTPS_PROXY: proxyUrl });
      expect(run.code, run.stderr).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(new Set(proxy.tunnels)).toEqual(new Set([`${STAGING_HOST}:${port}`]));
      expect(proxy.requests).toEqual([]);
      expect(Buffer.concat(proxy.bytes).includes(KEY)).toBe(false);
      expect(front.seen.every((s) => s.headers.authorization === `Bearer ${KEY}`)).toBe(true);
      expect(run.stdout.split('\n')[0]).toBe(`Target: https://${STAGING_HOST}:${port} (requests go to https://${STAGING_HOST}:${port}/api/v1/…), through the proxy ${proxy.url}`);
      expect(result(run).target.proxy).toBe(new URL(proxy.url).origin);
      expect(reportFiles(run)).not.toContain('proxy-pass-31');
    } finally {
      await proxy.close();
      await front.close();
    }
  });

  test('an http target is reached through HTTP_PROXY', async () => {
    const proxy = await forwardProxy();
    try {
      const port = new URL(ref.url).port;
      const run = await runInProcess(['--base-url', `http://${STAGING_HOST}:${port}`, '--allow-http', ...ONE], { ...env, HTTP_PROXY: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:1' });
      expect(run.code, run.stderr).toBe(0);
      expect([...proxy.tunnels, ...proxy.requests].length).toBeGreaterThan(0);
      expect(result(run).target.proxy).toBe(proxy.url);
    } finally {
      await proxy.close();
    }
  });

  test('this machine is never reached through a proxy: a loopback target, and the embedded reference', async () => {
    const proxy = await forwardProxy();
    try {
      const proxies = { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url };
      const loopback = await runInProcess(['--base-url', ref.url, ...ONE], { ...env, ...proxies });
      expect(loopback.code, loopback.stderr).toBe(0);
      expect(result(loopback).target.proxy).toBeNull();
      const embedded = await runInProcess(ONE, proxies);
      expect(embedded.code, embedded.stderr).toBe(0);
      expect([...proxy.tunnels, ...proxy.requests]).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  test.for([
    ['https://staging.example.com', { httpsProxy: 'http://p:1' }, 'http://p:1'],
    ['https://staging.example.com', { httpProxy: 'http://p:2' }, 'http://p:2'],
    ['http://staging.example.com', { httpsProxy: 'http://p:1' }, undefined],
    ['https://staging.example.com', { httpsProxy: 'http://p:1', noProxy: 'example.com' }, undefined],
    ['https://staging.example.com', { httpsProxy: 'http://p:1', noProxy: '.example.com:443' }, undefined],
    ['https://staging.example.com', { httpsProxy: 'http://p:1', noProxy: 'example.com:8443' }, 'http://p:1'],
    ['https://staging.example.com', { httpsProxy: 'http://p:1', noProxy: 'ample.com, other.org' }, 'http://p:1'],
    ['https://staging.example.com', { httpsProxy: 'http://p:1', noProxy: '*' }, undefined],
    ['https://127.0.0.1:8443', { httpsProxy: 'http://p:1' }, undefined],
    ['http://localhost:4010', { httpProxy: 'http://p:1' }, undefined],
    ['http://[::1]:4010', { httpProxy: 'http://p:1' }, undefined],
  ] as const)('%s with %o goes through %s', ([url, proxies, expected]) => {
    expect(proxyFor(url, proxies)).toBe(expected);
  });
});

describe('TLS: --ca, --cert/--key, and a failure named in one line', () => {
  let front: Awaited<ReturnType<typeof tlsFront>>;
  let mutual: Awaited<ReturnType<typeof tlsFront>>;
  beforeAll(async () => {
    front = await tlsFront(ref.url);
    mutual = await tlsFront(ref.url, { requireClientCert: true });
  });
  afterAll(async () => {
    await front?.close();
    await mutual?.close();
  });

  test('a certificate from an unknown CA: exit 2, one line naming the cause and --ca', async () => {
    const run = await runInProcess(['--base-url', front.url], env);
    expect(run.code).toBe(2);
    oneLine(run);
    expect(run.stderr).toMatch(/TLS: the target's certificate is not signed by a trusted CA \(\w+\); give its CA with --ca FILE/);
    expect(front.seen).toEqual([]);
  });

  test('--ca FILE: the same target is trusted', async () => {
    const run = await runInProcess(['--base-url', front.url, '--ca', pem('ca'), ...ONE], env);
    expect(run.code, run.stderr).toBe(0);
  });

  test('NODE_EXTRA_CA_CERTS (read by Node at start: the command as a user runs it) trusts the CA too', async () => {
    const run = await runCli(['--base-url', front.url, ...ONE], { ...env, NODE_EXTRA_CA_CERTS: pem('ca') });
    expect(run.code, run.stderr).toBe(0);
  });

  test('mutual TLS: without a client certificate, with a stranger\'s, and with --cert/--key', async () => {
    const without = await runInProcess(['--base-url', mutual.url, '--ca', pem('ca')], env);
    expect(without.code).toBe(2);
    oneLine(without);
    expect(without.stderr).toMatch(/TLS: the target (asks for a client certificate|refused the handshake)/);
    const stranger = await runInProcess(['--base-url', mutual.url, '--ca', pem('ca'), '--cert', pem('stranger'), '--key', pem('stranger-key')], env);
    expect(stranger.code).toBe(2);
    oneLine(stranger);
    expect(stranger.stderr).toMatch(/TLS: the target (refused the handshake|closed the connection after the handshake: it does not accept the client certificate)/);
    expect(mutual.seen).toEqual([]);
    const run = await runInProcess(['--base-url', mutual.url, '--ca', pem('ca'), '--cert', pem('client'), '--key', pem('client-key'), ...ONE], env);
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(mutual.seen.map((s) => s.clientCert))).toEqual(new Set(['conformance client']));
  });

  test.for([
    [['--cert', pem('client')], /--cert and --key go together/],
    [['--cert', pem('client'), '--key', ''], /--cert and --key go together/],
    [['--ca', '/nonexistent/ca.pem'], /--ca \/nonexistent\/ca.pem: cannot be read \(ENOENT\)/],
    [['--ca', join(import.meta.dirname, 'network.test.ts')], /not a PEM file/],
  ] as const)('%s is a usage error', ([args, message]) => {
    expect(() => parseOptions([...args], {})).toThrow(message);
  });
});

describe('--header', () => {
  test('every request carries it; a value from the environment is $VAR in every report', async () => {
    const front = await tlsFront(ref.url);
    try {
      const run = await runInProcess(['--base-url', front.url, '--ca', pem('ca'), '--header', 'X-Tenant: ${TENANT}', '--header', 'X-Gateway: blue', ...ONE], { ...env, TENANT: 'tenant-secret-77' }, undefined, { resultOnly: false });
      expect(run.code, run.stderr).toBe(0);
      expect(front.seen.length).toBeGreaterThan(1);
      for (const s of front.seen) expect([s.headers['x-tenant'], s.headers['x-gateway']]).toEqual(['tenant-secret-77', 'blue']);
      const reports = reportFiles(run) + run.stdout + run.stderr;
      expect(reports).not.toContain('tenant-secret-77');
      expect(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')).toMatch(/"name": ?"x-tenant",\s*"value": ?"\$TENANT"/);
      expect(reports).toContain('blue');
    } finally {
      await front.close();
    }
  });

  test('the cURL reproduction leaves $VAR of a header to the shell, like the key', () => {
    const command = curlCommand({
      startedAt: '', durationMs: 0, attempt: 1,
      request: { method: 'GET', url: 'https://staging.example.com/api/v1/business', headers: { authorization: 'Bearer $SCHEDULING_API_KEY0', 'x-tenant': '$TENANT', 'x-price': '$5' } },
    });
    expect(command).toContain(`--header 'authorization: Bearer '"$SCHEDULING_API_KEY"'0'`);
    expect(command).toContain(`--header 'x-tenant: '"$TENANT"`);
    expect(command).toContain(`--header 'x-price: $5'`);
  });

  test.for([
    ['X-Tenant: $UNSET_TENANT', /the environment variable UNSET_TENANT is not set/],
    ['Authorization: Bearer x', /--header Authorization: the suite sets this header itself/],
    ['no colon here', /is not "Name: value"/],
  ] as const)('--header %s is a usage error', ([header, message]) => {
    expect(() => parseOptions(['--header', header], {})).toThrow(message);
  });
});

describe('--wait-for-target S', () => {
  const freePort = () => new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

  test('a target that comes up while the command waits is tested', async () => {
    const port = await freePort();
    let late: Promise<RunningReference> | undefined;
    const run = await runInProcess(['--base-url', `http://127.0.0.1:${port}`, '--wait-for-target', '120', ...ONE], env, (text) => {
      if (/waiting up to 120 s/.test(text)) late ??= startReference({ apiKey: KEY, port });
    });
    await (await late)?.close();
    expect(late, run.stderr).toBeDefined();
    expect(run.code, run.stderr).toBe(0);
  });

  test('one that never does: exit 2 after S seconds, one line', async () => {
    const port = await freePort();
    const run = await runInProcess(['--base-url', `http://127.0.0.1:${port}`, '--wait-for-target', '1'], env);
    expect(run.code).toBe(2);
    oneLine(run);
    expect(run.stderr).toMatch(/target unreachable: .*connection refused \(after 1 s of --wait-for-target\)/);
    expect(run.stdout).toMatch(/waiting up to 1 s for http:\/\/127\.0\.0\.1:\d+ to answer/);
  });
});
