import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readRequestLog, type WireEntry } from '../http/exchanges.ts';
import { join, resolve } from 'node:path';
import { EXIT, TargetError, UsageError } from '../core/errors.ts';
import { defaultConcurrency, type RunOptions } from './options.ts';
import type { TargetConfig } from '../config/target.ts';
import { ResultCollector } from '../results/reporters/collector.ts';
import { TerminalReporter, useColour } from '../results/reporters/terminal.ts';
import { startSuites, suiteRank, type SuiteRun } from './run-suites.ts';
import { loadSpec, type Spec } from '../contract/spec.ts';
import { loadCatalog } from '../contract/catalog.ts';
import { suiteVersion } from '../core/version.ts';
import { BLOCKS_BEFORE_STOP, environmentChannel, type EnvironmentGone } from '../http/environment.ts';
import { sentinelPaths } from './preflight.ts';
import { Journal, journalledClient, outstanding } from '../safety/journal.ts';
import { foreignRunId, overlappingRunMessage, settledByInterference } from '../safety/interference.ts';
import { Lease, LEASE_BEAT_MS, leasePlace, liveLeasesOfOthers } from '../safety/lease.ts';
import { formatLeftOnTarget, leftAccordingToJournal, recover, takeBaseline } from '../safety/after-run-cleanup.ts';
import { onInterrupt } from './signals.ts';
import { scanForSecrets } from '../safety/secret-scan.ts';
import { buildRunResult, incompleteText, type RunResult, type Stopped } from '../results/run-result.ts';
import { toSummaryMarkdown } from '../results/reporters/summary.ts';
import { certificationRefusal } from '../results/reporters/certification.ts';
import type { CollectedCheck } from '../results/check-outcomes.ts';
import { NOT_SELECTED } from '../core/selection.ts';
import type { Io } from './io.ts';
import { JOURNAL_FILE, REQUEST_LOG_FILE } from '../results/report-files.ts';
import { commandLine } from './relaunch.ts';

export { JOURNAL_FILE, readRequestLog, REQUEST_LOG_FILE };

/**
 * The report writers (xmlbuilder2 and its YAML parser above all, ~60 ms): loaded while the suites
 * run, when this thread mostly waits, not on the way to the first check.
 */
let reportWriters: Promise<typeof import('../results/write-reports.ts')> | undefined;
const loadReportWriters = () => (reportWriters ??= import('../results/write-reports.ts'));

/** Checks --only left out are not part of the run. */
const filteredOut = (c: CollectedCheck) => c.outcome === 'skipped' && c.reason === NOT_SELECTED;

/**
 * Runs the suites against a reachable target, undoes what they left changed, writes the reports,
 * and returns the exit code. A first SIGINT/SIGTERM or the run timeout stops new checks from
 * starting and goes on to the clean-up; a second signal exits at once.
 */
