/** One line of the request log (requests.jsonl), as far as a count of list reads needs it. */
export interface LoggedRequest {
  phase: string;
  exchange: { id?: string; request: { method: string; url: string; headers: Record<string, string> } };
}

/** The lists a run reads whole (issue 35 bounds how often). */
export type WholeList = 'customers' | 'team-members';

/**
 * Whether a logged request starts a read of a whole list: a GET of the collection itself, with the
 * key (an observation without it asks whether the list is served, and reads nothing of it), that
 * is no continuation (no query but a page size or a first page asked by number: pages 2… and
 * cursors walk on from one read). Counted from the log, whatever the code that sent it.
 */
export function wholeListRead({ exchange: { request } }: LoggedRequest): WholeList | undefined {
  if (request.method !== 'GET') return undefined;
  const url = new URL(request.url);
  const list = /\/api\/v1\/(customers|team-members)\/?$/.exec(url.pathname)?.[1] as WholeList | undefined;
  if (!list || !Object.values(request.headers).some((v) => v.includes('$SCHEDULING_API_KEY'))) return undefined;
  const continues = [...url.searchParams].some(([k, v]) => (/^(page|page_?number)$/i.test(k) ? !/^[01]$/.test(v) : !/size|limit|per_?page/i.test(k)));
  return continues ? undefined : list;
}

/**
 * The whole-list reads in a request log, per list and phase (preflight, baseline, lease, suites,
 * after-run clean-up). Given the ids of the checks' exchanges (result.json), the suites' reads
 * are told apart: "checks", "first record" for those of `firstRecord` (reads that stop at the
 * first record listed: the operations pass, the observations), and "suites" for the rest (the
 * frame at each lane's end, a lane's closing verification).
 */
export function wholeListReads(log: LoggedRequest[], ofChecks?: Set<string>, firstRecord?: Set<string>): Record<WholeList, Record<string, number>> {
  const counts: Record<WholeList, Record<string, number>> = { customers: {}, 'team-members': {} };
  for (const entry of log) {
    const list = wholeListRead(entry);
    const id = entry.exchange.id ?? '';
    const phase = entry.phase !== 'suites' ? entry.phase : ofChecks?.has(id) ? 'checks' : firstRecord?.has(id) ? 'first record' : entry.phase;
    if (list) counts[list][phase] = (counts[list][phase] ?? 0) + 1;
  }
  return counts;
}
