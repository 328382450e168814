/**
 * The typed API: `import { runConformance, listChecks, verifyBundle } from 'scheduling-conformance'`.
 * It runs the same command as the terminal does, in the caller's process, and never exits it.
 */
import { fallbackOf, run } from './command/cli.ts';
import type { Io } from './command/io.ts';
import type { Output } from './core/output.ts';
import { EXIT, UsageError } from './core/errors.ts';
import { givenByApiName, resolveOptions } from './command/options.ts';
import type { ApiOptions, Given } from './command/option-table.ts';
import { declaredChecks } from './command/list.ts';
import type { DeclaredCheck } from './registries/index.ts';
import type { RunResult } from './results/run-result.ts';
import type { Product } from './config/product.ts';
import type { BundleVerification } from './results/verify-bundle.ts';

export type { RunResult, ReportedCheck, Verdict } from './results/run-result.ts';
export type { DeclaredCheck, BundleVerification, Product, Output };
export { verifyBundle } from './results/verify-bundle.ts';

/**
 * The command's options under the typed API's names in the option table (each row's `api`, in the
 * flag's unit: `runTimeoutSeconds` is --run-timeout), each meaning what `--help` says of its flag.
 * No option is taken from the environment or a `.env` file: give the keys here.
 */
export type ConformanceOptions = ApiOptions & {
  /** Also write the certification bundle, naming who and what is certified. */
  certify?: Product;
  /** Stops the run as Ctrl-C does: no new checks, the target restored; the result says "interrupted". */
  signal?: AbortSignal;
  /** Where the terminal report goes; by default nowhere. */
  output?: Output;
};

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
  const output = options.output ?? { write: () => true };
  const io: Io = {
    stdout: output,
    stderr: output,
    onResult: (run) => (result = run),
    interrupts: options.signal ? abortInterrupts(options.signal) : () => () => undefined,
  };
  const given = givenOf(options);
  const ended = await run(() => resolveOptions(given, {}), io, fallbackOf(given, {}));
  if (result && ended.code === result.exitCode) return result;
  throw new ConformanceError(ended.line ?? `the run ended with exit code ${ended.code}`, ended.code === EXIT.conformant ? EXIT.usage : ended.code);
}

/** The checks a run with these options would hold a target to; nothing is sent anywhere. */
export async function listChecks(options: Pick<ConformanceOptions, 'config' | 'only' | 'readOnly'> = {}): Promise<DeclaredCheck[]> {
  try {
    return await declaredChecks(resolveOptions(givenOf(options), {}));
  } catch (e) {
    throw e instanceof UsageError ? new ConformanceError(e.message, EXIT.usage) : e;
  }
}

/** The options as the command's flags hold them, --certify's product as its four flags. */
function givenOf(o: ConformanceOptions): Given {
  const given = givenByApiName(o);
  if (!o.certify) return given;
  return { ...given, certify: true, vendor: o.certify.vendor, product: o.certify.product, 'product-version': o.certify.version, contact: o.certify.contact };
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
