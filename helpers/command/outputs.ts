import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { BUNDLE_FILES, CERTIFICATION_DIR, JOURNAL_FILE, REPORT_FILES, REQUEST_LOG_FILE } from '../results/report-files.ts';
import { READINGS_DIR } from '../records/print-buckets.ts';
import { goingOn, Journal } from '../safety/journal.ts';
import type { RunOptions } from './options.ts';

const why = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/**
 * Every place a run writes, checked before its first request: a run that cannot write its
 * verdict must not change the target first. The report directory is made, and what an earlier
 * run left there as its verdict is removed, so that nothing in it is passed off as this run's.
 */
export function prepareOutputs(options: RunOptions): void {
  prepareReportDir(options.reportDir);
  if (options.summaryFile) writableFile(options.summaryFile, '--summary');
  if (options.stepSummaryFile) writableFile(options.stepSummaryFile, 'GITHUB_STEP_SUMMARY');
}

/**
 * Makes the report directory and clears an earlier run's verdict from it (its journal stays:
 * Journal.start keeps an unfinished one aside and prunes a finished one). `keep`: files of this run already there.
 */
export function prepareReportDir(dir: string, keep: string[] = []): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--report-dir ${dir}: cannot be created or written (${why(e)}); nothing was sent to the target`);
  }
  refuseIfInUse(dir);
  // Only the files a run writes: a report directory may hold the user's own files too.
  for (const file of [...Object.values(REPORT_FILES), REQUEST_LOG_FILE]) if (!keep.includes(file)) rmSync(join(dir, file), { force: true });
  // An earlier run's readings, left by one cut off harder than its own end could clean.
  rmSync(join(dir, READINGS_DIR), { recursive: true, force: true });
  const bundle = join(dir, CERTIFICATION_DIR);
  for (const file of [...Object.values(REPORT_FILES), ...Object.values(BUNDLE_FILES)]) rmSync(join(bundle, file), { force: true });
  if (existsSync(bundle) && statSync(bundle).isDirectory() && readdirSync(bundle).length === 0) rmdirSync(bundle);
}

/**
 * A report directory a run still going on this machine writes to (its journal unfinished, its
 * process alive) is not another run's: clearing it would take that run's journal, request log and
 * readings from under it, and its clean-up with them.
 */
function refuseIfInUse(dir: string): void {
  const run = goingOn(new Journal(join(dir, JOURNAL_FILE)).read());
  if (!run || run.pid === process.pid) return;
  throw new UsageError(`--report-dir ${dir}: run ${run.runId} (process ${run.pid} on this machine) is writing there; give each run a report directory of its own; nothing was sent to the target`);
}

/** A file the run writes at its end: writable where it is, or creatable in a folder that exists. */
function writableFile(file: string, what: string): void {
  const fail = (problem: string): never => {
    throw new UsageError(`${what} ${file}: ${problem}; nothing was sent to the target`);
  };
  if (existsSync(file)) {
    if (statSync(file).isDirectory()) fail('is a folder, not a file');
    try {
      accessSync(file, constants.W_OK);
    } catch (e) {
      fail(`cannot be written (${why(e)})`);
    }
    return;
  }
  const folder = dirname(resolve(file));
  if (!existsSync(folder)) fail(`its folder ${folder} does not exist`);
  if (!statSync(folder).isDirectory()) fail(`${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch (e) {
    fail(`cannot be created in ${folder} (${why(e)})`);
  }
}
