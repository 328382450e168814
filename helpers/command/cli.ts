import { randomBytes } from 'node:crypto';
import { commandEnvironment, HELP, parseOptions, plainHttpWarning, type RunOptions } from './options.ts';
import { EXIT, TargetError, UsageError } from './errors.ts';
import { suiteVersion } from './version.ts';
import { redactor } from '../http/redact.ts';
import type { TargetConfig } from '../config/target.ts';
import type { RunningReference } from '../../reference/server.ts';
import { processIo, type Io } from './io.ts';

/**
 * The scheduling-conformance command. Returns the exit code; never throws. Writes only to `io`
 * and reads no process state, so tests can run it in process (the fault matrix does).
 */
export async function main(argv: string[], env?: Record<string, string | undefined>, io: Io = processIo): Promise<number> {
  let reference: RunningReference | undefined;
  let redact = (text: string) => text;
  try {
    // Help and version answer whatever else is wrong (a bad .env, a bad base URL in the environment).
    if (argv.includes('--help') || argv.includes('-h')) return void io.stdout.write(HELP), EXIT.conformant;
    if (argv.includes('--version') || argv.includes('-v')) return void io.stdout.write(`${suiteVersion}\n`), EXIT.conformant;
    const options = parseOptions(argv, env ?? commandEnvironment());
    redact = redactor(options);
    if (!options.baseUrl) {
      // What a run needs is loaded when it is needed: --help, --version and usage errors start fast.
      const { startReference } = await import('../../reference/server.ts');
      reference = await startReference({ apiKey: options.apiKey, expiredKey: options.expiredKey });
      io.stdout.write(`Target: embedded reference implementation at ${reference.url}\n`);
    }
    const target = targetConfig(options, reference);
    redact = redactor(target);
    const warning = plainHttpWarning(target.baseUrl, options.allowHttp);
    if (warning) io.stderr.write(`scheduling-conformance: ${warning}\n`);
    const { preflight } = await import('./preflight.ts');
    await preflight(target);
    if (options.sweep) return await sweepCommand(target, redact, io);
    const { conform } = await import('./conform.ts');
    return await conform(options, target, redact, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof TargetError) {
      io.stderr.write(`scheduling-conformance: ${redact(e.message)}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`scheduling-conformance: internal error: ${redact(e instanceof Error ? e.message : String(e)).split('\n')[0]}\n`);
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
    // The run marker: helpers/safety/sweep.ts recognises this format.
    runId: `scr-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`,
  };
}

/** `--sweep`: deletes what earlier, crashed runs left (by the run marker); exit 2 if some of it stays. */
async function sweepCommand(target: TargetConfig, redact: (t: string) => string, io: Io): Promise<number> {
  const [{ sweep }, { loadSpec }, { formatLeftOnTarget }] = await Promise.all([
    import('../safety/sweep.ts'),
    import('../contract/spec.ts'),
    import('../safety/after-run-cleanup.ts'),
  ]);
  const result = await sweep(target, await loadSpec());
  io.stdout.write(redact(`Sweep: deleted ${result.deleted.length} record(s) left by earlier runs${result.deleted.length ? `: ${result.deleted.join(', ')}` : ''}\n`));
  io.stdout.write(redact(formatLeftOnTarget(result.leftOnTarget)));
  return result.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
}
