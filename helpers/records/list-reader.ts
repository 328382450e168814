import LinkHeader from 'http-link-header';
import { TurnedAway, type Answer, type ApiClient } from '../http/client.ts';
import { excerpt, is2xx } from '../http/basics.ts';
import { listItems } from './record-shapes.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { fingerprint } from './compare.ts';
import { listSink } from './list-stream.ts';
import { DigestMap } from './digest-map.ts';
import { pageArrived, readingList } from '../core/check-clock.ts';
import type { TargetConfig } from '../config/target.ts';
import { limitsOf } from '../core/limits.ts';
import { perRun } from '../core/run-scope.ts';
import { movedSince, writesTo } from '../http/write-activity.ts';

/** How a list read ended: with the whole list, stopped by its reader (found), or past the page cap. */
export interface ListEnd {
  /** Every page was read: what the list does not name, the target does not list. */
  complete: boolean;
  /** The visitor stopped the read (it found what it looked for). */
  stopped: boolean;
  pages: number;
  /** Why the list is not known to be complete (the page cap, a next page on another origin). */
  unknown?: string;
  /**
   * Of a complete read: every id the list named (each read of it, when it was read again), kept
   * anyway to tell a repeat: a reader that asks which ids are listed takes these, not a set of its own (issue 35).
   */
  ids?: DigestMap;
}

/**
 * The target broke the list itself: a page that is no list, a next link that loops, a record
 * named twice. The list checks fail on it, saying which page did what.
 */
export class ListBroken extends Error {
  override name = 'ListBroken';
  /** The status of the page that was no list, when it answered one. */
  status?: number;
}

/**
 * The one list reader: follows the list's continuations — a next link in the body ("next",
 * "links.next", "_links.next.href"…), a `Link: <…>; rel="next"` header, or the page parameter the
 * vendor config names (listPaging) — and hands every element to `visit` as a stream, keeping only
 * the ids seen (to tell a repeat or a loop). The contract shows no paging, so the reader takes
 * what the target offers and never guesses a parameter. A next link on another origin is not
 * followed (the key goes to the configured origin only): completeness is then unknown, as it is
 * past the page cap.
 */
export class ListReader {
  constructor(
    private readonly client: ApiClient,
    private readonly target: TargetConfig,
  ) {}

  /**
   * Reads `path` page by page, giving each element to `visit` (return true to stop), each record
   * once in all. A record named twice is held against the target only on a read during which the
   * run wrote nothing to the list's records, and after a first read that did the same (another
   * writer may have moved rows between pages): a list read while the run's own creates and deletes
   * come and go may name one twice (an offset page after a delete). Read READS times, moving every
   * time, the list is the suite's limit (blocked), never the target's failure.
   */
  each(path: string, doing: string, visit: (item: unknown) => boolean | void): Promise<ListEnd> {
    return readingList(() => this.eachOnce(path, doing, visit));
  }

  private async eachOnce(path: string, doing: string, visit: (item: unknown) => boolean | void): Promise<ListEnd> {
    // What the reads before handed over: on the first read, every id it met (one map, not two, for a long list).
    let given: DigestMap | undefined;
    for (let read = 1; ; read++) {
      try {
        return await this.once(path, doing, visit, given, read);
      } catch (e) {
        if (!(e instanceof Repeated)) throw e;
        given ??= e.seen;
        if (read === READS) throw new IncompleteList(`${e.message}, on each of ${READS} reads while the run's own writes to these records went on: whether the list names a record twice by itself is unknown`);
      }
    }
  }

  /** Like each(), for a reader that needs every element: a list whose end is unknown throws IncompleteList. */
  async whole(path: string, doing: string, visit: (item: unknown) => boolean | void): Promise<ListEnd> {
    const end = await this.each(path, doing, visit);
    if (!end.complete && !end.stopped) throw new IncompleteList(`${doing}: ${end.unknown}`);
    return end;
  }

  /** Every element, for lists the run keeps whole (team members, a snapshot): see whole(). */
  async all(path: string, doing: string): Promise<unknown[]> {
    const items: unknown[] = [];
    await this.whole(path, doing, (item) => void items.push(item));
    return items;
  }

