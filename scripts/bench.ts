/**
 * Numbers (npm run bench): the table of issue 13 (start-up, a full run against the reference on
 * loopback and with 50 ms added to every answer, the critical path in round trips, peak memory;
 * each the median of BENCH_RUNS runs, default 5), then the safety mechanics: what a capped
 * 20 MiB body costs the client, and full runs with misbehaviour switched on, and against a list
 * of 50 000 customers in pages of 1000 (npm test pages 30: a long list is too slow for it);
 * then the scale rows (issue 35, see scale(); BENCH_ONLY=scale prints only these).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../helpers/http/client.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { REQUEST_LOG_FILE } from '../helpers/results/report-files.ts';
import { OPTIONS } from '../helpers/command/option-table.ts';
import { startReference, type ReferenceOptions } from '../reference/server.ts';
import { wholeListReads, type LoggedRequest } from '../helpers/results/list-reads.ts';

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** A 20 MiB body streamed from one reused chunk, so that only the client's memory grows. */
async function cappedBody(): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const pump = () => {
      while (!res.destroyed && sent < 20 * 2 ** 20 && res.write(chunk)) sent += chunk.length;
      if (res.destroyed || sent >= 20 * 2 ** 20) return void res.end();
      res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new ApiClient({ baseUrl, apiKey: 'bench', vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 10_000, runId: 'bench' });
  global.gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const outcome = await client.send({ method: 'GET', path: '/huge' }).then(() => 'answer', (e: Error) => e.message);
  const after = process.memoryUsage();
  console.log(`20 MiB body: ${outcome} in ${(performance.now() - started).toFixed(0)} ms; heap+buffers grew ${mib(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers)} MiB${global.gc ? '' : ' (run with --expose-gc for a steadier number)'}`);
  await client.close();
  server.closeAllConnections();
  server.close();
}

/** The runs' report folders, all in one, taken away when the bench ends: a million customers' reports are ~400 MB. */
const benchScratch = mkdtempSync(join(tmpdir(), 'scr-bench-'));
process.once('exit', () => rmSync(benchScratch, { recursive: true, force: true }));

/** One run of the command as a child process; its wall time, exit code and result.json. */
async function command(args: string[], env: Record<string, string> = {}): Promise<{ seconds: number; code: number | null; dir: string; spawnedAt: number }> {
  const dir = mkdtempSync(join(benchScratch, 'run-'));
  const spawnedAt = Date.now();
  const started = performance.now();
  // Spawned asynchronously: a synchronous spawn would block the reference's event loop.
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [join(projectRoot, 'bin/scheduling-conformance.js'), '--report-dir', dir, ...args], {
      env: { PATH: process.env.PATH ?? '', CI: 'true', ...env },
      stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  return { seconds: (performance.now() - started) / 1000, code, dir, spawnedAt };
}

/**
 * Where the wall time of a run goes, in ms, from its request log: up to the first request (Node,
 * the command's modules), the preflight, baseline and lease, up to the suites' first request
 * (vitest's Node API, its worker, the checks collected), the checks, the clean-up, and the reports
 * up to the exit. On loopback the requests cost little: this is the floor a run cannot go below.
 */
function runPhases(dir: string, spawnedAt: number, seconds: number): Record<string, number> {
  const log = readFileSync(join(dir, REQUEST_LOG_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; exchange: { startedAt: string; durationMs: number } });
  const from = (e: { exchange: { startedAt: string } }) => Date.parse(e.exchange.startedAt);
  const to = (e: { exchange: { startedAt: string; durationMs: number } }) => from(e) + e.exchange.durationMs;
  const suites = log.filter((e) => e.phase === 'suites');
  if (!suites.length) return {};
  const before = log.filter((e) => from(e) < from(suites[0]));
  const after = log.filter((e) => e.phase === 'after-run clean-up');
  const marks = [spawnedAt, from(log[0]), Math.max(...before.map(to)), from(suites[0]), Math.max(...suites.map(to)), Math.max(...[...suites, ...after].map(to)), spawnedAt + seconds * 1000];
  const names = ['start-up', 'preflight, baseline, lease', 'suites starting', 'checks', 'clean-up', 'reports, exit'];
  return Object.fromEntries(names.map((n, i) => [n, marks[i + 1] - marks[i]]));
}

/**
 * The run's critical path in round trips, from its request log: the longest chain of requests each
 * sent after the one before it was answered. Unlike the wall time, a loaded machine barely moves it.
 */
function roundTrips(dir: string): number {
  const log = readFileSync(join(dir, REQUEST_LOG_FILE), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { exchange: { startedAt: string; durationMs: number } }).exchange);
  const spans = log.map((e) => ({ from: Date.parse(e.startedAt), to: Date.parse(e.startedAt) + e.durationMs })).toSorted((a, b) => a.to - b.to);
  const depth: number[] = [];
  // Timestamps are whole milliseconds: a request sent in the millisecond its predecessor was answered follows it.
  spans.forEach((s, i) => (depth[i] = 1 + Math.max(0, ...spans.slice(0, i).flatMap((p, j) => (p.to <= s.from + 1 ? [depth[j]] : [])))));
  return Math.max(0, ...depth);
}

