/**
 * The typed API: `import { runConformance, listChecks, verifyBundle } from 'scheduling-conformance'`.
 * It runs the same command as the terminal does, in the caller's process, and never exits it.
 */
import { main } from './command/cli.ts';
import type { Io } from './command/io.ts';
import type { Output } from './core/output.ts';
import { EXIT, UsageError } from './core/errors.ts';
import { parseOptions } from './command/options.ts';
import { declaredChecks } from './command/list.ts';
import type { DeclaredCheck } from './command/run-suites.ts';
import type { RunResult } from './results/run-result.ts';
import type { Product } from './config/product.ts';
import type { BundleVerification } from './results/verify-bundle.ts';

export type { RunResult, ReportedCheck, Verdict } from './results/run-result.ts';
export type { DeclaredCheck, BundleVerification, Product, Output };
export { verifyBundle } from './results/verify-bundle.ts';

export interface ConformanceOptions {
  /** The target's origin; without it the embedded reference implementation is started and tested. */
  baseUrl?: string;
  apiKey?: string;
  expiredKey?: string;
  /** A vendor configuration file (spec/vendor-config.schema.json). */
  config?: string;
  /** Where the reports go (default reports/<timestamp> under the working directory). */
  reportDir?: string;
  strict?: boolean;
  readOnly?: boolean;
  /** Only checks whose "<id> <title>" matches this regular expression. */
  only?: string;
  /** A known-deviations file (spec/expectations.schema.json). */
  expect?: string;
  /** Also write the certification bundle, naming who and what is certified. */
  certify?: Product;
  /** Also write the Markdown summary to this file. */
  summary?: string;
  timeoutMs?: number;
  runTimeoutSeconds?: number;
  rate?: number;
  /** --retry-budget: how long a check waits out a target that stopped answering (default 30). */
  retryBudgetSeconds?: number;
  /** --max-body-mib: the largest answer body read (default 5). */
  maxBodyMiB?: number;
  allowHttp?: boolean;
  /** Stops the run as Ctrl-C does: no new checks, the target restored; the result says "interrupted". */
  signal?: AbortSignal;
  /** Where the terminal report goes; by default nowhere. */
  output?: Output;
}

/** A run that proves nothing either way (exit code 2): bad options, a target that cannot be tested, a key in a report. */
export class ConformanceError extends Error {
  override name = 'ConformanceError';
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

/**
 * Runs the suite and returns the result model (result.json). A broken contract is a result
 * (`verdict: 'not-conformant'`, `exitCode: 1`), not an error; a run that proves nothing throws
 * a ConformanceError with exit code 2.
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<RunResult> {
  let result: RunResult | undefined;
  let errors = '';
  const io: Io = {
    stdout: options.output ?? { write: () => true },
    stderr: { write: (text: string) => ((errors += text), options.output?.write(text) ?? true) },
    onResult: (run) => (result = run),
    interrupts: options.signal ? abortInterrupts(options.signal) : () => () => undefined,
  };
  const code = await main(argvOf(options), {}, io);
  if (result && code === result.exitCode) return result;
  const message = errors.trim().split('\n').filter((l) => l.startsWith('scheduling-conformance: ')).pop() ?? errors.trim().split('\n').pop();
  throw new ConformanceError((message || `the run ended with exit code ${code}`).replace(/^scheduling-conformance: /, ''), code === EXIT.conformant ? EXIT.usage : code);
}

/** The checks a run with these options would hold a target to; nothing is sent anywhere. */
export async function listChecks(options: Pick<ConformanceOptions, 'config' | 'only' | 'readOnly'> = {}): Promise<DeclaredCheck[]> {
  try {
    return await declaredChecks(parseOptions(argvOf(options), {}));
  } catch (e) {
    throw e instanceof UsageError ? new ConformanceError(e.message, EXIT.usage) : e;
  }
}

function argvOf(o: ConformanceOptions): string[] {
  const flag = (name: string, value: string | number | boolean | undefined) =>
    value === undefined || value === false ? [] : value === true ? [`--${name}`] : [`--${name}`, String(value)];
  return [
    ...flag('base-url', o.baseUrl), ...flag('api-key', o.apiKey), ...flag('expired-key', o.expiredKey),
    ...flag('config', o.config), ...flag('report-dir', o.reportDir), ...flag('strict', o.strict), ...flag('read-only', o.readOnly),
    ...flag('only', o.only), ...flag('expect', o.expect), ...flag('summary', o.summary), ...flag('timeout', o.timeoutMs),
    ...flag('run-timeout', o.runTimeoutSeconds), ...flag('rate', o.rate), ...flag('retry-budget', o.retryBudgetSeconds), ...flag('max-body-mib', o.maxBodyMiB), ...flag('allow-http', o.allowHttp),
    ...(o.certify
      ? ['--certify', ...flag('vendor', o.certify.vendor), ...flag('product', o.certify.product), ...flag('product-version', o.certify.version), ...flag('contact', o.certify.contact)]
      : []),
  ];
}

/** The caller's AbortSignal in place of SIGINT: the first abort stops the run; the process is never exited. */
function abortInterrupts(signal: AbortSignal): NonNullable<Io['interrupts']> {
  return (first) => {
    const onAbort = () => first('abort');
    if (signal.aborted) queueMicrotask(onAbort);
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  };
}
