import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REQUEST_LOG_FILE } from '../results/report-files.ts';
import type { WireEntry } from '../http/exchanges.ts';
import type { RunOptions } from './options.ts';
import { prepareReportDir } from './outputs.ts';
import { suiteVersion } from '../core/version.ts';

export interface NotTested {
  dir: string;
  /** The one line that says why (already redacted). */
  why: string;
  options?: RunOptions;
  baseUrl?: string;
  startedAt: Date;
  /** What was sent before the run gave up (the preflight): on the record like any run's requests. */
  requests: WireEntry[];
  redact: (text: string) => string;
  /** Set when the run timeout ran out during start-up. */
  stopped?: 'run-timeout';
}

/**
 * The verdict of a run that could not test the target (exit 2): result.json, junit.xml,
 * report.html and exchanges.har saying INCOMPLETE and why, in place of whatever an earlier run
 * left in the report directory. Best effort: the error line on stderr is what counts.
 */
export async function writeNotTested(n: NotTested): Promise<void> {
  const [{ buildRunResult }, { writeReports }, { loadSpec }, { scanForSecrets }, { readRequestLog }] = await Promise.all([
    import('../results/run-result.ts'),
    import('../results/write-reports.ts'),
    import('../contract/spec.ts'),
    import('../safety/secret-scan.ts'),
    import('../http/exchanges.ts'),
  ]);
  // A run that got as far as its request log (the baseline met another run, say): every request it sent is on the record.
  const log = join(n.dir, REQUEST_LOG_FILE);
  const ours = existsSync(log) && statSync(log).mtimeMs >= n.startedAt.getTime();
  const requests = ours ? readRequestLog(log) : n.requests;
  prepareReportDir(n.dir, ours ? [REQUEST_LOG_FILE] : []);
  const run = buildRunResult({
    suiteVersion,
    specSha256: (await loadSpec()).sha256,
    // The embedded reference's address is not known when it did not start.
    baseUrl: n.baseUrl && URL.canParse(n.baseUrl) ? n.baseUrl : 'http://127.0.0.1',
    embeddedReference: n.options ? !n.options.baseUrl : !n.baseUrl,
    startedAt: n.startedAt,
    endedAt: new Date(),
    strict: n.options?.strict ?? false,
    readOnly: n.options?.readOnly ?? false,
    only: n.options?.only,
    certify: Boolean(n.options?.certify),
    expectFile: n.options?.certify ? undefined : n.options?.expectFile,
    checks: [],
    observations: [],
    suiteErrors: [`could not be tested: ${n.why}`],
    stopped: n.stopped,
    requests,
  });
  const written = writeReports(n.dir, run, { redact: n.redact });
  const leaks = scanForSecrets(written.files, n.options ?? {});
  for (const l of leaks) rmSync(l.file, { force: true });
}
