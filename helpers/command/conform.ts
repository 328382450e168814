import { appendFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readRequestLog, withLoggedExchanges, type WireEntry } from '../http/exchanges.ts';
import { join, resolve } from 'node:path';
import { hostname } from 'node:os';
import { EXIT, TargetError, UsageError } from '../core/errors.ts';
import { defaultConcurrency, type RunOptions } from './options.ts';
import type { TargetConfig } from '../config/target.ts';
import type { ApiClient } from '../http/client.ts';
import { ResultCollector } from '../results/reporters/collector.ts';
import { TerminalReporter, useColour } from '../results/reporters/terminal.ts';
import { Progress } from '../results/reporters/progress.ts';
import { suiteRank } from '../core/resource-order.ts';
import { loadSpec, type Spec } from '../contract/spec.ts';
import { resourceAt } from '../contract/resource-ops.ts';
import { suiteVersion } from '../core/version.ts';
import { BLOCKS_BEFORE_STOP } from '../http/environment.ts';
import { sentinelPaths } from './preflight.ts';
import { Journal, journalledClient, outstanding, stoppedRunIn } from '../safety/journal.ts';
import { foreignRunId, overlappingRunMessage, settledByInterference } from '../safety/interference.ts';
import { Lease, LEASE_BEAT_MS, leaseLookUp, leasePlace, liveLeasesOfOthers } from '../safety/lease.ts';
import { formatLeftOnTarget, leftAccordingToJournal, recover, takeBaseline, type Recovery } from '../safety/after-run-cleanup.ts';
import { RunStop } from './run-stop.ts';
import { describeDifference, Frame, FRAME_CHECK, frameFindings } from '../safety/frame.ts';
import { windowOf } from '../core/converge.ts';
import type { FrameDifference } from '../safety/journal.ts';
import { scanForSecrets } from '../safety/secret-scan.ts';
import { buildRunResult, incompleteText, type RunResult, type Stopped } from '../results/run-result.ts';
import { toSummaryMarkdown } from '../results/reporters/summary.ts';
import { certificationRefusal } from '../results/reporters/certification.ts';
import type { CollectedCheck, Observation } from '../results/check-outcomes.ts';
import { NOT_SELECTED, selects } from '../core/selection.ts';
import type { Ended, Io } from './io.ts';
import { JOURNAL_FILE, REQUEST_LOG_FILE } from '../results/report-files.ts';
import { removeReadings } from '../records/print-buckets.ts';
import { commandLine } from './relaunch.ts';
import { DEFAULT_REPORTS } from './option-table.ts';
import type { EarlyWorker } from './early-worker.ts';

export { JOURNAL_FILE, readRequestLog, REQUEST_LOG_FILE };

/**
 * The report writers (xmlbuilder2 and its YAML parser above all, ~60 ms, ~4 MiB of heap): loaded
 * once the suites have ended, while the clean-up and the frame's last reading wait on the target:
 * not on the way to the first check, and not beside the suites' thread, when the process peaks.
 */
let reportWriters: Promise<typeof import('../results/write-reports.ts')> | undefined;
const loadReportWriters = () => (reportWriters ??= import('../results/write-reports.ts'));

/**
 * The suites' runner, vitest above all (~0.3 s): loaded while the target is asked (the preflight,
 * the baseline, the lease), time a distant target would otherwise leave this process idle.
 */
let suitesLoading: Promise<typeof import('./run-suites.ts')> | undefined;
export const suitesModule = () => (suitesLoading ??= import('./run-suites.ts'));

/** Checks --only left out are not part of the run. */
const filteredOut = (c: CollectedCheck) => c.outcome === 'skipped' && c.reason === NOT_SELECTED;

/** What a run holds from its start to its reports. */
interface Session {
  options: RunOptions;
  io: Io;
  redact: (t: string) => string;
  /** Writes to stderr, redacted. */
  say: (text: string) => void;
  dir: string;
  target: TargetConfig;
  journal: Journal;
  client: ApiClient;
  requestLog: string;
  /** The command that finishes later what the run could not undo. */
  recoverLine: string;
  /** The suites' worker thread, if the command started it early. */
  earlyWorker?: EarlyWorker;
}

/**
 * Runs the suites against a reachable target, undoes what they left changed, writes the reports,
 * and returns the exit code. A first SIGINT/SIGTERM or the run timeout stops new checks from
 * starting and goes on to the clean-up; a second signal cuts that short, and the reports say what
 * the journal holds as left; a third exits at once (RunStop).
 */
