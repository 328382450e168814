import { commandEnvironment, HELP, parseOptions, plainHttpWarning, readArgvLeniently, runProxy, type RunOptions } from './options.ts';
import type { Given } from './option-table.ts';
import { proxyShown } from '../http/network.ts';
import { EXIT, RunTimeoutError, TargetError, UsageError } from '../core/errors.ts';
import { suiteVersion } from '../core/version.ts';
import { redactor } from '../http/redact.ts';
import type { TargetConfig } from '../config/target.ts';
import type { RunningReference } from '../../reference/server.ts';
import type { WireEntry } from '../http/exchanges.ts';
import { appendFileSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomInt } from 'node:crypto';
import { processIo, type Ended, type Io } from './io.ts';
import { prepareOutputs } from './outputs.ts';
import { writeNotTested } from './not-tested.ts';
import { JOURNAL_FILE } from '../results/report-files.ts';
import type { Journal } from '../safety/journal.ts';
import { startEarlyWorker, type EarlyWorker } from './early-worker.ts';

/** What a command whose options could not be read still honours: where its summary and its verdict of "not tested" go. */
export interface Fallback {
  summaryFile?: string;
  stepSummaryFile?: string;
  reportDir?: string;
  baseUrl?: string;
}

/** What a run has done so far: what its error report and its clean-up need. */
interface RunState {
  redact: (text: string) => string;
  options?: RunOptions;
  baseUrl?: string;
  startedAt: Date;
  preflightRequests: WireEntry[];
  /** Set once this run wrote its own reports: an error after that does not replace them. */
  reported: boolean;
  reference?: RunningReference;
  /** The suites' worker thread, started while vitest loads; stopped at the end if no suite took it. */
  earlyWorker?: EarlyWorker;
}

/**
 * The scheduling-conformance command. Returns the exit code; never throws. Writes only to `io`
 * and reads no process state, so tests can run it in process (the fault matrix does).
 */
export async function main(argv: string[], env?: Record<string, string | undefined>, io: Io = processIo): Promise<number> {
  // Help and version answer whatever else is wrong (a bad .env, a bad base URL in the environment).
  if (argv.includes('--help') || argv.includes('-h')) return void io.stdout.write(HELP), EXIT.conformant;
  if (argv.includes('--version') || argv.includes('-v')) return void io.stdout.write(`${suiteVersion}\n`), EXIT.conformant;
  const given = readArgvLeniently(argv);
  const fallback = fallbackOf(argv[0] === 'verify' ? { ...given, 'report-dir': undefined } : given, env ?? process.env);
  if (argv[0] === 'verify') return (await guarded(io, fallback, async () => (await import('./verify.ts')).verifyCommand(argv.slice(1), io))).code;
  return (await run(() => parseOptions(argv, env ?? commandEnvironment()), io, fallback)).code;
}

/**
 * The command without its command line: options read by `read` (whose usage errors are reported
 * like the run's), then the run. Never throws: an error is its one line on stderr, in the summary
 * files and in the report directory, and comes back as `line`.
 */
export const run = (read: () => RunOptions, io: Io, fallback: Fallback): Promise<Ended> =>
  guarded(io, fallback, (state) => runWith((state.options = read()), state, io));

async function guarded(io: Io, fallback: Fallback, body: (state: RunState) => Promise<number | Ended>): Promise<Ended> {
  const state: RunState = { redact: (text) => text, startedAt: new Date(), preflightRequests: [], reported: false };
  try {
    const ended = await body(state);
    return typeof ended === 'number' ? { code: ended } : ended;
  } catch (e) {
    return { code: EXIT.usage, line: await reportError(e, state, io, fallback) };
  } finally {
    await state.earlyWorker?.discard();
    await state.reference?.close();
  }
}

