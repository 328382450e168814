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
  /** Whether the thread, idle after the run, is kept for the next run in this process (Io.keepWorker). */
  keep?: boolean;
}

/**
 * What vitest 4.1 starts its thread pool's workers with: its entry point, its flags (resolveOptions
 * passes on this process's profiling flags; resolveConditions: vite's, by NODE_ENV) and the
 * environment (this one, vitest's variables, vite's import.meta.env; vite sets an unset NODE_ENV
 * to "development"). Vitest on Windows adds upper-case copies of the variables: never adopted there.
 */
function asVitestWould(): { entry: string; execArgv: string[]; env: Record<string, string | undefined> } {
  const vitest = dirname(createRequire(import.meta.url).resolve('vitest/package.json'));
  const production = process.env.NODE_ENV === 'production';
  const profiling = process.execArgv.filter((a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'));
  return {
    entry: join(vitest, 'dist', 'workers', 'threads.js'),
    execArgv: [...profiling, '--experimental-import-meta-resolve', '--require', join(vitest, 'suppress-warnings.cjs'), '--conditions', 'node', '--conditions', production ? 'production' : 'development'],
    env: {
      ...process.env,
      ...{ TEST: 'true', VITEST: 'true', NODE_ENV: process.env.NODE_ENV || 'development', VITEST_MODE: 'RUN', FORCE_TTY: isatty(1) ? 'true' : '' },
      ...{ BASE_URL: '/', MODE: 'test', DEV: production ? '' : '1', PROD: production ? '1' : '' },
    },
  };
}

/** None started: vitest starts its own (vitest not where this module resolves it, a thread refused). */
const NONE: EarlyWorker = { adopt: () => undefined, discard: async () => {} };

/**
 * Threads an earlier run in this process left idle (run-suites.ts keeps them), with what each was
 * started with: a run that asks for a thread started alike takes one instead of starting its own
 * (~0.5 s of CPU: Node and vitest's runtime in the thread, the suites' modules). Several runs in
 * one process are the project's own tests, the bench, and the API called run after run.
 */
const kept: { thread: Worker; started: ReturnType<typeof asVitestWould> }[] = [];

/** Keeps an idle thread for the next run started alike. */
export function keepForNextRun(thread: Worker, entry: string, execArgv: readonly string[], env: Record<string, string | undefined>): void {
  thread.unref();
  kept.push({ thread, started: { entry, execArgv: [...execArgv], env } });
}

/** Once a thread: one that fails ends (its error is its exit's), and an ended one is kept no more. */
function watch(thread: Worker): Worker {
  if (watched.has(thread)) return thread;
  watched.add(thread);
  thread.on('error', () => {}).once('exit', () => {
    const at = kept.findIndex((k) => k.thread === thread);
    if (at >= 0) kept.splice(at, 1);
  });
  return thread;
}
const watched = new WeakSet<Worker>();

/** Stops the threads kept for a next run: the end of a process that ran several. */
export async function releaseKeptWorkers(): Promise<void> {
  await Promise.all(kept.splice(0).map((k) => k.thread.terminate()));
}

export function startEarlyWorker(keep = false): EarlyWorker {
  let wanted: ReturnType<typeof asVitestWould>;
  let thread: Worker | undefined;
  try {
    wanted = asVitestWould();
    const idle = kept.findIndex((k) => isDeepStrictEqual(k.started, wanted));
    if (keep && idle >= 0) return adoptable(kept.splice(idle, 1)[0].thread, wanted, keep);
    thread = watch(new Worker(wanted.entry, { env: wanted.env, execArgv: wanted.execArgv, stdout: true, stderr: true }));
  } catch {
    return NONE;
  }
  // Until vitest takes it, it must not keep the process alive (a run that ends at its preflight).
  thread.unref();
  return adoptable(thread, wanted, keep);
}

function adoptable(started: Worker, wanted: ReturnType<typeof asVitestWould>, keep: boolean): EarlyWorker {
  let thread: Worker | undefined = started;
  const early: EarlyWorker = {
    keep,
    adopt(entry, execArgv, env) {
      // A thread that failed or ended before vitest asked (its threadId is then -1) is not given: vitest starts its own.
      const same = thread !== undefined && thread.threadId >= 0 && entry === wanted.entry && isDeepStrictEqual([...execArgv], wanted.execArgv) && isDeepStrictEqual(env, wanted.env);
      // Vitest asks once a run: a thread it does not take would only hold memory until the end.
      if (!thread || !same) return void early.discard();
      // Still unref'd: the pool refs it once vitest runs in it (run-suites.ts).
      const adopted = thread;
      thread = undefined;
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