export async function conform(options: RunOptions, baseTarget: TargetConfig, redact: (t: string) => string, io: Io, preflightRequests: WireEntry[] = [], earlyWorker?: EarlyWorker): Promise<Ended> {
  const started = new Date();
  const s = { ...openSession(options, baseTarget, redact, io, preflightRequests), earlyWorker };
  const collector = new ResultCollector(redact);
  const progress = new Progress(io.stderr.isTTY ? io.stderr : undefined, io.stdout);
  const terminal = new TerminalReporter(io.stdout, useColour(io.stdout), options.expectations, progress);
  collector.onCheck((c) => filteredOut(c) || terminal.check(c));
  collector.onLane((resource, working) => terminal.lane(resource, working));
  void checksToRun(s.target).then((n) => void (progress.total = n), () => {});
  const stop = new RunStop({
    runId: s.target.runId,
    runTimeoutMs: options.runTimeoutMs,
    stopAt: s.target.stopChecksAt ?? Date.now() + options.runTimeoutMs,
    say: s.say,
    interrupts: io.interrupts,
    leftOnExit: () => {
      const left = leftAccordingToJournal(s.journal, s.target.runId);
      return left.length ? `Left on the target (${left.length}): ${left.map((l) => l.record).join(', ')}; \`${s.recoverLine}\` undoes it\n` : 'Left on the target: nothing\n';
    },
  });
  // Cut short, the run's own requests end now and nothing more is sent: the journal says all it did.
  s.client.stopped = stop.cut.signal;
  const cutShort = (): Recovery => ({ deleted: [], restored: [], leftOnTarget: leftAccordingToJournal(s.journal, s.target.runId), listedGone: [] });
  try {
    const spec = await loadSpec();
    s.target.sentinels = sentinelPaths(spec);
    stop.startUpDone();
    const lease = s.target.readOnly || stop.reason ? undefined : await stop.unlessCut(claimTarget(s, spec), () => undefined);
    const recovery = await stop.unlessCut(whileLeased(lease, async () => {
      progress.start();
      if (!stop.reason) await runChecks(s, collector, stop);
      stop.checksOver();
      progress.cleaningUp(() => leftAccordingToJournal(s.journal, s.target.runId).length);
      s.client.phase = 'after-run clean-up';
      const recovered = await recover(s.client, s.journal, s.target, { cleanupTimeoutMs: options.cleanupTimeoutMs });
      if (stop.cut.signal.aborted) return recovered; // not waited for: the frame is not read
      await frameAfterCleanUp(s, spec, collector, recovered);
      listedAfterDelete(collector, recovered.listedGone, windowOf(s.target));
      return withFrame(s.journal, recovered);
    }), cutShort);
    stop.cleanedUp();
    progress.stop();
    if (!recovery.leftOnTarget.length) s.journal.append({ kind: 'finished' });
    tellAfterChecks(s, collector, stop.reason, recovery);
    // Another writer met during the run (helpers/safety/interference.ts): what it touched proves nothing.
    const interference = outstanding(s.journal.read()).interference;
    const run = resultOf(s, { started, spec, collector, recovery, interference, stopped: stop.reason });
    const files = await report(s, run, terminal);
    return ending(s, { run, spec, files, interference, stop, suiteErrors: collector.suiteErrors.length > 0 });
  } finally {
    stop.close();
    await s.client.close();
    removeReadings(s.journal.file);
  }
}

