/**
 * Lists in pages and lagging reads (the environment is not the implementation). The one list
 * reader follows every kind of continuation and knows when it has the whole list; convergence
 * waits for the run's own writes, within bounds; past the page cap the checks that need the whole
 * list are blocked, not failed.
 */
import { describe, expect, test } from 'vitest';
import { IncompleteList, ListBroken, ListReader } from '../helpers/records/list-reader.ts';
import { converge, Lag, quiesce, readCurrent } from '../helpers/core/converge.ts';
import { atOnce } from '../helpers/core/at-once.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { ApiClient, SendOptions } from '../helpers/http/client.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { startReference } from '../reference/server.ts';
import { liveLeasesOfOthers } from '../helpers/safety/lease.ts';
import { readSharedRecords } from '../helpers/safety/shared-records.ts';
import { loadSpec, type Operation } from '../helpers/contract/spec.ts';
import { ModeLock } from '../helpers/core/mode-lock.ts';
import { CreatedRecords } from '../helpers/safety/created-records.ts';
import { runInProcess } from './support/cli.ts';
import { idsWith, readResult } from './support/verdicts.ts';

const BASE = 'http://127.0.0.1:9/base';
type Page = { json?: unknown; headers?: Record<string, string>; status?: number };

/** A client answering each path from `pages`, counting what was asked. */
function fakeClient(pages: Record<string, Page>) {
  const asked: string[] = [];
  const client = {
    target: target(),
    send: async ({ path, sink }: SendOptions) => {
      asked.push(path);
      const page = pages[path] ?? { status: 404, json: {} };
      const status = page.status ?? 200;
      const text = JSON.stringify(page.json ?? '');
      // As the client does: a body the reader takes as it arrives goes to its sink in small chunks.
      const stream = sink?.(status, page.headers ?? {});
      if (!stream) return { status, headers: page.headers ?? {}, json: page.json, text, exchange: {} };
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length && !stream.write(bytes.subarray(at, at + 7)); at += 7);
      return { status, headers: page.headers ?? {}, text, ...stream.end(), exchange: {} };
    },
  } as unknown as ApiClient;
  return { client, asked };
}

const target = (extra: Partial<TargetConfig> = {}, vendor: Partial<TargetConfig['vendor']> = {}): TargetConfig =>
  ({ baseUrl: BASE, apiKey: 'k', vendor: { ...DEFAULT_VENDOR_CONFIG, ...vendor }, strict: false, readOnly: false, timeoutMs: 1000, runId: 'r', ...extra }) as TargetConfig;

const rows = (...ids: number[]) => ids.map((id) => ({ id }));

async function read(pages: Record<string, Page>, t = target()) {
  const { client, asked } = fakeClient(pages);
  const seen: unknown[] = [];
  const end = await new ListReader(client, t).each('/c', 'listing', (row) => void seen.push((row as { id: number }).id));
  return { end, seen, asked };
}