  /**
   * Every listed record as its id and a fingerprint of its fields (not the row: a list may hold
   * hundreds of thousands): for a reader that compares the whole target before and after. A list
   * whose end is unknown throws IncompleteList (see whole()).
   */
  async prints(path: string, doing: string, also?: (row: Row) => void): Promise<Map<string, string>> {
    const prints = new Map<string, string>();
    const idField = this.target.vendor.idField;
    await this.whole(path, doing, (item) => {
      if (!isRecord(item)) return;
      also?.(item);
      prints.set(String(item[idField]), fingerprint(item));
    });
    return prints;
  }

  private async once(path: string, doing: string, visit: (item: unknown) => boolean | void, given: DigestMap | undefined, read: number): Promise<ListEnd> {
    const mark = writesTo(path);
    const paging = this.target.vendor.listPaging;
    const { maxPages, maxBodyBytes } = limitsOf(this.target);
    const idField = this.target.vendor.idField;
    // Every id this read met, with its page (DigestMap), made at the size the last read of the list found.
    const seen = new DigestMap(lastLength().get(path));
    const visited = new Set<string>();
    let next: string | undefined = paging ? withPage(path, paging, paging.firstPage ?? 1) : path;
    let pages = 0;
    let items = 0;
    while (next !== undefined) {
      if (pages === maxPages) return { complete: false, stopped: false, pages, unknown: `the list goes on past ${maxPages} pages (--max-pages): whether it names every customer is unknown` };
      if (visited.has(next)) throw new ListBroken(`${doing}: the list's next link loops: page ${pages} links back to ${next}, already read`);
      visited.add(next);
      const pageNo = pages + 1;
      // A page asked again (a reset mid-body) hands over again only what it did not hand over
      // before: by position in the page, so that a record a page names twice is still seen twice.
      let handed = 0;
      let position = 0;
      let broken: ListBroken | undefined;
      let stopped = false;
      const handOver = (item: unknown): boolean => {
        position += 1;
        if (position <= handed) return false;
        handed = position;
        const id = isRecord(item) ? item[idField] : undefined;
        if (id !== undefined && id !== null) {
          const first = seen.get(String(id));
          if (first !== undefined) {
            const message = `${doing}: the list names record ${String(id)} twice (pages ${first} and ${pageNo})${read > 1 ? `, read ${read} times from the start` : ''}`;
            broken = read > 1 && !movedSince(path, mark) ? new ListBroken(message) : new Repeated(message, seen);
            return true;
          }
          seen.set(String(id), pageNo);
          items += 1;
          if (given?.has(String(id))) return false;
          given?.set(String(id));
        } else items += 1;
        return (stopped = Boolean(visit(item)));
      };
      let stream: ReturnType<typeof listSink> | undefined;
      // A page after the first is in the reports by its head only: a read of 1000 pages is every
      // check's that shares it, and would put 16 MB of rows no one judges one by one in each. The
      // checks hold a stub of it until the run's end: the request log holds the rest.
      const answer = await this.client.send({ method: 'GET', path: next, ...(pageNo > 1 && { excerptBytes: LATER_PAGE_EXCERPT, fromLog: true }), sink: (status) => (status >= 200 && status < 300 ? ((position = 0), (stream = listSink(idField, maxBodyBytes, handOver))).sink : undefined) });
      pages = pageNo;
      pageArrived();
      const where = pages === 1 ? `GET ${path}` : `page ${pages} of the list (GET ${next})`;
      if (broken) throw broken;
      if (stopped) return { complete: false, stopped: true, pages };
      if (!is2xx(answer)) throw Object.assign(new ListBroken(`${doing}: ${where} answered ${answer.status} ${body(answer)}`), { status: answer.status });
      // A client that parsed the body whole (no sink asked) gives the answer as it is.
      const page = stream?.page() ?? { skeleton: answer.json, rows: 0, others: [], stopped: false };
      let rows = page.rows;
      let skip: unknown[] | undefined;
      if (page.listPath === undefined) {
        // No element carried the id: the list is the one array there is (an empty page, or rows named otherwise).
        skip = answer.jsonError === undefined ? listItems(answer.json) : undefined;
        if (!skip) throw new ListBroken(`${doing}: ${where} answered ${answer.status} ${answer.jsonError ? `with a body ${answer.jsonError}` : body(answer)}, neither a JSON array nor an object holding exactly one array`);
        position = 0;
        for (const item of skip) if (handOver(item) || broken) break;
        if (broken) throw broken;
        if (stopped) return { complete: false, stopped: true, pages };
        rows = skip.length;
      } else if (answer.jsonError !== undefined) {
        throw new ListBroken(`${doing}: ${where} answered ${answer.status} with a body ${answer.jsonError}`);
      }
      if (page.others.length) {
        return { complete: false, stopped: false, pages, unknown: `${where} holds records in ${[page.listPath, ...page.others].map((p) => JSON.stringify(p)).join(' and ')}: which array is the list is not told, so whether it names every record is unknown` };
      }
      if (paging) {
        next = rows ? withPage(path, paging, (paging.firstPage ?? 1) + pages) : undefined;
        continue;
      }
      const more = moreOf(answer, { items, pages, rows, skip });
      if (more === undefined) next = undefined;
      else if ('cannot' in more) {
        return { complete: false, stopped: false, pages, unknown: `${where} says the list goes on (${more.cannot}) in a way the suite cannot follow (a link, or a cursor named cursor, after, starting_after, page_token, page or offset), so whether it names every record is unknown: give the page parameter as listPaging in the vendor config` };
      } else if ('param' in more) next = withParam(next, more.param, more.value);
      else {
        const resolved = this.sameOrigin(more.link, this.target.baseUrl + next);
        if (typeof resolved !== 'string') return { complete: false, stopped: false, pages, unknown: resolved.unknown };
        next = resolved;
      }
    }
    lastLength().set(path, seen.size);
    return { complete: true, stopped: false, pages, ids: given ?? seen };
  }