/** The report directory made, the journal begun with the run's origin, the preflight's requests logged: the target's config for this run. */
function openSession(options: RunOptions, baseTarget: TargetConfig, redact: (t: string) => string, io: Io, preflightRequests: WireEntry[]): Session {
  const dir = resolve(options.reportDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`--report-dir ${options.reportDir}: cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (options.certify && options.expectFile) io.stderr.write(`note: --expect ${options.expectFile} is ignored: a certification holds every check to the contract\n`);
  const journal = Journal.start(join(dir, JOURNAL_FILE));
  journal.append({ kind: 'run', origin: new URL(baseTarget.baseUrl).origin, runId: baseTarget.runId, at: new Date().toISOString(), host: hostname(), pid: process.pid });
  const requestLog = join(dir, REQUEST_LOG_FILE);
  writeFileSync(requestLog, preflightRequests.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const target: TargetConfig = { ...baseTarget, journalFile: journal.file, requestLogFile: requestLog };
  const client = journalledClient(target);
  client.phase = 'baseline';
  const say = (text: string) => io.stderr.write(redact(text));
  const recoverLine = commandLine([...options.relaunch, '--base-url', target.baseUrl, '--recover', dir]);
  return { options, io, redact, say, dir, target, journal, client, requestLog, recoverLine };
}

/**
 * Before the first change: the baseline of what the run may change, no other run's values in it,
 * and the run's lease. Another run at work (its values in the baseline, or its live lease) ends
 * this one before it changes anything, and so does a lease that could not be taken now (no write
 * without one); only a target whose own customer operations make a lease impossible is tested without.
 */
async function claimTarget(s: Session, spec: Spec): Promise<Lease | undefined> {
  const { client, target, journal, options, say, recoverLine } = s;
  const place = leasePlace(spec, target);
  // Whether another run holds a lease is read in the baseline's read of the customers: one read of a long list, not two.
  const leases = place && leaseLookUp(place, target.runId);
  const baseline = await takeBaseline(client, spec, target, journal, leases && ((root, _path, row) => void (root === place.listPath && leases.row(row))));
  for (const p of baseline.problems) say(`warning: ${p}\n`);
  // What that read threw is the look-up's failure too (Lease.take says what failed); a baseline that did not read the customers leaves it a read of its own.
  const looked = place && leases && (baseline.roots.includes(place.listPath) ? Promise.resolve(leases.live()) : baseline.failed.has(place.listPath) ? Promise.reject(baseline.failed.get(place.listPath)) : liveLeasesOfOthers(client, place, target.runId));
  looked?.catch(() => {}); // awaited by Lease.take
  // Another run's values in the baseline are not what the target holds when no run is at work.
  for (const record of outstanding(journal.read()).snapshots.values()) {
    const other = foreignRunId(record, target.runId);
    if (!other) continue;
    const live = place ? (await liveLeasesOfOthers(client, place, target.runId).catch(() => [])).find((l) => l.runId === other) : undefined;
    journal.append({ kind: 'finished' }); // nothing was written: nothing to undo
    throw new TargetError(ownStoppedRun(s, other) ?? overlappingRunMessage(other, live, Boolean(live)));
  }
  client.phase = 'lease';
  const taken = await Lease.take(client, target, place, journal, looked);
  if ('lease' in taken) return taken.lease;
  if ('unheld' in taken) {
    say(`warning: no run can hold a lease on this target (${taken.unheld}): the customers' checks judge that; a run started beside this one would not know of it\n`);
    return undefined;
  }
  // Whatever the attempt made (a lease whose answer was lost, one that gave way) is undone before the run ends.
  client.phase = 'after-run clean-up';
  const { leftOnTarget } = await recover(client, journal, target, { cleanupTimeoutMs: options.cleanupTimeoutMs });
  if (!leftOnTarget.length) journal.append({ kind: 'finished' });
  if ('busy' in taken) throw new TargetError(ownStoppedRun(s, taken.busy.runId) ?? overlappingRunMessage(taken.busy.runId, taken.busy, true));
  const left = leftOnTarget.length ? `; left on the target: ${leftOnTarget.map((l) => `${l.record} (${l.problem})`).join(', ')}: \`${recoverLine}\` undoes it` : '';
  throw new TargetError(`INCOMPLETE: no lease could be taken on the target (${taken.none}); a run that changes data holds one, so no check ran${left || ' and nothing is left changed'}. Run again when the target answers, or with --read-only to run the checks that change nothing`);
}

/**
 * Why the run does not start when the run holding the target is this folder's own, stopped (a
 * second Ctrl-C, a killed job): its lease lives on until it lapses, and its journal is here.
 */
function ownStoppedRun({ dir, options, target }: Session, runId: string): string | undefined {
  const file = ownStoppedJournal(dir, runId);
  if (!file) return undefined;
  return `run ${runId}, which holds this target, is this machine's own run, stopped before it finished (its journal is ${file}); nothing was changed: \`${commandLine([...options.relaunch, '--base-url', target.baseUrl, '--recover', file])}\` undoes what it left and frees the target at once`;
}