/** The one line of an error, written where it is looked for; returned. */
async function reportError(e: unknown, state: RunState, io: Io, fallback: Fallback): Promise<string> {
  const { options, redact } = state;
  const known = e instanceof UsageError || e instanceof TargetError;
  const line = known ? redact(e.message) : `internal error: ${redact(e instanceof Error ? e.message : String(e)).split('\n')[0]}`;
  io.stderr.write(`scheduling-conformance: ${line}\n`);
  // Where CI shows the summary, say why there is no verdict (exit 2 writes no report of checks).
  notTestedSummary(line, options?.summaryFile ?? fallback.summaryFile, options?.stepSummaryFile ?? fallback.stepSummaryFile);
  // And in the report directory: its verdict is this run's, never an earlier run's left there.
  const reportDir = options ? (isRun(options) ? options.reportDir : undefined) : fallback.reportDir;
  const baseUrl = state.baseUrl ?? options?.baseUrl ?? fallback.baseUrl;
  const stopped = e instanceof RunTimeoutError ? 'run-timeout' : undefined;
  if (reportDir && !state.reported) await writeNotTested({ dir: reportDir, why: line, options, baseUrl, startedAt: state.startedAt, requests: state.preflightRequests, redact, stopped }).catch(() => {});
  return line;
}

/** The run itself, its options read: the target started or named, asked, then tested (or swept, released, recovered). */
async function runWith(options: RunOptions, state: RunState, io: Io): Promise<number | Ended> {
  // The run timeout counts from here (start-up is part of the run), not counting --wait-for-target.
  const started = Date.now();
  state.redact = redactor(options);
  if (options.recover.length && !options.baseUrl) throw new UsageError('--recover needs --base-url: the target the earlier run changed');
  if (options.release !== undefined && !options.baseUrl) throw new UsageError('--release needs --base-url: the target the earlier run changed');
  if (options.list) return await (await import('./list.ts')).listCommand(options, io);
  // Every path the command writes or reads is checked before anything is sent or started.
  const recovery = options.recover.length ? await recoveryJournals(options.recover, options.baseUrl!, (t) => io.stdout.write(t)) : undefined;
  if (isRun(options)) prepareOutputs(options);
  // What a run needs is loaded when it is needed: --help, --version and usage errors start fast.
  if (!options.baseUrl) {
    const { startReference } = await import('../../reference/server.ts');
    state.reference = await startReference({ apiKey: options.apiKey, expiredKey: options.expiredKey });
  }
  const target = targetConfig(options, state.reference, (await import('../records/run-marker.ts')).newRunId());
  state.baseUrl = target.baseUrl;
  const redact = (state.redact = redactor(target));
  // The run itself (vitest above all, ~0.3 s) loads while the target is asked (the preflight):
  // time a distant target would otherwise leave this process idle.
  const conformModule = options.sweep || options.recover.length || options.release !== undefined ? undefined : import('./conform.ts');
  conformModule?.then((m) => m.suitesModule()).catch(() => {}); // awaited below; a failure to load is reported there
  if (conformModule) state.earlyWorker = startEarlyWorker(io.keepWorker);
  io.stdout.write(`${targetLine(target, Boolean(state.reference))}\n`);
  if (conformModule && target.explore?.commands) io.stdout.write(`Exploration after the checks: ${target.explore.commands} commands, seed ${target.explore.seed} (--explore-seed ${target.explore.seed} replays it)\n`);
  const warning = plainHttpWarning(target.baseUrl, options.allowHttp);
  if (warning) io.stderr.write(`scheduling-conformance: ${warning}\n`);
  if (options.only !== undefined && !options.sweep) target.only = await selection(target, options.only);
  const { preflight } = await import('./preflight.ts');
  const waited = await preflight(target, { waitMs: options.waitForTargetMs, say: (t) => io.stdout.write(redact(t)), runEndsAt: started + options.runTimeoutMs }, (e) => state.preflightRequests.push(e));
  target.stopChecksAt = started + waited + options.runTimeoutMs;
  if (options.sweep) return await (await import('./leftovers.ts')).sweepCommand(target, options.sweepYes, options.relaunch, options.reportDir, redact, io);
  if (options.release !== undefined) return await (await import('./leftovers.ts')).releaseCommand(target, options.release, options.releaseFrom, options.sweepYes, redact, io);
  if (recovery) return await recoverCommand(target, recovery, options.cleanupTimeoutMs, redact, io, state.preflightRequests);
  const { conform } = await (conformModule ?? import('./conform.ts'));
  return await conform(options, target, redact, { ...io, onResult: (result) => void ((state.reported = true), io.onResult?.(result)) }, state.preflightRequests, state.earlyWorker);
}

