import { STATUS_CODES } from 'node:http';
import type { Entry, Har, Header, Page } from 'har-format';
import type { Exchange, WireEntry } from '../../http/exchanges.ts';
import type { RunResult } from '../run-result.ts';
import { jsonPieces, MadeArray } from '../json-pieces.ts';

const headerList = (headers: Record<string, string>): Header[] => Object.entries(headers).map(([name, value]) => ({ name, value }));
const lower = (headers: Record<string, string>, name: string) =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

function entry(e: Exchange, pageref: string): Entry {
  const url = new URL(e.request.url);
  const requestBytes = e.request.body === undefined ? 0 : Buffer.byteLength(e.request.body);
  const r = e.response;
  return {
    pageref,
    startedDateTime: e.startedAt,
    time: e.durationMs,
    request: {
      method: e.request.method,
      url: e.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(e.request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(e.request.body === undefined ? {} : { postData: { mimeType: lower(e.request.headers, 'content-type') ?? 'application/json', text: e.request.body } }),
      headersSize: -1,
      bodySize: requestBytes,
    },
    // No answer (timeout, refused): HAR has no such response, so status 0 as browsers record it.
    response: {
      status: r?.status ?? 0,
      statusText: r ? (STATUS_CODES[r.status] ?? '') : '',
      httpVersion: r ? 'HTTP/1.1' : '',
      cookies: [],
      headers: r ? headerList(r.headers) : [],
      content: {
        size: r?.bodyBytes ?? 0,
        mimeType: (r && lower(r.headers, 'content-type')) ?? 'x-unknown',
        text: r?.body ?? '',
        ...(r?.truncated ? { comment: `cut to the first ${r.body.length} characters of ${r.bodyBytes} bytes` } : {}),
      },
      redirectURL: (r && lower(r.headers, 'location')) ?? '',
      headersSize: -1,
      bodySize: r?.bodyBytes ?? -1,
      ...(e.error ? { _error: e.error } : {}),
    },
    cache: {},
    timings: { send: 0, wait: e.durationMs, receive: 0 },
    ...(e.attempt > 1 ? { comment: `attempt ${e.attempt}` } : {}),
  };
}

/** HAR 1.2 of every request of the run, once each: one page per check or observation, and one per phase outside them. */
export function toHar(run: RunResult): Har {
  return harOf(runGroups(run), run.suite, `${run.target.origin}, ${run.startedAt}`);
}

/** toHar's text (JSON, indented by 2), each entry made as it is written: a long list's run holds tens of thousands. */
export function harPieces(run: RunResult): Generator<string> {
  const { pages, shown, creator, comment } = harParts(runGroups(run), run.suite, `${run.target.origin}, ${run.startedAt}`);
  return jsonPieces({ log: { version: '1.2', creator, pages, entries: new MadeArray(shown.length, (i) => entry(...shown[i])), comment } });
}

const runGroups = (run: RunResult) => [
  ...run.checks.map((c) => ({ id: c.id, title: `${c.id} [${c.level}] ${c.outcome}: ${c.title}`, exchanges: c.exchanges })),
  ...run.observations.map((o) => ({ id: `observation:${o.id}`, title: `observation ${o.id}: ${o.title}`, exchanges: o.exchanges })),
  ...(run.outsideChecks ?? []).map((o) => ({ id: `run:${o.phase}`, title: `outside the checks: ${o.phase}`, exchanges: o.exchanges })),
];

/** HAR 1.2 of a request log (requests.jsonl's lines, say --recover's own): one page per phase, each request once. */
export function requestLogHar(requests: WireEntry[], suiteVersion: string, about: string): Har {
  const phases = new Map<string, Exchange[]>();
  for (const { phase, exchange } of requests) phases.set(phase, phases.get(phase) ?? []).get(phase)!.push(exchange);
  return harOf([...phases].map(([phase, exchanges]) => ({ id: phase, title: phase, exchanges })), { name: 'scheduling-conformance', version: suiteVersion }, about);
}

function harOf(groups: { id: string; title: string; exchanges: Exchange[] }[], creator: { name: string; version: string }, about: string): Har {
  const { pages, shown, comment } = harParts(groups, creator, about);
  return { log: { version: '1.2', creator, pages, entries: shown.map((s) => entry(...s)), comment } };
}

/** The pages, and each request once with the page it is shown on. */
function harParts(groups: { id: string; title: string; exchanges: Exchange[] }[], creator: { name: string; version: string }, about: string) {
  const pages: Page[] = [];
  const shown: [Exchange, string][] = [];
  // A request two checks share (one step both judge) is shown on the page of the first.
  const seen = new Set<string>();
  const add = (id: string, title: string, all: Exchange[]) => {
    // Once each, within a page too: the HAR holds what the wire carried.
    const exchanges: Exchange[] = [];
    for (const e of all) {
      if (e.id !== undefined && seen.has(e.id)) continue;
      if (e.id !== undefined) seen.add(e.id);
      exchanges.push(e);
    }
    if (!exchanges.length) return;
    pages.push({ id, title, startedDateTime: exchanges[0].startedAt, pageTimings: {} });
    for (const e of exchanges) shown.push([e, id]);
  };
  for (const g of groups) add(g.id, g.title, g.exchanges);
  return { pages, shown, creator, comment: `${about}; keys appear as $SCHEDULING_API_KEY / $SCHEDULING_EXPIRED_KEY` };
}
