import { everyNth, type RefResponse } from '../types.ts';

/**
 * Misbehaviour that is not a breach of the contract (which says nothing of rate limits, sizes or
 * outages) but that the suite must survive: it must still end in bounded time, clean up, and
 * never leak the key. Kept apart from FAULTS, which are held to the checks they kill.
 * Names with ":<operationId>" apply to that operation only.
 */
export interface RobustnessFault {
  name: string;
  description: string;
}

export const ROBUSTNESS_FAULTS: RobustnessFault[] = [
  // A breach the suite cannot judge check by check: it finds no API at all and exits 2.
  { name: 'wrong-prefix', description: 'The interface is served under /api/v2 instead of the documented /api/v1.' },
  { name: 'unavailable-every-5th', description: 'Every 5th request answers 503 with Retry-After: 0 (ask again at once), without being handled; the request asked again is handled (a client whose requests interleave with those of other clients would otherwise meet the 5th place again and again); that the wait Retry-After names is honoured is proven in test/http-safety.test.ts.' },
  { name: 'slow', description: 'Every answer is delayed by 300 ms.' },
  { name: 'unavailable:<operationId>', description: 'The operation answers 503 with Retry-After: 0 every time it is asked, without being handled: the target says "not now" to the end.' },
  { name: 'hang:<operationId>', description: 'The operation is handled, but its answer never comes.' },
  { name: 'redirect:<operationId>', description: 'The operation answers 307 to the same path on another origin (redirectTo).' },
  { name: 'huge-body:<operationId>', description: 'The operation is handled and answers 200 with a 20 MiB JSON body.' },
  { name: 'html:<operationId>', description: 'The operation is handled and answers 200 with an HTML error page.' },
  { name: 'truncated-json:<operationId>', description: 'The operation is handled and answers its JSON cut in half.' },
  { name: 'outage-4s', description: 'From the first request on, every request answers 500 for 4 s, without being handled.' },
  { name: 'outage-4s-from:<request>', description: 'From the request with that number on (mid-run), every request answers 500 for 4 s, without being handled.' },
  { name: 'gateway-outage-3s-from:<request>', description: 'From the request with that number on (mid-run), a gateway in front of the reference answers 502 and 504 with HTML pages, in turn, for 3 s, without the requests reaching it.' },
  { name: 'key-revoked-from:<request>', description: 'From the request with that number on (mid-run), the valid key is revoked: every operation that checks the key answers it 401.' },
  { name: 'server-error:<operationId>', description: 'The operation answers 500 with a JSON error where it would answer 2xx, while every other operation works.' },
  { name: 'overlapping-run', description: 'After the 5th business update, another conformance run (scr-20260101-0badcafe) writes its value into the business name.' },
  { name: 'overlapping-run-unmarked', description: 'After the 2nd business update, another conformance run (scr-20260101-0badcafe), going (its live lease among the customers), changes the business currencyIso: a value no marker can carry.' },
  { name: 'overlapping-run-team-members', description: 'After the 2nd team member update, another conformance run (scr-20260101-0badcafe) writes its value into the first name of the last team member.' },
  { name: 'trickle-first:<operationId>', description: 'The first answer of the operation sends its headers, then its body one byte every 500 ms.' },
  { name: 'echo-key-encoded', description: 'Every error answer (4xx) to a request carrying a key echoes it in its body, encoded: base64 and base64url of the key, and base64 of key: and :key (a Basic credential), as a debugging gateway might.' },
  { name: 'not-json:<operationId>', description: 'The operation is handled and answers 200 "OK" labelled application/json.' },
  { name: 'create-lost-list-down', description: 'The second customer create (the first after a run\'s lease) is stored, and its connection is dropped before the answer; from then on the customer list answers 503 with Retry-After: 0: the record cannot be found by listing.' },
];

/** How slowly a trickling body comes: a customer list takes minutes. */
const TRICKLE_MS = 500;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const HUGE_BODY_BYTES = 20 * 1024 * 1024;

export function robustnessNamed(name: string): boolean {
  const [kind, op] = name.split(':');
  const generic = op === undefined ? kind : /^[1-9]\d*$/.test(op) ? `${kind}:<request>` : `${kind}:<operationId>`;
  return ROBUSTNESS_FAULTS.some((f) => f.name === generic);
}