/** The Fallback of options given (by flags read leniently, or by the typed API); the report directory only of a command that writes a verdict there. */
export function fallbackOf(given: Given, env: Record<string, string | undefined>): Fallback {
  const textOf = (value: Given[keyof Given]) => (typeof value === 'string' ? value : undefined);
  return { summaryFile: textOf(given.summary), stepSummaryFile: env.GITHUB_STEP_SUMMARY, reportDir: isRun(given) ? textOf(given['report-dir']) : undefined, baseUrl: textOf(given['base-url']) };
}

/** Whether the command runs the suites (not --list, --sweep, --release or --recover, which write no verdict). */
const isRun = (o: { list?: unknown; sweep?: unknown; recover?: unknown; release?: unknown }) => !o.list && !o.sweep && ![o.recover ?? []].flat().length && o.release === undefined;

/** The Markdown summary of a run that could not test the target: the one line that says why. */
function notTestedSummary(line: string, summaryFile: string | undefined, stepSummaryFile: string | undefined): void {
  const text = `## Scheduling API v1 conformance: could not be tested\n\nExit code ${EXIT.usage}: ${line.replace(/\n/g, ' ')}\n\nThe run proves nothing either way; no check was judged.\n\n`;
  // The error line above is what counts: a summary file that cannot be written is not a second error.
  const attempt = (write: () => void) => {
    try {
      write();
    } catch {}
  };
  if (summaryFile) attempt(() => writeFileSync(summaryFile, text));
  if (stepSummaryFile && stepSummaryFile !== summaryFile) attempt(() => appendFileSync(stepSummaryFile, text));
}

function targetConfig(options: RunOptions, reference: RunningReference | undefined, runId: string): TargetConfig {
  const baseUrl = options.baseUrl ?? reference?.url;
  const apiKey = options.apiKey ?? reference?.apiKey;
  if (!baseUrl) throw new UsageError('no target: give --base-url or SCHEDULING_BASE_URL');
  if (!apiKey) throw new UsageError('no API key: set SCHEDULING_API_KEY (or --api-key) for the target');
  return {
    baseUrl,
    apiKey,
    expiredKey: options.expiredKey ?? reference?.expiredKey,
    vendor: options.vendor,
    only: options.only,
    // The embedded reference is on this machine: never through a proxy.
    network: { ...options.network, proxy: reference ? undefined : runProxy(options, baseUrl) },
    headers: options.headers,
    strict: options.strict,
    readOnly: options.readOnly,
    timeoutMs: options.timeoutMs,
    rate: options.rate,
    convergeWindowMs: options.convergeWindowMs,
    maxPages: options.maxPages,
    retryBudgetMs: options.retryBudgetMs,
    maxBodyBytes: options.maxBodyBytes,
    runId,
    // A seed of its own for every run, printed and in the reports, so that any run can be replayed.
    explore: { commands: options.exploreCommands, seed: options.exploreSeed ?? randomInt(2 ** 31 - 1) },
  };
}

/** Which target a run is about to test, origin and base path apart: the first line of every run. */
export function targetLine(target: TargetConfig, embedded: boolean): string {
  const url = new URL(target.baseUrl);
  const base = url.pathname.replace(/\/+$/, '');
  const where = `${url.origin}${base ? `, base path ${base}` : ''} (requests go to ${url.origin}${base}/api/v1/…)`;
  const proxy = target.network?.proxy ? `, through the proxy ${proxyShown(target.network.proxy)}` : '';
  return `Target: ${embedded ? 'embedded reference implementation at ' : ''}${where}${proxy}`;
}

