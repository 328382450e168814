import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT } from './errors.ts';
import type { RunOptions } from './options.ts';
import type { TargetConfig } from './target.ts';
import { ResultCollector } from './reporters/collector.ts';
import { TerminalReporter, useColour } from './reporters/terminal.ts';
import { startSuites, type SuiteRun } from './run-suites.ts';
import { isConformant } from './results.ts';
import { loadSpec } from './spec.ts';
import { ApiClient } from './http.ts';
import { Journal } from './journal.ts';
import { formatLeftOnTarget, leftAccordingToJournal, recover, takeBaseline } from './recovery.ts';
import { onInterrupt } from './signals.ts';
import { scanForSecrets } from './secret-scan.ts';

/** The run journal, in the report directory: what the run changed, for clean-up and for the record. */
export const JOURNAL_FILE = 'run-journal.jsonl';

/**
 * Runs the suites against a reachable target, undoes what they left changed, writes the reports,
 * and returns the exit code. A first SIGINT/SIGTERM or the run timeout stops new checks from
 * starting and goes on to the clean-up; a second signal exits at once.
 */
export async function conform(options: RunOptions, baseTarget: TargetConfig, redact: (t: string) => string): Promise<number> {
  const started = Date.now();
  const dir = resolve(options.reportDir);
  mkdirSync(dir, { recursive: true });
  const journal = new Journal(join(dir, JOURNAL_FILE));
  const target: TargetConfig = { ...baseTarget, journalFile: journal.file };
  const client = new ApiClient(target);
  const collector = new ResultCollector(redact);
  const terminal = new TerminalReporter(process.stdout, useColour(process.stdout));
  collector.onCheck((c) => terminal.check(c));
  const say = (text: string) => process.stderr.write(redact(text));

  let stopped: 'interrupted' | 'run-timeout' | undefined;
  let suites: SuiteRun | undefined;
  const removeHandlers = onInterrupt(
    (signal) => {
      stopped ??= 'interrupted';
      say(`\n${signal}: no new checks start; restoring and cleaning up the target (a second signal exits at once)\n`);
      void suites?.cancel('keyboard-input');
    },
    (signal) => {
      say(`\n${signal} again: exiting at once.\n${formatLeftOnTarget(leftAccordingToJournal(journal, target.runId))}`);
      process.exit(EXIT.interrupted);
    },
  );
  const timer = setTimeout(() => {
    stopped ??= 'run-timeout';
    say(`\nrun timeout: ${options.runTimeoutMs / 1000} s have passed; no new checks start; cleaning up the target\n`);
    void suites?.cancel('keyboard-input');
  }, options.runTimeoutMs);

  try {
    const spec = await loadSpec();
    if (!target.readOnly) for (const p of await takeBaseline(client, spec, target, journal)) say(`warning: ${p}\n`);
    if (!stopped) {
      suites = await startSuites({ target, reporters: [collector] });
      if (stopped) void suites.cancel('keyboard-input');
      await suites.done.catch((e: Error) => void collector.suiteErrors.push(redact(`suites: ${e.message.split('\n')[0]}`)));
    }
    clearTimeout(timer);
    const recovery = await recover(client, journal, target);
    removeHandlers();

    const why = { interrupted: 'interrupted', 'run-timeout': 'stopped by the run timeout' } as const;
    if (stopped) for (const c of collector.checks) if (c.outcome === 'skipped' && c.reason === 'not run') c.reason = `not run: ${why[stopped]}`;
    const requests = collector.checks.reduce((n, c) => n + c.exchanges.length, 0);
    if (!stopped) for (const e of collector.suiteErrors) process.stderr.write(`suite error: ${e.split('\n')[0]}\n`);
    terminal.summary(collector.checks, { requests, durationMs: Date.now() - started, incomplete: stopped ? why[stopped] : collector.suiteErrors.length > 0 });
    const leftOut = target.readOnly ? collector.checks.filter((c) => c.outcome === 'skipped').map((c) => c.checkId) : [];
    if (leftOut.length) process.stdout.write(`read-only: ${leftOut.length} checks that change data were left out: ${leftOut.join(', ')}\n`);
    if (recovery.deleted.length) process.stdout.write(redact(`Deleted after the suites: ${recovery.deleted.join(', ')}\n`));
    if (recovery.restored.length) process.stdout.write(redact(`Restored after the suites: ${recovery.restored.join(', ')}\n`));
    process.stdout.write(redact(formatLeftOnTarget(recovery.leftOnTarget)));

    const result = {
      specSha256: spec.sha256,
      target: new URL(target.baseUrl).origin,
      startedAt: new Date(started).toISOString(),
      endedAt: new Date().toISOString(),
      strict: target.strict,
      readOnly: target.readOnly,
      stopped: stopped ?? null,
      leftOut,
      checks: collector.checks,
      observations: collector.observations,
      suiteErrors: collector.suiteErrors,
      cleanUp: { deleted: recovery.deleted, restored: recovery.restored },
      leftOnTarget: recovery.leftOnTarget,
      resources: { maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) },
    };
    writeFileSync(join(dir, 'result.json'), redact(JSON.stringify(result, null, 2)));
    process.stdout.write(`Reports: ${dir}\n`);

    const leaks = scanForSecrets(dir, target);
    if (leaks.length) {
      for (const l of leaks) rmSync(l.file, { force: true });
      say(`scheduling-conformance: SECRET LEAK: ${leaks.map((l) => `${l.key} in ${l.file}`).join('; ')}; the files were deleted\n`);
      return EXIT.usage;
    }
    if (stopped === 'interrupted') return EXIT.interrupted;
    if (stopped === 'run-timeout') {
      say(`scheduling-conformance: run timeout: the run was stopped after ${options.runTimeoutMs / 1000} s; checks not run are reported as skipped\n`);
      return EXIT.usage;
    }
    // A failed check proves non-conformance even when something else went wrong (say, what a
    // broken delete left on the target): only a run that proves nothing either way exits 2.
    if (!isConformant(collector.checks)) return EXIT.nonConformant;
    return collector.suiteErrors.length ? EXIT.usage : EXIT.conformant;
  } finally {
    clearTimeout(timer);
    removeHandlers();
    await client.close();
  }
}