describe('the list reader', () => {
  test('follows a next link in the body (path or same-origin URL) and a Link header, to the end', async () => {
    const { end, seen } = await read({
      '/c': { json: { items: rows(1, 2), next: '/base/c?page=2' } },
      '/c?page=2': { json: rows(3), headers: { link: `<${BASE}/c?page=3>; rel="next"` } },
      '/c?page=3': { json: { data: rows(4), links: { next: null } } },
    });
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(end).toMatchObject({ complete: true, pages: 3 });
  });

  test('a long list is a stream: each page is handed over before the next is asked for, and the reader keeps no row', async () => {
    const PAGES = 50;
    const SIZE = 1000;
    let asked = 0;
    const client = {
      target: target(),
      send: async ({ path }: { path: string }) => {
        asked += 1;
        const page = Number(new URL(path, 'http://x').searchParams.get('page') ?? '1');
        const json = { items: Array.from({ length: SIZE }, (_, i) => ({ id: (page - 1) * SIZE + i })), next: page < PAGES ? `/base/c?page=${page + 1}` : null };
        return { status: 200, headers: {}, json, text: '', exchange: {} };
      },
    } as unknown as ApiClient;
    let seen = 0;
    let ahead = 0;
    const end = await new ListReader(client, target()).each('/c', 'listing', (row) => {
      // Row n of page p is visited while page p is the last one asked for.
      if (asked !== Math.floor((row as { id: number }).id / SIZE) + 1) ahead += 1;
      seen += 1;
    });
    expect([seen, ahead]).toEqual([PAGES * SIZE, 0]);
    expect(end).toMatchObject({ complete: true, stopped: false, pages: PAGES });
    // The ids it keeps to tell a repeat are the list's, for a reader that asks which are listed.
    expect([end.ids?.size, end.ids?.has('0'), end.ids?.has(String(PAGES * SIZE - 1)), end.ids?.has(String(PAGES * SIZE))]).toEqual([PAGES * SIZE, true, true, false]);
  });

  test('a "present" search stops at the row found: the rest is not read', async () => {
    const { client, asked } = fakeClient({ '/c': { json: { items: rows(1), next: '/base/c?page=2' } }, '/c?page=2': { json: rows(2) } });
    const end = await new ListReader(client, target()).each('/c', 'listing', (row) => (row as { id: number }).id === 1);
    expect(end).toMatchObject({ complete: false, stopped: true });
    expect(asked).toEqual(['/c']);
  });

  test('a next link that loops, and a record named twice in two readings, break the list', async () => {
    await expect(read({ '/c': { json: { items: rows(1), next: '/base/c?page=2' } }, '/c?page=2': { json: { items: rows(2), next: '/base/c' } } })).rejects.toThrow(/loops/);
    await expect(read({ '/c': { json: { items: rows(1, 2), next: '/base/c?page=2' } }, '/c?page=2': { json: rows(2, 3) } })).rejects.toThrow(ListBroken);
  });

  test('a record named twice once (a writer moving rows meanwhile) is read again from the start, not held against the target', async () => {
    let first = true;
    const { client } = fakeClient({});
    (client as unknown as { send: unknown }).send = async ({ path }: { path: string }) => {
      const json = path === '/c' ? { items: rows(1, 2), next: '/base/c?page=2' } : { items: first ? rows(2, 3) : rows(3) };
      if (path !== '/c') first = false;
      return { status: 200, headers: {}, json, text: '', exchange: {} };
    };
    const seen: unknown[] = [];
    const end = await new ListReader(client, target()).each('/c', 'listing', (row) => void seen.push((row as { id: number }).id));
    expect(end.complete).toBe(true);
    expect(seen.slice(-3)).toEqual([1, 2, 3]);
  });

  test('a next page on another origin, or named by a token, is not followed: completeness is unknown', async () => {
    const other = await read({ '/c': { json: { items: rows(1), next: 'https://elsewhere.example/c?page=2' } } });
    expect(other.end).toMatchObject({ complete: false, stopped: false });
    expect(other.end.unknown).toMatch(/elsewhere\.example/);
    expect(other.asked).toEqual(['/c']);
    const token = await read({ '/c': { json: { items: rows(1), next: 'eyJvZmZzZXQiOjEwfQ' } } });
    expect(token.end.unknown).toMatch(/listPaging/);
  });

  test('a list with an unknown paging field blocks and does not fail; a list says it goes on by any field whose name says so: a cursor in a meta object is passed back, an offset advances by the rows read, a field it cannot follow is named', async () => {
    const cursor = await read({
      '/c': { json: { data: rows(1, 2), meta: { nextCursor: 'c2' } } },
      '/c?cursor=c2': { json: { data: rows(3), meta: { nextCursor: null } } },
    });
    expect(cursor).toMatchObject({ seen: [1, 2, 3], end: { complete: true, pages: 2 } });
    const offset = await read({
      '/c': { json: { results: rows(1, 2), offset: 0, total: 3 } },
      '/c?offset=2': { json: { results: rows(3), offset: 2, total: 3 } },
    });
    expect(offset).toMatchObject({ seen: [1, 2, 3], end: { complete: true } });
    for (const says of [{ has_more: true }, { paging: { resumeToken: 'k2' } }, { count: 2, totalRecords: 9 }, { links: [{ rel: 'next', title: 'more' }], continuation: { key: 'x' } }]) {
      const { end, asked } = await read({ '/c': { json: { data: rows(1, 2), ...says } } });
      expect(asked).toEqual(['/c']);
      expect(end).toMatchObject({ complete: false, stopped: false });
      expect(end.unknown).toContain(Object.keys(says).at(-1));
      // A check that needs the whole list is blocked by the suite (IncompleteList is a TurnedAway), never failed.
      const whole = new ListReader(fakeClient({ '/c': { json: { data: rows(1, 2), ...says } } }).client, target()).whole('/c', 'listing', () => {});
      await expect(whole).rejects.toBeInstanceOf(IncompleteList);
    }
    // Nothing says more: a current page, a null cursor, a total the rows reach.
    const whole = await read({ '/c': { json: { data: rows(1, 2), page: 1, nextCursor: null, has_more: false, total: 2, prev: '/c?page=0' } } });
    expect(whole.end).toMatchObject({ complete: true, pages: 1 });
  });

  test('the vendor\'s page parameter is read until an empty page; past the page cap completeness is unknown', async () => {
    const paged = target({}, { listPaging: { pageParam: 'p', firstPage: 0, sizeParam: 'n', size: 2 } });
    const { end, seen, asked } = await read({ '/c?p=0&n=2': { json: rows(1, 2) }, '/c?p=1&n=2': { json: rows(3) }, '/c?p=2&n=2': { json: [] } }, paged);
    expect(seen).toEqual([1, 2, 3]);
    expect(asked).toHaveLength(3);
    expect(end.complete).toBe(true);
    const capped = await read({ '/c': { json: { items: rows(1), next: '/base/c?page=2' } }, '/c?page=2': { json: { items: rows(2), next: '/base/c?page=3' } } }, target({ maxPages: 2 }));
    expect(capped.end).toMatchObject({ complete: false, pages: 2 });
    expect(capped.end.unknown).toMatch(/--max-pages/);
  });
});