/**
 * --only that selects no check ends the run before any request: the registries declare the checks
 * (from the spec and the configuration; nothing runs) and they are matched first. What it selects
 * takes with it what those checks need.
 */
async function selection(target: TargetConfig, only: string): Promise<string | undefined> {
  const [{ declaredChecks }, { emptySelection, withPrerequisites }] = await Promise.all([import('../registries/index.ts'), import('../core/selection.ts')]);
  const every = await declaredChecks({ ...target, only: undefined });
  const problem = emptySelection(every, only, target.readOnly);
  if (problem) throw new UsageError(`${problem}; nothing was sent to the target`);
  return withPrerequisites(every, only);
}

/** --recover's own record of its requests, in the report directory beside the run's: the preflight and the recovery. */
export const RECOVER_FILES = { requests: 'recover-requests.jsonl', har: 'recover-exchanges.har' } as const;

/** The journal --recover DIR undoes, and the run it names: checked before any request. */
interface Recovery {
  dir: string;
  journal: Journal;
  runId: string;
  /** When the run started (epoch ms): runs that overlapped are undone newest first. */
  startedAt: number;
}

/**
 * The journals --recover names, the newest run first (undone in that order, each record ends as
 * the oldest run found it): a journal file as given, or every unfinished journal in a report
 * directory (a run that reused it moved an unfinished one aside: see Journal.start). Journals of
 * another target in a directory are left, named; one given alone is refused.
 */
async function recoveryJournals(paths: string[], baseUrl: string, say: (text: string) => void): Promise<Recovery[]> {
  const { Journal, journalsIn } = await import('../safety/journal.ts');
  const origin = new URL(baseUrl).origin;
  const recoveries: Recovery[] = [];
  for (const [given, path] of paths.entries()) {
    const isDir = existsSync(path) && statSync(path).isDirectory();
    const files = isDir ? journalsIn(path, JOURNAL_FILE) : existsSync(path) ? [path] : [];
    if (!files.length) throw new UsageError(`--recover ${path}: no ${JOURNAL_FILE} there (give the report directory of the run, or its journal); nothing was sent to the target`);
    const unfinished = files.filter((f) => !new Journal(f).finished());
    const found = (unfinished.length ? unfinished : files).map((file) => ({ journal: new Journal(file), run: new Journal(file).read().find((e) => e.kind === 'run') }));
    const ours = found.filter((f) => f.run?.origin === origin);
    if (!ours.length) {
      const { run } = found[0];
      if (!run) throw new UsageError(`--recover ${path}: the journal does not say which target its run changed, so it is not undone on ${origin}`);
      throw new UsageError(`--recover ${path}: that run changed ${run.origin}, not ${origin}; nothing was done`);
    }
    for (const other of found.filter((f) => !ours.includes(f))) say(`Left: ${other.journal.file}, whose run changed ${other.run?.origin ?? 'an unnamed target'}, not ${origin}\n`);
    // A journal written before runs said when they started: the order given, oldest first.
    for (const { journal, run } of ours) recoveries.push({ dir: dirname(journal.file), journal, runId: run!.runId, startedAt: run!.at ? Date.parse(run!.at) : given });
  }
  if (new Set(recoveries.map((r) => r.runId)).size < recoveries.length) throw new UsageError('--recover: the same run\'s journal is given twice; nothing was sent to the target');
  return recoveries.toSorted((a, b) => b.startedAt - a.startedAt);
}

/**
 * `--recover DIR...`: finishes, from the run journal in each DIR, what that run could not undo,
 * verifies it, and says what is left (exit 2 if anything is). Only against the origin the run's
 * baseline was taken from (recoveryJournals): another target's records are not the journal's to
 * touch. Runs that overlapped are undone newest first, and what one of them wrote is not another
 * writer's to the others: each record ends as the oldest of them found it. Each run's requests go
 * to RECOVER_FILES in its DIR, scanned for the keys like a run's reports.
 */
