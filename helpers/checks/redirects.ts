import type { Exchange } from '../http/exchanges.ts';

/**
 * A reason with the Location of every redirect among the check's answers that it does not name
 * yet: the suite follows no redirect (the key goes to the configured origin only), so "answered
 * 301" alone leaves the reader guessing where the target was pointing.
 */
export function withRedirects(reason: string, exchanges: Exchange[]): string {
  const notes = new Set<string>();
  for (const e of exchanges) {
    const r = e.response;
    const location = r && r.status >= 300 && r.status < 400 ? r.headers.location : undefined;
    if (location === undefined || reason.includes(location)) continue;
    notes.add(`${e.request.method} ${new URL(e.request.url).pathname} answered ${r!.status} with Location: ${location}`);
  }
  return notes.size ? `${reason} (${[...notes].join('; ')})` : reason;
}