/**
 * The unfinished journal of run `runId` where this machine's runs keep theirs (the report folder
 * given, and the default ones: reports/<timestamp>), when its process is gone: this machine's own
 * stopped run, not one still going (helpers/safety/journal.ts).
 */
export function ownStoppedJournal(reportDir: string, runId: string): string | undefined {
  const defaults = resolve(DEFAULT_REPORTS);
  let folders: string[] = [];
  try {
    folders = readdirSync(defaults, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(defaults, d.name));
  } catch {
    // No default report folders here.
  }
  return stoppedRunIn([...new Set([resolve(reportDir), ...folders])], JOURNAL_FILE, runId);
}

/** Where the frame's reading after the clean-up is taken (withFrame names what it found). */
const CLEAN_UP_END = 'the end of the clean-up';

/**
 * The frame's last reading, once the clean-up's writes (the lease's delete among them) are done:
 * what they changed beyond what they addressed fails the WRITE-FRAME check like what a check's write did.
 */
async function frameAfterCleanUp(s: Session, spec: Spec, collector: ResultCollector, recovered: Recovery): Promise<void> {
  const { target } = s;
  const frame = Frame.open(spec, target, 'after-run clean-up');
  if (!frame) return;
  let found: FrameDifference[] = [];
  try {
    found = (await frame.read(CLEAN_UP_END, true)).filter((d) => !d.by);
    recovered.listedGone = [...new Set([...recovered.listedGone, ...frame.listedGone])];
  } catch {
    // Not read whole: the check judged what the suites' end showed.
  } finally {
    await frame.close();
  }
  // What a check found it could not put back (journalled lost), or the clean-up could not, is their failure, and named as left.
  const { lost } = outstanding(s.journal.read());
  const named = new Set(recovered.leftOnTarget.map((l) => l.record));
  found = found.filter((d) => !lost.has(d.path) && !named.has(d.path));
  if (found.length) failAfterRun(collector, FRAME_CHECK.id, `records changed that no write of the run addressed (read after the clean-up): ${found.map((d) => describeDifference(d)).join('; ')}`);
}

/** A check the run's end judges (what the clean-up and the frame after it saw) fails, unless it failed already or was not run. */
function failAfterRun(collector: ResultCollector, id: string, reason: string): void {
  const check = collector.checks.find((c) => c.id === id);
  if (!check || check.outcome === 'failed') return;
  check.outcome = 'failed';
  check.reason = reason;
}

/** The check that holds a deleted record to being listed no more: customers are the only records the run creates and deletes. */
const LISTED_AFTER_DELETE = 'CUS-DELETE';

/**
 * Records the run deleted that the lists read after the clean-up still name, a window after the
 * run's last write, though a find answers them gone (the clean-up's verification, the frame's
 * reading after it: see Recovery.listedGone): no lag the suite allows explains them, and they
 * are not left on the target: the list-after-delete check fails. In a run without that check,
 * nothing here is judged.
 */
function listedAfterDelete(collector: ResultCollector, paths: string[], windowMs: number): void {
  if (paths.length) failAfterRun(collector, LISTED_AFTER_DELETE, `records the run deleted are still listed after its last write and the ${windowMs / 1000} s convergence window (read after the clean-up), though a find answers each gone: ${paths.join(', ')}`);
}

/**
 * What the frame found changed that no write of the run addressed (helpers/safety/frame.ts), named
 * as left on the target: the clean-up puts back only what the run wrote, and a record another
 * write removed or added is not the run's to undo. A record the clean-up restored is not named,
 * unless the reading after the clean-up shows it changed again (a write of the clean-up that
 * reached it too): nothing is left to put it back then.
 */
function withFrame(journal: Journal, recovery: Recovery): Recovery {
  const entries = journal.read();
  const { written } = outstanding(entries);
  const named = new Set(recovery.leftOnTarget.map((l) => l.record));
  const last = entries.findLast((e) => e.kind === 'frame');
  const afterCleanUp = new Set(last?.kind === 'frame' && last.where === CLEAN_UP_END ? last.differences.map((d) => d.path) : []);
  const frame = frameFindings(entries).differences.filter((d) => (!written.has(d.path) || afterCleanUp.has(d.path)) && !named.has(d.path));
  const why = (d: FrameDifference) => (written.has(d.path) ? 'changed again after the clean-up put it back' : "not the run's to put back");
  return { ...recovery, leftOnTarget: [...recovery.leftOnTarget, ...frame.map((d) => ({ record: d.path, problem: `${describeDifference(d).slice(d.path.length + 1)}; ${why(d)}` }))] };
}