export interface Robustness {
  /** An answer instead of the reference's, 'hang' for none ever, or undefined to handle the request. */
  /** `asker`: what tells one request from another on the same path (its key and Accept), so that the one turned away is the one let through when it asks again. */
  before(operationId: string | undefined, path: string, method?: string, asker?: string): RefResponse | 'hang' | undefined;
  /** The answer to send in place of the reference's own ('drop': the connection is closed instead); `authorization`: the request's header. */
  after(operationId: string | undefined, answer: RefResponse, authorization?: string): RefResponse | 'hang' | 'drop';
  /** Resolves when the answer may go out. */
  delay(): Promise<void>;
  /** Whether the valid key has been revoked by now (key-revoked-from). */
  keyRevoked(): boolean;
}

/** The page a gateway answers when the service behind it is down. */
const gatewayPage = (status: 502 | 504): RefResponse => {
  const title = status === 502 ? '502 Bad Gateway' : '504 Gateway Time-out';
  return { status, headers: { 'content-type': 'text/html' }, raw: `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>` };
};

export function robustness(names: string[], options: { redirectTo?: string } = {}): Robustness {
  const on = new Set(names);
  const forOp = (kind: string, op: string | undefined) => op !== undefined && on.has(`${kind}:${op}`);
  let requests = 0;
  let huge: string | undefined;
  let outageFrom: number | undefined;
  const outageFromName = names.find((n) => n.startsWith('outage-4s-from:'));
  const outageAt = outageFromName === undefined ? undefined : Number(outageFromName.split(':')[1]);
  const fifth = everyNth(5);
  const from = (kind: string) => {
    const name = names.find((n) => n.startsWith(`${kind}:`));
    return name === undefined ? undefined : Number(name.split(':')[1]);
  };
  const gatewayAt = from('gateway-outage-3s-from');
  const revokedAt = from('key-revoked-from');
  let gatewayFrom: number | undefined;
  const trickled = new Set<string>();
  let creates = 0;
  const notNow: RefResponse = { status: 503, headers: { 'retry-after': '0' }, body: { error: 'unavailable', message: 'Try again later' } };
  return {
    before(op, path, method = 'GET', asker = ''): RefResponse | 'hang' | undefined {
      requests += 1;
      const outage = on.has('outage-4s') || (outageAt !== undefined && requests >= outageAt);
      if (outage && Date.now() - (outageFrom ??= Date.now()) < 4000) {
        return { status: 500, body: { error: 'internal', message: 'The service is down' } };
      }
      if (gatewayAt !== undefined && requests >= gatewayAt && Date.now() - (gatewayFrom ??= Date.now()) < 3000) return gatewayPage(requests % 2 ? 502 : 504);
      if (on.has('unavailable-every-5th') && fifth(method, `${path} ${asker}`)) return notNow;
      if (forOp('unavailable', op)) return notNow;
      if (on.has('create-lost-list-down') && op === 'listCustomers' && creates >= 2) return notNow;
      if (forOp('redirect', op)) {
        if (!options.redirectTo) throw new Error('redirect fault without redirectTo');
        return { status: 307, headers: { location: new URL(path, options.redirectTo).href } };
      }
      return undefined;
    },
    after(op, answer, authorization) {
      if (forOp('hang', op)) return 'hang';
      if (on.has('create-lost-list-down') && op === 'createCustomer' && answer.status < 300 && ++creates === 2) return 'drop';
      const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
      if (on.has('echo-key-encoded') && key && answer.status >= 400 && answer.status < 500 && isObject(answer.body)) {
        const b64 = (text: string, how: BufferEncoding = 'base64') => Buffer.from(text).toString(how);
        return { ...answer, body: { ...answer.body, debug: { token: b64(key), tokenUrl: b64(key, 'base64url'), basic: b64(`${key}:`), basicUser: b64(`:${key}`) } } };
      }
      const body = answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
      if (forOp('huge-body', op)) {
        huge ??= `{"pad":"${'x'.repeat(HUGE_BODY_BYTES)}"}`;
        return { status: 200, raw: huge };
      }
      if (forOp('html', op)) {
        return { status: 200, headers: { 'content-type': 'text/html' }, raw: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>upstream error</p></body></html>' };
      }
      if (forOp('truncated-json', op)) return { ...answer, raw: body.slice(0, Math.max(1, Math.floor(body.length / 2))) };
      if (forOp('not-json', op)) return { status: 200, raw: 'OK' };
      if (forOp('trickle-first', op) && !trickled.has(op!)) return trickled.add(op!), { ...answer, trickleMs: TRICKLE_MS };
      if (forOp('server-error', op) && answer.status < 300) return { status: 500, body: { error: 'internal', message: 'Something went wrong' } };
      return answer;
    },
    delay: () => (on.has('slow') ? new Promise((resolve) => setTimeout(resolve, 300)) : Promise.resolve()),
    keyRevoked: () => revokedAt !== undefined && requests >= revokedAt,
  };
}