describe('the look-ups that need every page', () => {
  const other = 'scr-20260101-0badc0de';
  const at = Date.now();

  test('another run\'s live lease on a later page of the customers is found', async () => {
    const lease = { id: 'l', lastName: `Customer ${other} lease-${Math.floor(at / 1000)}` };
    const { client } = fakeClient({ '/c': { json: { items: rows(1, 2), next: '/base/c?page=2' } }, '/c?page=2': { json: [lease] } });
    const live = await liveLeasesOfOthers(client, { listPath: '/c', field: 'lastName', base: 'Customer', idField: 'id' }, 'r', at);
    expect(live.map((l) => l.runId)).toEqual([other]);
  });

  test('the team members the run must put back are read from every page; a list whose end is unknown is a problem, not a short snapshot', async () => {
    const spec = await loadSpec();
    const path = '/api/v1/team-members';
    const members = { [path]: { json: { items: rows(1), next: `/base${path}?page=2` } }, [`${path}?page=2`]: { json: rows(2) } };
    const business = { '/api/v1/business': { json: { name: 'b' } } };
    const { client } = fakeClient({ ...members, ...business });
    const { records, problems } = await readSharedRecords(client, spec, target());
    expect(problems).toEqual([]);
    expect(records.map((r) => r.path)).toEqual(expect.arrayContaining([`${path}/1`, `${path}/2`]));
    const { client: capped } = fakeClient({ ...members, ...business });
    (capped as unknown as { target: TargetConfig }).target = target({ maxPages: 1 });
    const short = await readSharedRecords(capped, spec, target({ maxPages: 1 }));
    expect(short.problems.join()).toMatch(/--max-pages/);
  });
});