/** Beats go on through the clean-up (an outage may hold it up to --cleanup-timeout), which deletes the lease last. */
async function whileLeased<T>(lease: Lease | undefined, work: () => Promise<T>): Promise<T> {
  const beats = lease && setInterval(() => lease.beat(), LEASE_BEAT_MS).unref();
  try {
    const done = await work();
    clearInterval(beats);
    await lease?.settled();
    return done;
  } finally {
    clearInterval(beats);
  }
}

/** How many checks the run holds the target to, as --list counts them: the progress line's whole. */
async function checksToRun(target: TargetConfig): Promise<number> {
  const { declaredChecks } = await import('../registries/index.ts');
  return (await declaredChecks(target)).filter((c) => selects(target.only, c) && !(target.readOnly && c.changesData)).length;
}

/** The suites, run to their end or until the run stops; an error of theirs is kept as the run's suite error. */
async function runChecks({ target, options, redact, earlyWorker }: Session, collector: ResultCollector, stop: RunStop): Promise<void> {
  // Vitest loads while the baseline and the lease are asked for (see suitesModule).
  const { startSuites } = await suitesModule();
  const suites = await startSuites({ target, reporters: [collector], stillWanted: () => !stop.reason, concurrency: options.concurrency ?? defaultConcurrency(target.baseUrl), earlyWorker });
  stop.watch(suites);
  await suites.done.catch((e: Error) => void collector.suiteErrors.push(redact(`suites: ${e.message.split('\n')[0]}`)));
  loadReportWriters().catch(() => {}); // a failure to load shows where they are written
}

/** After the checks and the clean-up: why checks did not run (a stop), or the suites' errors; then what the clean-up did. */
function tellAfterChecks({ io, redact }: Session, collector: ResultCollector, stopped: Stopped | undefined, recovery: Recovery): void {
  if (stopped) {
    for (const c of collector.checks) if (c.outcome === 'skipped' && c.reason === 'not run') c.reason = `not run: ${stopped}`;
  } else {
    for (const e of collector.suiteErrors) io.stderr.write(`suite error: ${e.split('\n')[0]}\n`);
  }
  if (recovery.deleted.length) io.stdout.write(redact(`Deleted after the suites: ${recovery.deleted.join(', ')}\n`));
  if (recovery.restored.length) io.stdout.write(redact(`Restored after the suites: ${recovery.restored.join(', ')}\n`));
}

interface Outcome {
  started: Date;
  spec: Spec;
  collector: ResultCollector;
  recovery: Recovery;
  interference: Map<string, string>;
  stopped: Stopped | undefined;
}

/** The result model: the checks in the order of the suites and their declaration, those another writer touched settled as such. */
function resultOf({ options, target, requestLog, recoverLine }: Session, { started, spec, collector, recovery, interference, stopped }: Outcome): RunResult {
  const inContractOrder = <T extends CollectedCheck | Observation>(a: T, b: T) => suiteRank(a.resource) - suiteRank(b.resource) || collector.byDeclaration(a, b);
  const checks = collector.checks.filter((c) => !filteredOut(c)).toSorted(inContractOrder);
  // The log's requests that a check or observation shows are counted, and otherwise theirs: kept once (issue 35).
  const requests = withLoggedExchanges(requestLog, [...collector.checks, ...collector.observations]);
  return buildRunResult({
    suiteVersion,
    specSha256: spec.sha256,
    baseUrl: target.baseUrl,
    embeddedReference: !options.baseUrl,
    proxy: target.network?.proxy,
    startedAt: started,
    endedAt: new Date(),
    strict: target.strict,
    readOnly: target.readOnly,
    only: options.only,
    certify: Boolean(options.certify),
    expectFile: options.certify ? undefined : options.expectFile,
    explore: target.explore,
    expectations: options.expectations,
    checks: settledByInterference(checks, interference),
    observations: collector.observations.toSorted(inContractOrder),
    suiteErrors: collector.suiteErrors,
    stopped: stopped ?? (interference.size ? 'interference' : undefined),
    cleanUp: { deleted: recovery.deleted, restored: recovery.restored },
    leftOnTarget: recovery.leftOnTarget,
    ...(recovery.leftOnTarget.length ? { recoverCommand: recoverLine } : {}),
    requests,
  });
}

