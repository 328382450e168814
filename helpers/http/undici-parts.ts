import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';

/**
 * The parts of undici the client uses, loaded on their own. undici's entry point loads all of it
 * (fetch, WebSocket, caches, mocks: ~170 ms of CPU), and every run loads it again in its suite
 * worker; the agent and request() alone take ~65 ms. The paths are undici's own modules, stable
 * for the version package.json pins exactly (test/http-safety.test.ts sends through them).
 */
const load = createRequire(import.meta.url);

type AgentClass = typeof import('undici').Agent;
type ProxyAgentClass = typeof import('undici').ProxyAgent;

export const loadAgent = (): AgentClass => load('undici/lib/dispatcher/agent.js') as AgentClass;
// The proxy agent tunnels with connect(), which undici's entry point adds to every dispatcher: it needs all of undici.
export const loadProxyAgent = (): ProxyAgentClass => (load('undici') as typeof import('undici')).ProxyAgent;

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path'>;
type ApiRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
let apiRequest: ApiRequest | undefined;

/** undici's request() through the given dispatcher, as its entry point's request(url, { dispatcher }) sends it. */
export function request(dispatcher: Dispatcher, url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  apiRequest ??= load('undici/lib/api/api-request.js') as ApiRequest;
  const { origin, pathname, search } = new URL(url);
  return apiRequest.call(dispatcher, { ...options, origin, path: `${pathname}${search}` });
}