describe('ids reused after a delete', () => {
  test('a create never meets a delete in flight; creates share the lane, and so do deletes', async () => {
    const lock = new ModeLock();
    const log: string[] = [];
    const step = (name: string) => async () => {
      log.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`${name} out`);
    };
    await Promise.all([lock.hold('delete', step('d1')), lock.hold('delete', step('d2')), lock.hold('create', step('c1')), lock.hold('create', step('c2'))]);
    expect(log).toEqual(['d1 in', 'd2 in', 'd1 out', 'd2 out', 'c1 in', 'c2 in', 'c1 out', 'c2 out']);
  });

  test('a record created under an id while that id\'s delete was in flight is still to be deleted', async () => {
    const created = new CreatedRecords(undefined);
    const op = { path: '/c/{id}' } as Operation;
    created.record(op, 7);
    const deletes: unknown[] = [];
    const client = {
      call: async (_op: Operation, { id }: { id: unknown }) => {
        deletes.push(id);
        // The target gives the id being deleted to a new record, answered before the delete is.
        if (deletes.length === 1) created.record(op, 7);
        return { status: 204, headers: {}, text: '', exchange: {} };
      },
    } as unknown as ApiClient;
    await created.cleanUp(client);
    await created.cleanUp(client);
    expect(deletes).toEqual([7, 7]);
  });

  test('clean-up deletes four at a time, each as soon as a place is free, and says what it could not, newest first', async () => {
    const created = new CreatedRecords(undefined);
    const op = { path: '/c/{id}' } as Operation;
    for (let id = 1; id <= 10; id++) created.record(op, id);
    let inFlight = 0;
    let most = 0;
    const client = {
      call: async (_op: Operation, { id }: { id: unknown }) => {
        most = Math.max(most, ++inFlight);
        // Some take longer than others: a place freed early takes the next at once.
        await new Promise((resolve) => setTimeout(resolve, Number(id) % 3));
        inFlight -= 1;
        return { status: Number(id) % 4 === 0 ? 500 : 204, headers: {}, text: '', exchange: {} };
      },
    } as unknown as ApiClient;
    expect(await created.cleanUp(client)).toEqual(['/c/{id} 8: delete answered 500', '/c/{id} 4: delete answered 500']);
    expect(most).toBe(4);
  });
});

test('convergence: no extra read when a write shows at once; reads until it shows; a write that never shows ends the window, and later waits are bounded by the lag learned', async () => {
  const lag = new Lag();
  let reads = 0;
  const once = await converge(async () => ++reads, () => true, 60_000, lag);
  expect([once.shown, reads]).toEqual([true, 1]);
  reads = 0;
  const late = await converge(async () => ++reads, (n) => n >= 3, 60_000, lag);
  expect([late.shown, reads]).toEqual([true, 3]);
  const never = await converge(async () => 0, () => false, 500, lag);
  expect(never.shown).toBe(false);
  expect(never.waitedMs).toBeGreaterThanOrEqual(500);
  // Three times the lag learned above, not the minute asked for: a broken target does not make every check wait.
  const bounded = await converge(async () => 0, () => false, 60_000, lag);
  expect(bounded.shown).toBe(false);
  expect(bounded.waitedMs).toBeLessThan(30_000);
});