/** The reports written, the terminal's summary printed: returns every file the run wrote, for the secret scan. */
async function report(s: Session, run: RunResult, terminal: TerminalReporter): Promise<string[]> {
  const written = (await loadReportWriters()).writeReports(s.dir, run, { redact: s.redact, certify: s.options.certify, resultOnly: s.io.resultOnly });
  s.io.onResult?.(run);
  terminal.summary(run, written);
  // A run that passes yet certifies nothing must not read as a certification (a failed or incomplete one says so already).
  const refusal = written.bundle && run.exitCode === EXIT.conformant ? certificationRefusal(run) : undefined;
  if (refusal) s.say(`scheduling-conformance: not certified: ${refusal}\n`);
  if (run.leftOnTarget.length) s.io.stderr.write(s.redact(`scheduling-conformance: to finish later what is left: ${s.recoverLine}\n`));
  const summaryFiles = writeSummary(run, s.options, s.redact);
  return [...written.files, s.journal.file, s.requestLog, ...summaryFiles];
}

interface Ending {
  run: RunResult;
  spec: Spec;
  files: string[];
  interference: Map<string, string>;
  stop: RunStop;
  suiteErrors: boolean;
}

/** The run's exit: a leaked secret or another writer prove nothing (exit 2, one line); else the verdict's code, with a last line where the run stopped or proved nothing. */
function ending({ target, say, redact, options }: Session, { run, spec, files, interference, stop, suiteErrors }: Ending): Ended {
  /** A run that proves nothing though it reported: its last line, and exit 2. */
  const provesNothing = (line: string): Ended => (say(`scheduling-conformance: ${line}\n`), { code: EXIT.usage, line: redact(line) });
  const leaks = scanForSecrets(files, target);
  if (leaks.length) {
    for (const l of leaks) rmSync(l.file, { force: true });
    return provesNothing(`SECRET LEAK: ${leaks.map((l) => `${l.key} in ${l.file}`).join('; ')}; the files were deleted`);
  }
  if (interference.size) {
    const line = `interference by ${[...new Set(interference.values())].join(', ')}: another writer changed ${interferedWith([...interference.keys()], spec)} during the run; its checks stopped, and only fields holding this run's marker were put back (one run per target at a time)`;
    // The failures another writer could not explain stand: the target is not conformant.
    if (run.exitCode === EXIT.nonConformant) return (say(`scheduling-conformance: ${line}\n`), { code: run.exitCode });
    return provesNothing(line);
  }
  if (run.verdict === 'incomplete' && !stop.reason && !suiteErrors) say(`scheduling-conformance: INCOMPLETE: ${incompleteText(run)}\n`);
  if (stop.reason === 'environment') {
    say(`scheduling-conformance: could not test: ${stop.environmentGone}; ${BLOCKS_BEFORE_STOP} checks in a row were blocked by the environment, so the run stopped and cleaned up what the target allowed\n`);
  }
  if (stop.reason === 'run-timeout') say(`scheduling-conformance: run timeout: the run was stopped after ${options.runTimeoutMs / 1000} s; checks not run are reported as skipped\n`);
  return { code: run.exitCode };
}

/** "the business record and the team members": the resources of the interfered paths, by the operations that address them. */
function interferedWith(paths: string[], spec: Spec): string {
  const resources = new Set(paths.map((p) => resourceAt(spec, p) ?? p));
  return [...resources].map((r) => (r === 'business' ? 'the business record' : `the ${r.replace(/-/g, ' ')}`)).join(' and ');
}

/** The Markdown summary: to --summary FILE, and appended to $GITHUB_STEP_SUMMARY when the CI sets it. */
function writeSummary(run: RunResult, options: RunOptions, redact: (t: string) => string): string[] {
  const text = redact(toSummaryMarkdown(run));
  const write = (file: string, how: (file: string, text: string) => void, what: string) => {
    try {
      how(file, text);
    } catch (e) {
      throw new UsageError(`${what} ${file}: cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  };
  if (options.summaryFile) write(options.summaryFile, writeFileSync, '--summary');
  if (options.stepSummaryFile) write(options.stepSummaryFile, appendFileSync, 'GITHUB_STEP_SUMMARY');
  return [options.summaryFile, options.stepSummaryFile].filter((f): f is string => Boolean(f));
}
