import { readFileSync } from 'node:fs';
import { connect, rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { Network } from '../config/target.ts';
import { loadAgent, loadProxyAgent } from './undici-parts.ts';

/** The proxy settings of an environment, as curl and undici's EnvHttpProxyAgent read them. */
export interface ProxyEnvironment {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export function proxyEnvironment(env: Record<string, string | undefined>): ProxyEnvironment {
  const get = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  return { httpProxy: get('HTTP_PROXY'), httpsProxy: get('HTTPS_PROXY'), noProxy: get('NO_PROXY') };
}

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);

/**
 * The proxy for requests to `baseUrl`, or undefined. The rules are undici's EnvHttpProxyAgent's
 * (HTTPS_PROXY for https, falling back to HTTP_PROXY; NO_PROXY entries are host names, matching
 * the host and its subdomains, with an optional port; "*" turns the proxy off), decided here
 * once so that the report can say which proxy was used. This machine is never reached through
 * a proxy: the embedded reference and a local target are asked directly.
 */
export function proxyFor(baseUrl: string, proxies: ProxyEnvironment): string | undefined {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host)) return undefined;
  const proxy = url.protocol === 'https:' ? (proxies.httpsProxy ?? proxies.httpProxy) : proxies.httpProxy;
  if (!proxy) return undefined;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of (proxies.noProxy ?? '').split(/[,\s]+/).filter(Boolean)) {
    if (entry === '*') return undefined;
    const [, name, entryPort] = /^(.+?)(?::(\d+))?$/.exec(entry) ?? [];
    const bare = name.replace(/^\*?\./, '').replace(/^\[|\]$/g, '').toLowerCase();
    if (entryPort && Number(entryPort) !== port) continue;
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  return proxy;
}

/** A proxy's address as reports show it: without the credentials it may carry. */
export function proxyShown(proxy: string): string {
  try {
    return new URL(proxy).origin;
  } catch {
    return 'a proxy';
  }
}

/**
 * Node's `ca` option replaces the trusted CAs: --ca adds to them instead (the system's, and
 * NODE_EXTRA_CA_CERTS, which Node reads at start only into its default list).
 */
function trusted(caFile: string): (string | Buffer)[] {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  let extraCerts: Buffer[] = [];
  try {
    if (extra) extraCerts = [readFileSync(extra)];
  } catch {
    // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at start.
  }
  return [...rootCertificates, ...extraCerts, readFileSync(caFile)];
}

const tlsMaterial = (network: Network) => ({
  ...(network.caFile && { ca: trusted(network.caFile) }),
  ...(network.certFile && { cert: readFileSync(network.certFile) }),
  ...(network.keyFile && { key: readFileSync(network.keyFile) }),
});

/**
 * Why an https target closed the connection: with TLS 1.3 a refused client certificate shows as
 * a closed socket to the HTTP client. One handshake (and a HEAD without any key) reads the
 * target's alert. Undefined when nothing points at TLS.
 */
export function diagnoseTls(baseUrl: string, network: Network, timeoutMs: number): Promise<string | undefined> {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' || network.proxy) return Promise.resolve(undefined);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let handshaken = false;
    const socket = connect({ host, port: Number(url.port) || 443, servername: /^[\d.:]+$/.test(host) ? undefined : host, ...tlsMaterial(network) }, () => {
      handshaken = true;
      socket.write(`HEAD / HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
    });
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('error', (e: NodeJS.ErrnoException) => done(tlsFailure(e.code, e.message)));
    socket.on('data', () => done(undefined));
    socket.on('close', () => {
      if (!handshaken) return done(undefined);
      done(network.certFile
        ? 'TLS: the target closed the connection after the handshake: it does not accept the client certificate given with --cert'
        : 'TLS: the target closed the connection after the handshake: it may ask for a client certificate (--cert FILE --key FILE)');
    });
  });
}

/**
 * The undici dispatcher for a target: direct or through its proxy, with the CA and client
 * certificate given; `connections` caps its connections to an origin (1: a single one).
 */
export function dispatcherFor(network: Network, timeoutMs: number, connections?: number): Dispatcher {
  // undici is loaded when a request is to be sent: --help, --version and usage errors start without it.
  const tls = tlsMaterial(network);
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs, ...(connections && { connections }) };
  if (!network.proxy) return new (loadAgent())({ connect: { timeout: timeoutMs, ...tls }, ...timeouts });
  // Through a proxy, https requests are tunnelled (CONNECT): the client certificate and the key
  // in the Authorization header reach the target only. The CA may also be the proxy's own.
  return new (loadProxyAgent())({
    uri: network.proxy,
    requestTls: { timeout: timeoutMs, ...tls },
    proxyTls: { timeout: timeoutMs, ...(tls.ca && { ca: tls.ca }) },
    ...timeouts,
  });
}

/**
 * What went wrong in a TLS handshake, in words a person can act on; undefined when the failure
 * is not one of TLS.
 */
export function tlsFailure(code: string | undefined, message: string): string | undefined {
  const text = `${code ?? ''} ${message}`;
  if (/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT|CERT_UNTRUSTED|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/.test(text)) {
    return `TLS: the target's certificate is not signed by a trusted CA (${code}); give its CA with --ca FILE (or NODE_EXTRA_CA_CERTS)`;
  }
  if (/CERT_HAS_EXPIRED/.test(text)) return `TLS: the target's certificate has expired (${code})`;
  if (/CERT_NOT_YET_VALID/.test(text)) return `TLS: the target's certificate is not valid yet (${code})`;
  if (/ALTNAME|Hostname\/IP does not match/i.test(text)) return `TLS: the target's certificate is not for this host name (${message.split('\n')[0]})`;
  if (/certificate required|CERTIFICATE_REQUIRED/i.test(text)) return 'TLS: the target asks for a client certificate: give --cert FILE --key FILE';
  if (/bad certificate|unknown ca|BAD_CERTIFICATE|UNKNOWN_CA|handshake failure/i.test(text)) {
    return `TLS: the target refused the handshake (${message.split('\n')[0]}); if it asks for a client certificate, check --cert and --key`;
  }
  if (/wrong version number|WRONG_VERSION_NUMBER|packet length too long/i.test(text)) return 'TLS: the target does not speak TLS on this port (is it http://?)';
  if (code && /CERT|SSL|TLS/i.test(code)) return `TLS: ${message.split('\n')[0]} (${code})`;
  return undefined;
}
