import type { RefResponse } from './types.ts';

/**
 * Variations and faults of a paged list (paging is not shown): pages of a fixed size, the next
 * one named by a link in the body ({"items": [...], "next": "/api/v1/customers?page=2"}) or by a
 * `Link: <…>; rel="next"` header, newest last. The faults break the continuation: the links stop
 * early, a page repeats the last row of the one before, or the last page links back to the first.
 */
export interface Paging {
  /** body: {"items", "next": link}; link: a Link header; cursor-meta: {"data", "meta": {"nextCursor"}}, the next page at ?cursor=… (no link); has-more (variation list-pages-has-more): {"data": [...], "has_more"}, the next page only by its number. */
  style: 'body' | 'link' | 'cursor-meta' | 'has-more';
  size: number;
  fault?: 'stop-early' | 'repeat' | 'loop';
}

/** Where the stop-early fault stops linking: the records after this many pages (the run's own) are never listed. */
const STOP_AFTER_PAGES = 3;

export function pageOf(rows: unknown[], path: string, query: URLSearchParams, paging: Paging): RefResponse {
  const cursor = /^c(\d+)$/.exec(query.get('cursor') ?? '')?.[1];
  const page = Math.max(1, Number(cursor ?? query.get('page') ?? '1') || 1);
  const start = (page - 1) * paging.size - (paging.fault === 'repeat' && page > 1 ? 1 : 0);
  const items = rows.slice(start, (page - 1) * paging.size + paging.size);
  let more = page * paging.size < rows.length;
  if (paging.fault === 'stop-early' && page >= STOP_AFTER_PAGES) more = false;
  const next = more ? `${path}?page=${page + 1}` : paging.fault === 'loop' ? `${path}?page=1` : undefined;
  if (paging.style === 'has-more') return { status: 200, body: { data: items, has_more: more } };
  if (paging.style === 'cursor-meta') return { status: 200, body: { data: items, meta: { nextCursor: more ? `c${page + 1}` : null } } };
  if (paging.style === 'body') return { status: 200, body: { items, next: next ?? null } };
  return { status: 200, body: items, headers: next ? { link: `<${next}>; rel="next"` } : undefined };
}