async function recoverCommand(target: TargetConfig, recoveries: Recovery[], cleanupTimeoutMs: number, redact: (t: string) => string, io: Io, preflightRequests: WireEntry[]): Promise<number> {
  const { outstanding } = await import('../safety/journal.ts');
  const written = recoveries.map((r) => ({ runId: r.runId, paths: new Set(outstanding(r.journal.read()).written.keys()) }));
  let code: number = EXIT.conformant;
  const begun = new Set<string>();
  for (const [i, recovery] of recoveries.entries()) {
    const others = written.filter((w) => w.runId !== recovery.runId);
    // Another writer the run met is one of these runs: by its marker, or (unmarked) where one of them wrote too.
    const overlapped = (path: string, by: string) => others.some((o) => o.runId === by || (!by.startsWith('scr-') && o.paths.has(path)));
    if (recoveries.length > 1) io.stdout.write(`Recovering run ${recovery.runId} (${recovery.dir}):\n`);
    const fresh = !begun.has(recovery.dir);
    begun.add(recovery.dir);
    code = Math.max(code, await recoverOne(target, recovery, { cleanupTimeoutMs, overlapped }, redact, io, i === 0 ? preflightRequests : [], fresh));
  }
  return code;
}

async function recoverOne(target: TargetConfig, { dir, journal, runId }: Recovery, options: { cleanupTimeoutMs: number; overlapped: (path: string, by: string) => boolean }, redact: (t: string) => string, io: Io, preflightRequests: WireEntry[], fresh: boolean): Promise<number> {
  const [{ readRequestLog }, { journalledClient }, { recover, formatLeftOnTarget }, { requestLogHar }, { scanForSecrets }] = await Promise.all([
    import('../http/exchanges.ts'),
    import('../safety/journal.ts'),
    import('../safety/after-run-cleanup.ts'),
    import('../results/reporters/har.ts'),
    import('../safety/secret-scan.ts'),
  ]);
  const file = journal.file;
  const origin = new URL(target.baseUrl).origin;
  const requestLog = join(dir, RECOVER_FILES.requests);
  const har = join(dir, RECOVER_FILES.har);
  // Several runs recovered from one folder share its record of the recovery.
  (fresh ? writeFileSync : appendFileSync)(requestLog, preflightRequests.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const startedAt = new Date().toISOString();
  const client = journalledClient({ ...target, runId, journalFile: file, requestLogFile: requestLog });
  client.phase = 'recovery';
  let code: number;
  try {
    const recovery = await recover(client, journal, { ...target, runId }, options);
    if (recovery.deleted.length) io.stdout.write(redact(`Deleted: ${recovery.deleted.join(', ')}\n`));
    if (recovery.restored.length) io.stdout.write(redact(`Restored: ${recovery.restored.join(', ')}\n`));
    // Not left: gone by a find, though the list names them still, after the window (the target's list, which no check judges here).
    if (recovery.listedGone.length) io.stdout.write(redact(`Deleted, a find answers them gone, and the list still names them: ${recovery.listedGone.join(', ')}\n`));
    io.stdout.write(redact(formatLeftOnTarget(recovery.leftOnTarget)));
    code = recovery.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
    if (!recovery.leftOnTarget.length) journal.append({ kind: 'finished' });
  } finally {
    await client.close();
    // Written whatever happened: the record is most wanted when the recovery failed.
    const log = readRequestLog(requestLog);
    writeFileSync(har, redact(`${JSON.stringify(requestLogHar(log, suiteVersion, `--recover ${dir} on ${origin}, ${startedAt}`), null, 2)}\n`));
  }
  const leaks = scanForSecrets([requestLog, har, file], target);
  if (leaks.length) {
    for (const l of leaks) rmSync(l.file, { force: true });
    io.stderr.write(`scheduling-conformance: SECRET LEAK: ${leaks.map((l) => `${l.key} in ${l.file}`).join('; ')}; the files were deleted\n`);
    return EXIT.usage;
  }
  return code;
}