interface RunResultFile {
  checks: { exchanges: { attempt: number }[] }[];
  resources: { maxRssMiB: number };
  leftOnTarget: unknown[];
}
const resultOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResultFile;

async function fullRun(label: string, reference: ReferenceOptions, args: string[] = []): Promise<{ seconds: number; rss: number; trips: number; phases: Record<string, number> }> {
  const ref = await startReference(reference);
  const { seconds, code, dir, spawnedAt } = await command(['--base-url', ref.url, ...args], { SCHEDULING_API_KEY: ref.apiKey });
  await ref.close();
  const result = resultOf(dir);
  const exchanges = result.checks.flatMap((c) => c.exchanges);
  console.log(
    `${label.padEnd(34)} exit ${code}, ${seconds.toFixed(2)} s, ${exchanges.length} requests in checks (${exchanges.filter((e) => e.attempt > 1).length} retries), ` +
      `peak RSS ${result.resources.maxRssMiB} MiB, left on target ${result.leftOnTarget.length}, critical path ${roundTrips(dir)} round trips`,
  );
  return { seconds, rss: result.resources.maxRssMiB, trips: roundTrips(dir), phases: runPhases(dir, spawnedAt, seconds) };
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Each figure the median of RUNS runs; the phases (not a number) those of the median run by wall time, so that they add up to it. */
async function medianOf<T extends { seconds: number }>(once: () => Promise<T>): Promise<T> {
  const all: T[] = [];
  for (let i = 0; i < RUNS; i++) all.push(await once());
  const middle = all.toSorted((a, b) => a.seconds - b.seconds)[Math.floor(all.length / 2)];
  const numbers = (Object.keys(middle) as (keyof T)[]).filter((k) => typeof middle[k] === 'number');
  return { ...middle, ...Object.fromEntries(numbers.map((k) => [k, median(all.map((r) => r[k] as number))])) };
}

const LATENCY_MS = 50;
// BENCH_ONLY=phases: only the round trips per phase (three runs), for a quick look; BENCH_ONLY=scale: only the scale rows; BENCH_ONLY=explore: only what exploration adds.
const ONLY = process.env.BENCH_ONLY;
if (ONLY === 'explore') {
  await exploration();
  process.exit(0);
}
if (ONLY !== 'phases' && ONLY !== 'scale') await figures();

/**
 * What the default exploration (--explore's default, on a fixed seed) adds to a run against a distant
 * target: the same run with --explore 0 and with the default, at 50 ms, the difference of their
 * wall times in round trips (the critical path it adds; issue 32 bounds it at 30), and their peak memory.
 */
async function exploration(): Promise<void> {
  const EXPLORE_DEFAULT = String(OPTIONS.find((o) => o.flag === 'explore')!.default);
  console.log(`\n| exploration, ${LATENCY_MS} ms added (median of ${RUNS}) | --explore 0 | --explore ${EXPLORE_DEFAULT} --explore-seed 1 | added (by the wall clock; by the request log) |\n|---|---|---|---|`);
  for (const concurrency of ['1', '3']) {
    const off = await medianOf(() => fullRun(`--explore 0, --concurrency ${concurrency}`, { latencyMs: LATENCY_MS }, ['--concurrency', concurrency, '--explore', '0']));
    const on = await medianOf(() => fullRun(`--explore ${EXPLORE_DEFAULT}, --concurrency ${concurrency}`, { latencyMs: LATENCY_MS }, ['--concurrency', concurrency, '--explore', EXPLORE_DEFAULT, '--explore-seed', '1']));
    console.log(`| --concurrency ${concurrency}: wall / peak memory | ${off.seconds.toFixed(2)} s / ${off.rss} MiB | ${on.seconds.toFixed(2)} s / ${on.rss} MiB | ${Math.round((on.seconds - off.seconds) / (LATENCY_MS / 1000))} round trips; ${on.trips - off.trips} round trips (${off.trips} → ${on.trips}) / ${on.rss - off.rss} MiB |`);
  }
}

/**
 * Where the time of a run against a distant target goes: for each phase (the command's own steps,
 * and each suite file's checks), its requests and when it started and ended, in round trips of
 * LATENCY_MS since the first request. Suite files run side by side overlap.
 */
async function phases(concurrency: number): Promise<void> {
  const ref = await startReference({ latencyMs: LATENCY_MS });
  const { code, dir } = await command(['--base-url', ref.url, '--concurrency', String(concurrency)], { SCHEDULING_API_KEY: ref.apiKey });
  await ref.close();
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { checks: { resource: string; exchanges: { id: string }[] }[] };
  const owner = new Map(result.checks.flatMap((c) => c.exchanges.map((e) => [e.id, c.resource] as const)));
  const log = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; exchange: { id: string; startedAt: string; durationMs: number; request: { url: string } } });
  const spans = new Map<string, { requests: number; from: number; to: number; asked: [number, number][] }>();
  // A suite's own set-up and clean-up (snapshots, customers shared by several checks) belongs to
  // the lane whose checks next ask the same resource (else the last that did): the lanes share one worker.
  const sorted = log.toSorted((a, b) => Date.parse(a.exchange.startedAt) - Date.parse(b.exchange.startedAt));
  const asked = (url: string) => /\/api\/v1\/(business|customers|team-members)/.exec(url)?.[1] ?? '?';
  const lane = sorted.map(({ exchange }) => owner.get(exchange.id));
  const near = (i: number, step: 1 | -1) => {
    for (let j = i + step; j >= 0 && j < sorted.length; j += step) if (lane[j] && asked(sorted[j].exchange.request.url) === asked(sorted[i].exchange.request.url)) return lane[j];
    return undefined;
  };
  sorted.forEach(({ phase, exchange }, i) => {
    const resource = lane[i] ?? near(i, 1) ?? near(i, -1) ?? asked(exchange.request.url);
    const key = phase === 'suites' ? `suite: ${resource}` : phase;
    const from = Date.parse(exchange.startedAt);
    const span = spans.get(key) ?? { requests: 0, from, to: from, asked: [] };
    spans.set(key, { requests: span.requests + 1, from: Math.min(span.from, from), to: Math.max(span.to, from + exchange.durationMs), asked: [...span.asked, [from, from + exchange.durationMs]] });
  });
  // The most requests of the phase that went one after another (each sent after the last had its
  // answer): its round trips, whatever the machine's load added between them.
  const inTurn = (asked: [number, number][]) => {
    let end = -Infinity;
    let n = 0;
    for (const [from, to] of asked.toSorted((a, b) => a[1] - b[1])) if (from >= end) [end, n] = [to, n + 1];
    return n;
  };
  const t0 = Math.min(...[...spans.values()].map((x) => x.from));
  const rt = (ms: number) => Math.round(ms / LATENCY_MS);
  console.log(`\nRound trips per phase, ${LATENCY_MS} ms per answer, --concurrency ${concurrency} (exit ${code}; one run):\n\n| phase | requests | one after another | from | to | span |\n|---|---|---|---|---|---|`);
  for (const [key, x] of [...spans].sort((a, b) => a[1].from - b[1].from)) console.log(`| ${key} | ${x.requests} | ${inTurn(x.asked)} | ${rt(x.from - t0)} | ${rt(x.to - t0)} | ${rt(x.to - x.from)} |`);
  console.log(`| the whole run | ${log.length} | ${inTurn([...spans.values()].flatMap((x) => x.asked))} | | | |`);
}