  /** The path (under the base URL) of a next link, or why it is not followed. */
  private sameOrigin(link: string, pageUrl: string): string | { unknown: string } {
    let url: URL;
    try {
      url = new URL(link, pageUrl);
    } catch {
      return { unknown: `the list's next link ${JSON.stringify(link)} is no URL: whether it names every record is unknown` };
    }
    const base = this.target.baseUrl.replace(/\/$/, '');
    if (!`${url.origin}${url.pathname}`.startsWith(base)) {
      return { unknown: `the list's next page is at ${url.origin}${url.pathname}, outside ${base}: the suite sends the key to that origin only, so whether the list names every record is unknown` };
    }
    return `${url.pathname.slice(new URL(base).pathname.replace(/\/$/, '').length)}${url.search}`;
  }
}

/**
 * How many records each list held when last read whole in this run: the size its next read's
 * DigestMap is made at. Per run (helpers/core/run-scope.ts): a suites' worker kept for the next run
 * would otherwise make that run's maps at the size of another target's lists.
 */
const lastLength = perRun(() => new Map<string, number>());

class Repeated extends ListBroken {
  constructor(
    message: string,
    /** The ids the read met (and handed over) before the repeat. */
    readonly seen: DigestMap,
  ) {
    super(message);
  }
}

/** How many times a list that names a record twice is read from the start (see each()). */
const READS = 4;

/** What the reports keep of a list's page after the first (bytes): its head, enough to see what it is. */
const LATER_PAGE_EXCERPT = 256;

/**
 * A list wanted whole whose end is unknown (the page cap, a next page that is no link or on
 * another origin): the suite's limit, never the target's failure. A check is blocked by the suite
 * on it (it is a TurnedAway); elsewhere its message says which list, and why.
 */
export class IncompleteList extends TurnedAway {
  override name = 'IncompleteList';
  constructor(why: string) {
    super(why, 'the suite');
    this.message = why;
  }
}

const body = (answer: Answer) => (answer.text.trim() === '' ? 'with an empty body' : excerpt(answer.text));

/** How a list answer says it goes on: a link to the next page, a parameter to pass back, or only that it does (the field that says so). */
export type More = { link: string } | { param: string; value: string } | { cannot: string };

/** Parameters a cursor or page is passed back under (the field's own spelling kept: nextPageToken gives pageToken). */
const CONTINUATIONS = ['cursor', 'after', 'startingafter', 'pagetoken', 'page', 'offset'];
/** A field whose name says the list goes on; one that names another page (prev, first, last, self) says nothing of what follows. */
const SAYS_MORE = /next|cursor|token|more|continu/i;
const ELSEWHERE = /prev|before|first|last|self/i;
const LINKISH = /^(https?:\/\/|\/|\?)/i;

