import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isatty } from 'node:tty';
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';

/**
 * The suites' worker thread, started before vitest's Node API has loaded. Its own start-up (Node
 * and vitest's runtime in the thread, ~0.2 s) then runs beside that load (~0.4 s of this thread's
 * time) instead of after it. Vitest takes it over only if it asks for a worker exactly like it
 * (entry point, flags, environment; see adopt), else starts its own; one never taken over is stopped.
 */
export interface EarlyWorker {
  /** The thread, if vitest asks for one started exactly like it; given once. Any other ask stops it. */
  adopt(entry: string, execArgv: readonly string[], env: Record<string, string | undefined>): Worker | undefined;
  /** Stops the thread unless it was adopted: a run that ends before its suites. */
  discard(): Promise<void>;
}

/**
 * What vitest 4.1 starts its thread pool's workers with, where NODE_ENV is not "production" (vite
 * sets an unset one to "development"): its entry point, its flags (resolveOptions,
 * resolveConditions) and the environment (this one, vitest's variables and vite's import.meta.env).
 */
function asVitestWould(): { entry: string; execArgv: string[]; env: Record<string, string | undefined> } {
  const vitest = dirname(createRequire(import.meta.url).resolve('vitest/package.json'));
  return {
    entry: join(vitest, 'dist', 'workers', 'threads.js'),
    execArgv: ['--experimental-import-meta-resolve', '--require', join(vitest, 'suppress-warnings.cjs'), '--conditions', 'node', '--conditions', 'development'],
    env: {
      ...process.env,
      ...{ TEST: 'true', VITEST: 'true', NODE_ENV: process.env.NODE_ENV || 'development', VITEST_MODE: 'RUN', FORCE_TTY: isatty(1) ? 'true' : '' },
      ...{ BASE_URL: '/', MODE: 'test', DEV: '1', PROD: '' },
    },
  };
}

/** None started: vitest starts its own (vitest not where this module resolves it, a thread refused). */
const NONE: EarlyWorker = { adopt: () => undefined, discard: async () => {} };

export function startEarlyWorker(): EarlyWorker {
  let wanted: ReturnType<typeof asVitestWould>;
  let thread: Worker | undefined;
  try {
    wanted = asVitestWould();
    thread = new Worker(wanted.entry, { env: wanted.env, execArgv: wanted.execArgv, stdout: true, stderr: true });
  } catch {
    return NONE;
  }
  // Until vitest takes it, it must not keep the process alive (a run that ends at its preflight).
  thread.unref();
  // A thread that failed or ended before vitest asked is not given: vitest starts its own.
  let alive = true;
  thread.on('error', () => (alive = false)).once('exit', () => (alive = false));
  const early: EarlyWorker = {
    adopt(entry, execArgv, env) {
      const same = alive && entry === wanted.entry && isDeepStrictEqual([...execArgv], wanted.execArgv) && isDeepStrictEqual(env, wanted.env);
      // Vitest asks once a run: a thread it does not take would only hold memory until the end.
      if (!thread || !same) return void early.discard();
      const adopted = thread;
      thread = undefined;
      adopted.ref();
      return adopted;
    },
    async discard() {
      const left = thread;
      thread = undefined;
      await left?.terminate();
    },
  };
  return early;
}