async function figures(): Promise<void> {
  const version = await medianOf(async () => ({ seconds: (await command(['--version'])).seconds }));
  const help = await medianOf(async () => ({ seconds: (await command(['--help'])).seconds }));
  const oneCheck = await medianOf(() => fullRun('one check (--only)', {}, ['--only', '^OP-DOCUMENTED:listCustomers ']));
  const plain = await medianOf(() => fullRun('plain', {}));
  const parallel = await medianOf(() => fullRun('plain --concurrency 3', {}, ['--concurrency', '3']));
  const distant = await medianOf(() => fullRun(`${LATENCY_MS} ms added, --concurrency 1`, { latencyMs: LATENCY_MS }, ['--concurrency', '1']));
  // The reference is on loopback, where the default is 1: a distant target gets 3 (defaultConcurrency).
  const distantParallel = await medianOf(() => fullRun(`${LATENCY_MS} ms added, --concurrency 3`, { latencyMs: LATENCY_MS }, ['--concurrency', '3']));

  await cappedBody();
  await fullRun('503 every 5th request', { robustness: ['unavailable-every-5th'] });
  await fullRun('hanging find, --timeout 1000', { robustness: ['hang:findCustomer'] }, ['--timeout', '1000']);
  await fullRun('20 MiB team member', { robustness: ['huge-body:findTeamMember'] });
  await fullRun('--rate 5', {}, ['--rate', '5']);
  await fullRun('50 000 customers, pages of 1000', { variations: ['list-pages-link-header'], seedCustomers: 50_000, pageSize: 1000 });

  const s = (x: number) => `${x.toFixed(2)} s`;
  const trips = (t: number, t0: number) => Math.round((t - t0) / (LATENCY_MS / 1000));
  console.log(`
| figure (median of ${RUNS}) | --concurrency 1 (default on loopback) | --concurrency 3 (default elsewhere) |
|---|---|---|
| --version / --help | ${s(version.seconds)} / ${s(help.seconds)} | |
| run of one check | ${s(oneCheck.seconds)} | |
| full run, loopback target (wall) | ${s(plain.seconds)} | ${s(parallel.seconds)} |
| same run with ${LATENCY_MS} ms added to every answer | ${s(distant.seconds)} | ${s(distantParallel.seconds)} |
| critical path (t${LATENCY_MS} − t0) / ${LATENCY_MS} ms | ${trips(distant.seconds, plain.seconds)} round trips | ${trips(distantParallel.seconds, parallel.seconds)} round trips |
| peak memory (the command's process) | ${plain.rss} MiB | ${parallel.rss} MiB |`);
  const ms = (x: number) => `${Math.round(x)} ms`;
  console.log(`\nWhere a loopback run's time goes (the median run of ${RUNS}; each phase ends where the next begins):\n\n| phase | --concurrency 1 | --concurrency 3 |\n|---|---|---|`);
  for (const phase of Object.keys(plain.phases)) console.log(`| ${phase} | ${ms(plain.phases[phase])} | ${ms(parallel.phases[phase] ?? NaN)} |`);
  await exploration();
}