export async function conform(options: RunOptions, baseTarget: TargetConfig, redact: (t: string) => string, io: Io, preflightRequests: WireEntry[] = []): Promise<number> {
  const started = new Date();
  const dir = resolve(options.reportDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`--report-dir ${options.reportDir}: cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (options.certify && options.expectFile) io.stderr.write(`note: --expect ${options.expectFile} is ignored: a certification holds every check to the contract\n`);
  const journal = Journal.start(join(dir, JOURNAL_FILE));
  journal.append({ kind: 'run', origin: new URL(baseTarget.baseUrl).origin, runId: baseTarget.runId });
  const requestLog = join(dir, REQUEST_LOG_FILE);
  writeFileSync(requestLog, preflightRequests.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const target: TargetConfig = { ...baseTarget, journalFile: journal.file, requestLogFile: requestLog, only: options.only };
  const client = journalledClient(target);
  client.phase = 'baseline';
  const collector = new ResultCollector(redact);
  const terminal = new TerminalReporter(io.stdout, useColour(io.stdout), options.expectations);
  const skip = filteredOut;
  collector.onCheck((c) => skip(c) || terminal.check(c));
  const say = (text: string) => io.stderr.write(redact(text));
  const recoverLine = commandLine([...options.relaunch, '--base-url', target.baseUrl, '--recover', dir]);

  let stopped: Stopped | undefined;
  let suites: SuiteRun | undefined;
  const removeHandlers = (io.interrupts ?? onInterrupt)(
    (signal) => {
      stopped ??= 'interrupted';
      say(`\n${signal}: no new checks start; restoring and cleaning up the target (a second signal exits at once)\n`);
      void suites?.cancel('keyboard-input');
    },
    (signal) => {
      const left = leftAccordingToJournal(journal, target.runId);
      say(`\n${signal} again: exiting at once.\n${formatLeftOnTarget(left)}${left.length ? `${recoverLine} undoes it later\n` : ''}`);
      process.exit(EXIT.interrupted);
    },
  );
  const stopAt = target.stopChecksAt ?? Date.now() + options.runTimeoutMs;
  const timeUp = () => {
    if (stopped) return;
    stopped = 'run-timeout';
    say(`\nrun timeout: ${options.runTimeoutMs / 1000} s have passed; no new checks start; cleaning up the target\n`);
    void suites?.cancel('keyboard-input');
  };
  const timer = setTimeout(timeUp, Math.max(0, stopAt - Date.now()));
  let beats: NodeJS.Timeout | undefined;
  // A lane that gave up on the environment (helpers/http/environment.ts): the run stops as on a signal.
  let environmentGone: string | undefined;
  const environment = environmentChannel(target.runId);
  environment.onmessage = (message) => {
    if (stopped) return;
    stopped = 'environment';
    environmentGone = (message as { data: EnvironmentGone }).data.reason;
    say(`\n${environmentGone}: ${BLOCKS_BEFORE_STOP} checks in a row were blocked by it; no new checks start; cleaning up what the target allows\n`);
    void suites?.cancel('keyboard-input');
  };

  try {
    const spec = await loadSpec();
    target.sentinels = sentinelPaths(spec);
    // Start-up counts: a timeout already past changes nothing on the target.
    if (Date.now() >= stopAt) timeUp();
    let lease: Lease | undefined;
    if (!target.readOnly && !stopped) {
      for (const p of await takeBaseline(client, spec, target, journal)) say(`warning: ${p}\n`);
      const place = leasePlace(spec, target);
      // Another run's values in the baseline are not what the target holds when no run is at work.
      for (const record of outstanding(journal.read()).snapshots.values()) {
        const other = foreignRunId(record, target.runId);
        if (!other) continue;
        const live = place ? (await liveLeasesOfOthers(client, place, target.runId).catch(() => [])).find((l) => l.runId === other) : undefined;
        throw new TargetError(overlappingRunMessage(other, live, Boolean(live)));
      }
      client.phase = 'lease';
      const taken = await Lease.take(client, target, place, journal);
      if ('busy' in taken) {
        client.phase = 'after-run clean-up';
        await recover(client, journal, target, { cleanupTimeoutMs: options.cleanupTimeoutMs });
        throw new TargetError(overlappingRunMessage(taken.busy.runId, taken.busy, true));
      }
      if ('none' in taken) say(`warning: no lease taken on the target (${taken.none}): a run started beside this one would not know of it\n`);
      else lease = taken.lease;
    }
    // Beats go on through the clean-up (an outage may hold it up to --cleanup-timeout), which deletes the lease last.
    if (lease) beats = setInterval(() => lease.beat(), LEASE_BEAT_MS).unref();
    if (!stopped) {
      suites = await startSuites({ target, reporters: [collector], stillWanted: () => !stopped, concurrency: options.concurrency ?? defaultConcurrency(target.baseUrl) });
      loadReportWriters().catch(() => {}); // a failure to load shows where they are written
      if (stopped) void suites.cancel('keyboard-input');
      await suites.done.catch((e: Error) => void collector.suiteErrors.push(redact(`suites: ${e.message.split('\n')[0]}`)));
    }
    clearTimeout(timer);
    client.phase = 'after-run clean-up';
    const recovery = await recover(client, journal, target, { cleanupTimeoutMs: options.cleanupTimeoutMs });
    clearInterval(beats);
    await lease?.settled();
    removeHandlers();

    if (stopped) {
      for (const c of collector.checks) if (c.outcome === 'skipped' && c.reason === 'not run') c.reason = `not run: ${stopped}`;
    } else {
      for (const e of collector.suiteErrors) io.stderr.write(`suite error: ${e.split('\n')[0]}\n`);
    }
    if (recovery.deleted.length) io.stdout.write(redact(`Deleted after the suites: ${recovery.deleted.join(', ')}\n`));
    if (recovery.restored.length) io.stdout.write(redact(`Restored after the suites: ${recovery.restored.join(', ')}\n`));

    // Another writer met during the run (helpers/safety/interference.ts): what it touched proves nothing.
    const interference = outstanding(journal.read()).interference;
    const catalog = loadCatalog();
    const run = buildRunResult({
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
      expectations: options.expectations,
      checks: settledByInterference(collector.checks.filter((c) => !skip(c)).toSorted((a, b) => suiteRank(a.resource) - suiteRank(b.resource) || collector.byDeclaration(a, b)), interference),
      observations: collector.observations,
      suiteErrors: collector.suiteErrors,
      requirementText: (id) => catalog.byId.get(id)?.text ?? '',
      notChecked: catalog.notChecked,
      requirements: catalog.requirements,
      stopped: stopped ?? (interference.size ? 'interference' : undefined),
      cleanUp: { deleted: recovery.deleted, restored: recovery.restored },
      leftOnTarget: recovery.leftOnTarget,
      requests: readRequestLog(requestLog),
    });
    const written = (await loadReportWriters()).writeReports(dir, run, { redact, certify: options.certify });
    io.onResult?.(run);
    terminal.summary(run, written);
    // A run that passes yet certifies nothing must not read as a certification (a failed or incomplete one says so already).
    const refusal = written.bundle && run.exitCode === EXIT.conformant ? certificationRefusal(run) : undefined;
    if (refusal) say(`scheduling-conformance: not certified: ${refusal}\n`);
    if (run.leftOnTarget.length) io.stderr.write(redact(`scheduling-conformance: to finish later what is left: ${recoverLine}\n`));
    const summaryFiles = writeSummary(run, options, redact);

    const leaks = scanForSecrets([...written.files, journal.file, requestLog, ...summaryFiles], target);
    if (leaks.length) {
      for (const l of leaks) rmSync(l.file, { force: true });
      say(`scheduling-conformance: SECRET LEAK: ${leaks.map((l) => `${l.key} in ${l.file}`).join('; ')}; the files were deleted\n`);
      return EXIT.usage;
    }
    if (interference.size) {
      say(`scheduling-conformance: interference by ${[...new Set(interference.values())].join(', ')}: another writer changed ${interferedWith([...interference.keys()], spec)} during the run; its checks stopped, and only fields holding this run's marker were put back (one run per target at a time)\n`);
      return EXIT.usage;
    }
    if (run.verdict === 'incomplete' && !stopped && !collector.suiteErrors.length) {
      say(`scheduling-conformance: INCOMPLETE: ${incompleteText(run)}\n`);
    }
    if (stopped === 'environment') {
      say(`scheduling-conformance: could not test: ${environmentGone}; ${BLOCKS_BEFORE_STOP} checks in a row were blocked by the environment, so the run stopped and cleaned up what the target allowed\n`);
    }
    if (stopped === 'run-timeout') {
      say(`scheduling-conformance: run timeout: the run was stopped after ${options.runTimeoutMs / 1000} s; checks not run are reported as skipped\n`);
    }
    return run.exitCode;
  } finally {
    clearTimeout(timer);
    clearInterval(beats);
    removeHandlers();
    environment.close();
    await client.close();
  }
}

/** "the business record and the team members": the resources of the interfered paths, by the operations that address them. */
function interferedWith(paths: string[], spec: Spec): string {
  const resources = new Set(paths.map((p) => spec.operations.find((o) => new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(p))?.resource ?? p));
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
