import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { projectRoot } from '../../helpers/core/paths.ts';

/** The test CA and certificates (scripts/make-test-certs.sh): paths, and their contents. */
export const tlsDir = join(projectRoot, 'test', 'fixtures', 'tls');
export const pem = (name: string) => join(tlsDir, `${name}.pem`);

export interface Running {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: 'http' | 'https', host = '127.0.0.1'): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `${scheme}://${host === '127.0.0.1' ? 'localhost' : host}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function forward(targetUrl: string, req: IncomingMessage, res: ServerResponse): void {
  const upstream = request(targetUrl + req.url, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

/** What the TLS front saw: each request, the client certificate it was shown, and its headers. */
export interface TlsSeen {
  method: string;
  path: string;
  clientCert?: string;
  headers: IncomingMessage['headers'];
}

/**
 * An HTTPS front (the test CA's localhost certificate) for an HTTP target. With `requireClientCert`
 * it asks for a client certificate from the test CA and refuses the handshake without one.
 */
export async function tlsFront(targetUrl: string, options: { requireClientCert?: boolean } = {}): Promise<Running & { seen: TlsSeen[] }> {
  const seen: TlsSeen[] = [];
  const server = createHttpsServer(
    {
      key: readFileSync(pem('server-key')),
      cert: readFileSync(pem('server')),
      ca: readFileSync(pem('ca')),
      requestCert: Boolean(options.requireClientCert),
      rejectUnauthorized: Boolean(options.requireClientCert),
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ method: req.method ?? '', path: req.url ?? '', clientCert: peer?.subject?.CN && String(peer.subject.CN), headers: req.headers });
      forward(targetUrl, req, res);
    },
  );
  return { ...(await listen(server, 'https')), seen };
}

/** A host name only the test proxy resolves (to 127.0.0.1); the test certificate is valid for it. */
export const STAGING_HOST = 'staging.test';

/** What a forward proxy saw: CONNECT tunnels by host, plain requests by URL, and every byte that passed. */
export interface ProxyLog {
  tunnels: string[];
  requests: string[];
  bytes: Buffer[];
}

/**
 * A forward proxy as staging networks have (HTTP_PROXY / HTTPS_PROXY): CONNECT tunnels and
 * absolute-form requests, optionally asking for Basic credentials. It writes down what it saw.
 * It resolves STAGING_HOST to this machine: a target the suite must reach through the proxy.
 */
export async function forwardProxy(options: { credentials?: string } = {}): Promise<Running & ProxyLog> {
  const log: ProxyLog = { tunnels: [], requests: [], bytes: [] };
  const authorized = (req: IncomingMessage) => !options.credentials || req.headers['proxy-authorization'] === `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const server = createHttpServer((req, res) => {
    log.requests.push(`${req.method} ${req.url}`);
    if (!authorized(req)) return void res.writeHead(407, { 'proxy-authenticate': 'Basic' }).end();
    const url = new URL(req.url ?? '');
    if (url.hostname === STAGING_HOST) url.hostname = '127.0.0.1';
    forward(url.origin, Object.assign(req, { url: url.pathname + url.search }), res);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log.tunnels.push(req.url ?? '');
    if (!authorized(req)) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host === STAGING_HOST ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      client.on('data', (d: Buffer) => log.bytes.push(d));
      upstream.on('data', (d: Buffer) => log.bytes.push(d));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return Object.assign(await listen(server, 'http'), log);
}