if (ONLY !== 'scale') {
  await phases(3);
  await phases(2);
  await phases(1);
}
if (ONLY === undefined || ONLY === 'scale') await scale();

/**
 * The peak RSS of a child process, read from /proc while it runs (VmHWM: its high-water mark),
 * so that a run that dies out of memory still has a figure; undefined where there is no /proc.
 */
function peakOf(pid: number | undefined): { stop(): number | undefined } {
  let peak: number | undefined;
  const read = () => {
    try {
      const kb = /VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kb) peak = Math.max(peak ?? 0, Number(kb) / 1024);
    } catch {
      // gone, or no /proc
    }
  };
  const timer = setInterval(read, 100);
  return { stop: () => (clearInterval(timer), peak) };
}

/**
 * Issue 35: a staging database the size of production. The default command against the reference
 * seeded with N customers, in one answer and in pages of 1000 (Link headers): its exit code,
 * verdict, requests (of the whole run, from its request log) and the whole-list reads among them,
 * wall time, peak RSS of the command's process, what it left, and the slope: the ms per 1000
 * customers over a run against the 3 the reference holds by default. BENCH_SCALE=10000,100000
 * picks the sizes (default 10 000, 100 000, 1 000 000; a million takes minutes), BENCH_PAGING=
 * unpaged or paged one way only.
 */
