import LinkHeader from 'http-link-header';
import { TurnedAway, type Answer, type ApiClient } from '../http/client.ts';
import { excerpt, is2xx } from '../http/basics.ts';
import { listItems } from './record-shapes.ts';
import { isRecord } from '../contract/record.ts';
import type { TargetConfig } from '../config/target.ts';
import { limitsOf } from '../core/limits.ts';

/** How a list read ended: with the whole list, stopped by its reader (found), or past the page cap. */
export interface ListEnd {
  /** Every page was read: what the list does not name, the target does not list. */
  complete: boolean;
  /** The visitor stopped the read (it found what it looked for). */
  stopped: boolean;
  pages: number;
  /** Why the list is not known to be complete (the page cap, a next page on another origin). */
  unknown?: string;
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
   * Reads `path` page by page, giving each element to `visit` (return true to stop). A record
   * named twice may be a foreign writer moving rows between pages: the list is read once more
   * from the start before that is held against the target.
   */
  async each(path: string, doing: string, visit: (item: unknown) => boolean | void): Promise<ListEnd> {
    try {
      return await this.once(path, doing, visit);
    } catch (e) {
      if (!(e instanceof Repeated)) throw e;
      return this.once(path, doing, visit, true);
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

  private async once(path: string, doing: string, visit: (item: unknown) => boolean | void, again = false): Promise<ListEnd> {
    const paging = this.target.vendor.listPaging;
    const { maxPages } = limitsOf(this.target);
    const idField = this.target.vendor.idField;
    const seen = new Map<string, number>();
    const visited = new Set<string>();
    let next: string | undefined = paging ? withPage(path, paging, paging.firstPage ?? 1) : path;
    let pages = 0;
    while (next !== undefined) {
      if (pages === maxPages) return { complete: false, stopped: false, pages, unknown: `the list goes on past ${maxPages} pages (--max-pages): whether it names every customer is unknown` };
      if (visited.has(next)) throw new ListBroken(`${doing}: the list's next link loops: page ${pages} links back to ${next}, already read`);
      visited.add(next);
      const answer = await this.client.send({ method: 'GET', path: next });
      pages += 1;
      const where = pages === 1 ? `GET ${path}` : `page ${pages} of the list (GET ${next})`;
      if (!is2xx(answer)) throw Object.assign(new ListBroken(`${doing}: ${where} answered ${answer.status} ${body(answer)}`), { status: answer.status });
      const items = listItems(answer.json);
      if (!items) throw new ListBroken(`${doing}: ${where} answered ${answer.status} ${body(answer)}, neither a JSON array nor an object holding exactly one array`);
      for (const item of items) {
        const id = isRecord(item) ? item[idField] : undefined;
        if (id !== undefined && id !== null) {
          const first = seen.get(String(id));
          if (first !== undefined) {
            const message = `${doing}: the list names record ${String(id)} twice (pages ${first} and ${pages})${again ? ', read twice from the start' : ''}`;
            throw again ? new ListBroken(message) : new Repeated(message);
          }
          seen.set(String(id), pages);
        }
        if (visit(item)) return { complete: false, stopped: true, pages };
      }
      if (paging) next = items.length ? withPage(path, paging, (paging.firstPage ?? 1) + pages) : undefined;
      else {
        const link = nextLink(answer);
        if (link === undefined) next = undefined;
        else if (!/^(https?:\/\/|\/|\?)/i.test(link)) {
          return { complete: false, stopped: false, pages, unknown: `the list names its next page as ${JSON.stringify(link)}, which is no link: give the page parameter as listPaging in the vendor config` };
        } else {
          const resolved = this.sameOrigin(link, this.target.baseUrl + next);
          if (typeof resolved !== 'string') return { complete: false, stopped: false, pages, unknown: resolved.unknown };
          next = resolved;
        }
      }
    }
    return { complete: true, stopped: false, pages };
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

class Repeated extends ListBroken {}

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

/** The next page a list answer names: `Link: <…>; rel="next"`, else a next link in its body. */
export function nextLink(answer: Pick<Answer, 'headers' | 'json'>): string | undefined {
  const header = answer.headers.link;
  if (header) {
    const [next] = LinkHeader.parse(header).rel('next');
    if (next?.uri) return next.uri;
  }
  if (!isRecord(answer.json)) return undefined;
  const json = answer.json;
  for (const holder of [json, json.links, json._links, json.paging, json.pagination, json.meta]) {
    if (!isRecord(holder)) continue;
    for (const key of ['next', 'nextPage', 'next_page', 'nextUrl', 'next_url']) {
      const value = holder[key];
      if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value);
      if (isRecord(value) && typeof value.href === 'string' && value.href !== '') return value.href;
    }
  }
  return undefined;
}

/** The vendor's page-number paging: `path?page=n` (and the page size, if named). */
function withPage(path: string, paging: NonNullable<TargetConfig['vendor']['listPaging']>, page: number): string {
  const params = new URLSearchParams({ [paging.pageParam]: String(page) });
  if (paging.sizeParam && paging.size !== undefined) params.set(paging.sizeParam, String(paging.size));
  return `${path}${path.includes('?') ? '&' : '?'}${params}`;
}