test('a reading content cannot tell from an older one: before any lag, two reads more at most, and once they stayed other than known, one; after a lag, one once reads no longer lag', async () => {
  const lag = new Lag();
  let reads = 0;
  // Reads that go back in time show what the target has on the next one, and teach the lag.
  expect(await readCurrent(async () => ++reads, (n) => n % 2 === 0, true, 60_000, Date.now(), lag)).toBe(2);
  expect(lag.longestMs).toBeGreaterThan(0);
  const unlagged = new Lag();
  reads = 0;
  await readCurrent(async () => ++reads, () => false, true, 60_000, Date.now(), unlagged);
  // Two more at most: fewer when the machine is so loaded that the 150 ms pass before the next (the bound, not the clock, is the promise).
  expect([reads <= 3, unlagged.differed, unlagged.expired]).toEqual([true, true, false]);
  reads = 0;
  await readCurrent(async () => ++reads, () => false, true, 60_000, Date.now(), unlagged);
  expect(reads).toBe(1);
  // A write of new values is waited for as ever (see converge).
  reads = 0;
  expect(await readCurrent(async () => ++reads, (n) => n >= 3, false, 60_000, Date.now(), unlagged)).toBe(3);
  const lagged = Object.assign(new Lag(), { longestMs: 20 });
  reads = 0;
  const started = Date.now();
  await readCurrent(async () => ++reads, () => false, true, 60_000, started, lagged);
  expect(reads).toBe(1);
  expect(Date.now() - started).toBeGreaterThanOrEqual(35);
});

test('quiesce waits twice the longest lag seen since the last write, and not at all on a target that never lagged', async () => {
  const lag = Object.assign(new Lag(), { longestMs: 40 });
  const started = Date.now();
  await quiesce(started, lag);
  expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  // No timer at all (proven without the clock): both are done before a timer of 0 ms fires.
  const order: string[] = [];
  const timer = new Promise((resolve) => setTimeout(() => resolve(order.push('timer')), 0));
  await Promise.all([quiesce(Date.now() - 1000, lag).then(() => order.push('write long ago')), quiesce(Date.now(), new Lag()).then(() => order.push('never lagged')), timer]);
  expect(order.at(-1)).toBe('timer');
});

test('reads at once are judged as if one after another: every one awaited, the first failure in the given order said, whichever came first', async () => {
  expect(await atOnce([Promise.resolve(1), Promise.resolve('two')])).toEqual([1, 'two']);
  let failFirst!: (e: Error) => void;
  const first = new Promise<number>((_, reject) => (failFirst = reject));
  let secondDone = false;
  const second = Promise.reject(new Error('second, earlier in time')).finally(() => (secondDone = true));
  const judged = atOnce([first, second]).catch((e: Error) => e.message);
  await Promise.resolve();
  failFirst(new Error('first in order'));
  expect(await judged).toBe('first in order');
  expect(secondDone).toBe(true);
});

test('--max-pages below the list: no write without a whole list to look for leases in, so the run ends INCOMPLETE naming the flag before changing anything; a read-only run blocks the list check naming it; nothing fails, data as found', async () => {
  const ref = await startReference({ variations: ['list-pages-body-link'] });
  try {
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, '--max-pages', '2', '--only', '^CUS-(LIST|CREATE-ONE|DELETE)'], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--max-pages/);
    expect(idsWith(readResult(run).checks, ['failed'])).toEqual([]);
    expect(ref.state.snapshot().customers).toEqual(before.customers);
    const reading = await runInProcess(['--base-url', ref.url, '--max-pages', '2', '--read-only', '--only', '^CUS-LIST'], { SCHEDULING_API_KEY: ref.apiKey });
    const { checks } = readResult(reading);
    expect(idsWith(checks, ['failed']), reading.stderr).toEqual([]);
    const blocked = checks.filter((c) => c.outcome === 'blocked');
    expect(blocked.map((c) => c.id)).toEqual(expect.arrayContaining(['CUS-LIST:array']));
    for (const c of blocked) expect(c.reason).toMatch(/--max-pages/);
    expect(reading.code, reading.stderr).toBe(2);
    expect(ref.state.snapshot().customers).toEqual(before.customers);
  } finally {
    await ref.close();
  }
});

test('a visitor that stops hears of no row after the one it stopped at, within the same chunk', async () => {
  const { listSink } = await import('../helpers/records/list-stream.ts');
  const heard: unknown[] = [];
  const { sink } = listSink('id', 1 << 20, (row) => heard.push(row.id) === 2);
  expect(sink.write(Buffer.from(JSON.stringify({ data: rows(1, 2, 3, 4) })))).toBe(true);
  expect(heard).toEqual([1, 2]);
});