/**
 * Whether a list answer says there is more after it, and how to get it. The contract shows no
 * paging, so this is judged by property, not by a list of keys: a `Link: <…>; rel="next"`
 * header; any field of the envelope whose name says next, cursor, token, more or continuation
 * holding something (not null, false or ""); a `{rel: "next", href}` element; a total larger than
 * the rows read (or a total of pages larger than the pages read). A link is followed; a cursor is
 * passed back under the parameter its name gives, if it is one of CONTINUATIONS; a total is
 * followed by advancing the answer's own offset (by the rows read) or page; anything else is
 * named (cannot), and the list's end is then unknown. `skip`: the list's own elements, when they
 * are still in the answer (rows without the id), whose fields say nothing of paging.
 */
export function moreOf(answer: Pick<Answer, 'headers' | 'json'>, read: { items: number; pages: number; rows: number; skip?: unknown[] }): More | undefined {
  const header = answer.headers.link;
  if (header) {
    const [next] = LinkHeader.parse(header).rel('next');
    if (next?.uri) return { link: next.uri };
  }
  const links: string[] = [];
  const params: { param: string; value: string }[] = [];
  const says: string[] = [];
  const totals: string[] = [];
  let offset: { key: string; value: number } | undefined;
  let page: { key: string; value: number } | undefined;
  const walk = (node: unknown, at: string): void => {
    if (node === read.skip) return;
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}[${i}]`));
    if (!isRecord(node)) return;
    const href = node.href ?? node.url ?? node.uri;
    if (typeof node.rel === 'string' && /\bnext\b/i.test(node.rel) && typeof href === 'string' && href !== '') links.push(href);
    for (const [key, value] of Object.entries(node)) {
      const path = at ? `${at}.${key}` : key;
      if (typeof value === 'number' && /^(offset|skip|start)$/i.test(key)) offset = { key, value };
      if (typeof value === 'number' && /^(page|page_?number|current_?page)$/i.test(key)) page = { key, value };
      if (typeof value === 'number' && /total/i.test(key)) {
        const pages = /page/i.test(key);
        if (value > (pages ? read.pages : read.items)) totals.push(`${path}: ${value}, ${pages ? `${read.pages} pages` : `${read.items} records`} read`);
        continue;
      }
      if (!SAYS_MORE.test(key) || ELSEWHERE.test(key)) {
        if (typeof value === 'object') walk(value, path);
        continue;
      }
      if (value === null || value === false || value === '') continue;
      if (typeof value === 'string' && LINKISH.test(value)) links.push(value);
      else if (isRecord(value) && typeof value.href === 'string' && value.href !== '') links.push(value.href);
      else if (typeof value === 'string' || typeof value === 'number') {
        const param = key.replace(/^next[_-]?/i, '').replace(/^[A-Z]/, (c) => c.toLowerCase());
        if (CONTINUATIONS.includes(param.replace(/[_-]/g, '').toLowerCase())) params.push({ param, value: String(value) });
        else says.push(`${path}: ${JSON.stringify(value)}`);
      } else {
        says.push(`${path}: ${excerpt(JSON.stringify(value))}`);
        if (typeof value === 'object') walk(value, path);
      }
    }
  };
  if (!Array.isArray(answer.json)) walk(answer.json, '');
  if (links.length) return { link: links[0] };
  if (params.length) return params[0];
  if (totals.length) {
    if (read.rows === 0) return { cannot: `${totals[0]}, but its last page held none` };
    if (offset) return { param: offset.key, value: String(offset.value + read.rows) };
    if (page) return { param: page.key, value: String(page.value + 1) };
    return { cannot: totals[0] };
  }
  return says.length ? { cannot: says.join('; ') } : undefined;
}

/** `path` with `param` set to `value` (replacing the one it had). */
function withParam(path: string, param: string, value: string): string {
  const [base, query = ''] = path.split(/\?(.*)/s, 2);
  const params = new URLSearchParams(query);
  params.set(param, value);
  return `${base}?${params}`;
}

/** The vendor's page-number paging: `path?page=n` (and the page size, if named). */
function withPage(path: string, paging: NonNullable<TargetConfig['vendor']['listPaging']>, page: number): string {
  const params = new URLSearchParams({ [paging.pageParam]: String(page) });
  if (paging.sizeParam && paging.size !== undefined) params.set(paging.sizeParam, String(paging.size));
  return `${path}${path.includes('?') ? '&' : '?'}${params}`;
}
