import { commandEnvironment, HELP, parseOptions, plainHttpWarning, type RunOptions } from './options.ts';
import { EXIT, TargetError, UsageError } from './errors.ts';
import { suiteVersion } from './version.ts';
import { preflight } from './preflight.ts';
import { redactor } from '../http/redact.ts';
import type { TargetConfig } from '../config/target.ts';
import { startReference, type RunningReference } from '../../reference/server.ts';
import { conform, JOURNAL_FILE } from './conform.ts';
import type { WireEntry } from '../http/exchanges.ts';
import { sweep } from '../safety/sweep.ts';
import { newRunId } from '../safety/run-marker.ts';
import { loadSpec } from '../contract/spec.ts';
import { formatLeftOnTarget, recover } from '../safety/after-run-cleanup.ts';
import { Journal } from '../safety/journal.ts';
import { ApiClient } from '../http/client.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The scheduling-conformance command. Returns the exit code; never throws. */
export async function main(argv: string[], env?: Record<string, string | undefined>): Promise<number> {
  let reference: RunningReference | undefined;
  let redact = (text: string) => text;
  try {
    // Help and version answer whatever else is wrong (a bad .env, a bad base URL in the environment).
    if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(HELP), EXIT.conformant;
    if (argv.includes('--version') || argv.includes('-v')) return void process.stdout.write(`${suiteVersion}\n`), EXIT.conformant;
    const options = parseOptions(argv, env ?? commandEnvironment());
    redact = redactor(options);
    if (options.recover !== undefined && !options.baseUrl) throw new UsageError('--recover needs --base-url: the target the earlier run changed');
    if (!options.baseUrl) {
      reference = await startReference({ apiKey: options.apiKey, expiredKey: options.expiredKey });
      process.stdout.write(`Target: embedded reference implementation at ${reference.url}\n`);
    }
    const target = targetConfig(options, reference);
    redact = redactor(target);
    const warning = plainHttpWarning(target.baseUrl, options.allowHttp);
    if (warning) process.stderr.write(`scheduling-conformance: ${warning}\n`);
    const preflightRequests: WireEntry[] = [];
    await preflight(target, (e) => preflightRequests.push(e));
    if (options.sweep) return await sweepCommand(target, options.sweepYes, redact);
    if (options.recover !== undefined) return await recoverCommand(target, options.recover, options.cleanupTimeoutMs, redact);
    return await conform(options, target, redact, preflightRequests);
  } catch (e) {
    if (e instanceof UsageError || e instanceof TargetError) {
      process.stderr.write(`scheduling-conformance: ${redact(e.message)}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`scheduling-conformance: internal error: ${redact(e instanceof Error ? e.message : String(e)).split('\n')[0]}\n`);
    return EXIT.usage;
  } finally {
    await reference?.close();
  }
}

function targetConfig(options: RunOptions, reference: RunningReference | undefined): TargetConfig {
  const baseUrl = options.baseUrl ?? reference?.url;
  const apiKey = options.apiKey ?? reference?.apiKey;
  if (!baseUrl) throw new UsageError('no target: give --base-url or SCHEDULING_BASE_URL');
  if (!apiKey) throw new UsageError('no API key: set SCHEDULING_API_KEY (or --api-key) for the target');
  return {
    baseUrl,
    apiKey,
    expiredKey: options.expiredKey ?? reference?.expiredKey,
    vendor: options.vendor,
    strict: options.strict,
    readOnly: options.readOnly,
    timeoutMs: options.timeoutMs,
    rate: options.rate,
    runId: newRunId(),
  };
}

/**
 * `--sweep`: lists what earlier, crashed runs left (by the run marker); with --yes deletes it.
 * Exit 2 if some of it stays after deleting.
 */
async function sweepCommand(target: TargetConfig, yes: boolean, redact: (t: string) => string): Promise<number> {
  const result = await sweep(target, await loadSpec(), { yes });
  const lines = result.found.map((f) => `  ${f.path}: ${f.field} holds run ${f.runId}\n`).join('');
  if (!yes) {
    process.stdout.write(redact(`Sweep: ${result.found.length} record(s) left by earlier runs${result.found.length ? `; run again with --yes to delete them:\n${lines}` : '\n'}`));
    return EXIT.conformant;
  }
  process.stdout.write(redact(`Sweep: deleted ${result.deleted.length} record(s) left by earlier runs${result.found.length ? `:\n${lines}` : '\n'}`));
  process.stdout.write(redact(formatLeftOnTarget(result.leftOnTarget)));
  return result.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
}

/**
 * `--recover DIR`: finishes, from the run journal in DIR, what that run could not undo, verifies
 * it, and says what is left (exit 2 if anything is). Only against the origin the run's baseline
 * was taken from: another target's records are not the journal's to touch.
 */
async function recoverCommand(target: TargetConfig, dir: string, cleanupTimeoutMs: number, redact: (t: string) => string): Promise<number> {
  const file = join(dir, JOURNAL_FILE);
  if (!existsSync(file)) throw new UsageError(`--recover ${dir}: no ${JOURNAL_FILE} there (give the report directory of the run)`);
  const journal = new Journal(file);
  const run = journal.read().find((e) => e.kind === 'run');
  const origin = new URL(target.baseUrl).origin;
  if (!run) throw new UsageError(`--recover ${dir}: the journal does not say which target its run changed, so it is not undone on ${origin}`);
  if (run.origin !== origin) throw new UsageError(`--recover ${dir}: that run changed ${run.origin}, not ${origin}; nothing was done`);
  const client = new ApiClient({ ...target, runId: run.runId, journalFile: file });
  client.phase = 'recovery';
  try {
    const recovery = await recover(client, journal, { ...target, runId: run.runId }, { cleanupTimeoutMs });
    if (recovery.deleted.length) process.stdout.write(redact(`Deleted: ${recovery.deleted.join(', ')}\n`));
    if (recovery.restored.length) process.stdout.write(redact(`Restored: ${recovery.restored.join(', ')}\n`));
    process.stdout.write(redact(formatLeftOnTarget(recovery.leftOnTarget)));
    return recovery.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
  } finally {
    await client.close();
  }
}