async function scale(): Promise<void> {
  const sizes = (process.env.BENCH_SCALE ?? '10000,100000,1000000').split(',').map(Number);
  const ways = (process.env.BENCH_PAGING ?? 'unpaged,paged').split(',');
  const once = async (seedCustomers: number | undefined, paged: boolean) => {
    const ref = await startReference({ seedCustomers, ...(paged && { variations: ['list-pages-link-header'], pageSize: 1000 }) });
    const dir = mkdtempSync(join(benchScratch, 'run-'));
    const started = performance.now();
    const child = spawn(process.execPath, [join(projectRoot, 'bin/scheduling-conformance.js'), '--report-dir', dir, '--base-url', ref.url], {
      env: { PATH: process.env.PATH ?? '', CI: 'true', SCHEDULING_API_KEY: ref.apiKey },
      stdio: 'ignore',
    });
    const peak = peakOf(child.pid);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const seconds = (performance.now() - started) / 1000;
    const rss = peak.stop();
    await ref.close();
    let result: (RunResultFile & { verdict?: string }) | undefined;
    try {
      result = resultOf(dir) as RunResultFile & { verdict?: string };
    } catch {
      // no report: the run died
    }
    let requests = 0;
    const whole = { customers: 0, 'team-members': 0 };
    try {
      const log = readFileSync(join(dir, REQUEST_LOG_FILE), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest);
      requests = log.length;
      const reads = wholeListReads(log);
      for (const list of ['customers', 'team-members'] as const) whole[list] = Object.values(reads[list]).reduce((a, b) => a + b, 0);
    } catch {
      // no request log
    }
    return { code, seconds, rss: rss ?? result?.resources.maxRssMiB, result, requests, whole };
  };
  const base = await once(undefined, false);
  console.log(`\nScale (issue 35): the default command, one run each; slope over a run against the default 3 customers (${base.seconds.toFixed(1)} s)\n`);
  console.log('| customers | paging | exit | verdict | requests | whole-list reads (customers / team members) | wall | peak RSS | left on target | slope (ms per 1000) |\n|---|---|---|---|---|---|---|---|---|---|');
  for (const paged of ways.map((w) => w === 'paged')) {
    for (const n of sizes) {
      const r = await once(n, paged);
      const slope = ((r.seconds - base.seconds) * 1000) / (n / 1000);
      console.log(`| ${n.toLocaleString('en')} | ${paged ? 'pages of 1000' : 'one answer'} | ${r.code} | ${r.result?.verdict ?? '(no report)'} | ${r.requests} | ${r.whole.customers} / ${r.whole['team-members']} | ${r.seconds.toFixed(1)} s | ${r.rss?.toFixed(0) ?? '?'} MiB | ${r.result ? r.result.leftOnTarget.length : '?'} | ${slope.toFixed(1)} |`);
    }
  }
}
