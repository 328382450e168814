import type { IncomingHttpHeaders } from 'node:http';
import type { State } from './state.ts';
import type { FaultName } from './faults/fault-names.generated.ts';
import type { VariationName } from './variation-names.generated.ts';

export interface RefRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when there is none. */
  body: unknown;
  /** The connection it came on (fault auth-cached-on-connection keeps the key check's verdict on it). */
  connection?: object;
}

export interface RefResponse {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** The body is sent one byte every this many ms, after the headers (a body that trickles). */
  trickleMs?: number;
}

export interface RefContext {
  state: State;
  apiKey: string;
  expiredKey: string;
  /** Whether the named fault is switched on (the matrix switches on one per resource at most). A name with a typo fails tsc. */
  fault(name: FaultName | `${FaultFamily}:${string}`): boolean;
  /** Whether the named legitimate variation is switched on (any number may be). A name with a typo fails tsc. */
  varies(name: VariationName): boolean;
  /** Whether the valid key has been revoked by now (robustness key-revoked-from). */
  keyRevoked?(): boolean;
}

/** A family of generated faults, one per operation or field (route-missing:<operationId>): the family part is typed, the member is data. */
export type FaultFamily = FamilyOf<FaultName>;
type FamilyOf<Name> = Name extends `${infer Family}:${string}` ? Family : never;

export type Handler = (req: RefRequest, ctx: RefContext) => RefResponse | Promise<RefResponse>;

export interface Route {
  /** The contract's operation this route serves (undefined for routes the contract forbids). */
  operationId?: string;
  method: string;
  /** Path template with :params, e.g. /api/v1/customers/:id. */
  path: string;
  handler: Handler;
}

export const json = (status: number, body?: unknown, headers?: Record<string, string>): RefResponse => ({ status, body, headers });
export const error = (status: number, code: string, message: string): RefResponse => json(status, { error: code, message });

/**
 * Turns away every nth request, and serves the same request (method and path) asked again at
 * once, however many requests of other clients came in between: a target busy now, not busy for
 * one client (which, among concurrent clients, could meet the nth place at every attempt).
 * Returns whether this request is turned away.
 */
export function everyNth(n: number): (method: string, path: string) => boolean {
  let requests = 0;
  const turnedAway = new Set<string>();
  return (method, path) => {
    const key = `${method} ${path}`;
    if (turnedAway.delete(key) || ++requests % n !== 0) return false;
    turnedAway.add(key);
    return true;
  };
}

/**
 * The record a path id names. Variations ids-canonical-case and ids-canonical-zeros canonicalise
 * the id (the same id written another way); `lenientFault` matches it leniently, as a parseInt
 * would: a known id with characters after or before it names that record.
 */
export function lookUp(table: Map<string, Record<string, unknown>>, id: string, ctx: RefContext, lenientFault: FaultName): Record<string, unknown> | undefined {
  const exact = table.get(id);
  if (exact) return exact;
  const rows = [...table.values()];
  if (ctx.varies('ids-canonical-case')) return rows.find((r) => String(r.id).toLowerCase() === id.toLowerCase());
  if (ctx.varies('ids-canonical-zeros') && /^\d+$/.test(id)) return table.get(String(Number(id)));
  if (ctx.fault(lenientFault)) return rows.find((r) => id.startsWith(String(r.id)) || id.endsWith(String(r.id)));
  return undefined;
}
