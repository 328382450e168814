import { BaseSequencer, createVitest, ThreadsPoolWorker, type PoolOptions, type PoolRunnerInitializer, type Reporter, type TestSpecification } from 'vitest/node';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { cacheRoot, codeRoot, projectRoot } from '../core/paths.ts';
import { CHECK_TIME_SLACK_MS, checkTimeMs } from '../core/limits.ts';
import type { TargetConfig } from '../config/target.ts';
import { keepForNextRun, type EarlyWorker } from './early-worker.ts';

type CancelReason = Parameters<Awaited<ReturnType<typeof createVitest>>['cancelCurrentRun']>[0];

export interface SuiteRunOptions {
  target: TargetConfig;
  reporters: Reporter[];
  /** Lanes run at once after the operations pass (--concurrency); 1: one after another. */
  concurrency?: number;
  /** The worker thread started early (early-worker.ts), taken over if it is started as vitest would. */
  earlyWorker?: EarlyWorker;
}

export interface SuiteRun {
  /** Settles when the suites have ended, completed or cancelled. */
  done: Promise<void>;
  /** Starts no further checks; running ones finish (each bounded by the request timeout). */
  cancel(reason: CancelReason): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The operations pass first and alone (it touches every resource, the business singleton too), then the resources' lanes, then exploration. Vitest would otherwise order files by past durations. */
const FILE_ORDER = ['operations', 'resources', 'explore'];
const fileRank = (moduleId: string) => FILE_ORDER.indexOf(basename(moduleId).replace(/\.test\.[jt]s$/, ''));
class ContractOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => fileRank(a.moduleId) - fileRank(b.moduleId) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Starts the suites through vitest's Node API, in one worker: the suite files one after
 * another, the lanes of each (its resources, helpers/vitest/check.ts) up to `concurrency` at
 * once. A second worker would cost its start-up and memory (a V8 isolate) and save nothing: the
 * lanes wait on the target, not on this process. Checks inside a lane may be concurrent.
 */
export async function startSuites(options: SuiteRunOptions & { stillWanted?: () => boolean }): Promise<SuiteRun> {
  const vitest = await suiteVitest(options);
  // A stop (signal, run timeout) while vitest was being created: vitest forgets a cancel that
  // comes before its run has begun, so the run is not begun at all.
  if (options.stillWanted && !options.stillWanted()) return { done: vitest.close(), cancel: async () => {} };
  const done = vitest.start().then(() => undefined).finally(() => vitest.close());
  return { done, cancel: (reason) => vitest.cancelCurrentRun(reason) };
}

/** Vitest's bound on the checks at once in the worker: the lanes and groups bound their own. */
const UNBOUNDED = 1000;

/** The suites' vitest instance, with the command's signal handling (not vitest's) in place. */
async function suiteVitest(options: SuiteRunOptions) {
  const lanes = options.concurrency ?? 1;
  // The checks keep their own time (helpers/vitest/check.ts), which a long list read pushes on
  // (core/check-clock.ts): vitest's is only the backstop, up to the run's end; a hook (a lane's
  // frame read) reads lists whole too.
  const perCheck = Math.max(checkTimeMs(options.target), (options.target.stopChecksAt ?? 0) - Date.now()) + CHECK_TIME_SLACK_MS;
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  process.env.VITEST = 'true';
  process.env.TEST = 'true';
  const vitest = await createVitest(
    'test',
    {
      config: false,
      root: projectRoot,
      dir: join(codeRoot, 'suites'),
      include: ['**/*.test.{ts,js}'],
      watch: false,
      run: true,
      reporters: options.reporters,
      fileParallelism: false,
      maxWorkers: 1,
      // Each concurrent group takes its own turns (helpers/vitest/runner.ts), whatever runs beside it.
      runner: join(codeRoot, 'helpers', 'vitest', `runner.${basename(codeRoot) === 'dist' ? 'js' : 'ts'}`),
      maxConcurrency: UNBOUNDED,
      sequence: { sequencer: ContractOrder },
      pool: options.earlyWorker ? threadsStartedEarly(options.earlyWorker) : 'threads',
      // The worker runs the files one after another, sharing loaded modules (spec, ajv, undici):
      // that saves a second of start-up per file.
      isolate: false,
      testTimeout: perCheck,
      hookTimeout: perCheck,
      teardownTimeout: perCheck,
      provide: { target: options.target, lanes },
      // The compiled helpers (dist/, scripts/build.mjs) load natively: nothing to transform.
      server: { deps: { external: [/\/dist\/(helpers|reference)\//] } },
      experimental: suiteLoading(),
      passWithNoTests: true,
    },
    { logLevel: 'silent', cacheDir: cacheRoot },
  );
  // Vitest's logger exits the process on the first signal; the command handles signals itself
  // (restore and clean up first: helpers/command/conform.ts), so take vitest's handlers off again.
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.off(s, l);
  return vitest;
}

const STARTED_EARLY = 'threads-started-early';

/** What vitest 4.1's ThreadsPoolWorker keeps private: the thread, and the streams it pipes the thread's output to. */
type Threaded = { _thread?: Worker; stdout: NodeJS.WritableStream & { setMaxListeners(n: number): unknown; getMaxListeners(): number }; stderr: Threaded['stdout'] };

/** Vitest's thread pool worker, whose thread is the one started early if vitest asks for one started alike. */
class ThreadStartedEarly extends ThreadsPoolWorker {
  override readonly name = STARTED_EARLY;
  private readonly early: Worker | undefined;
  private readonly options: PoolOptions;
  private readonly keep: boolean;
  /** Whether the thread is running suite files: a request sent, its testfileFinished not yet back. */
  private busy = false;
  /** Whether vitest asked the thread to stop after its run (not a cancel that forces it). */
  private stopAsked = false;
  private readonly heard = (m: { type?: string; __vitest_worker_response__?: boolean }) => {
    if (m?.__vitest_worker_response__ && m.type === 'testfileFinished') this.busy = false;
  };
  private readonly listeners: [string, (arg: unknown) => void][] = [];

  constructor(options: PoolOptions, early: EarlyWorker) {
    super(options);
    this.options = options;
    this.keep = early.keep === true;
    this.early = early.adopt(this.entrypoint, options.execArgv, options.env);
    // start() starts a thread only if it has none (vitest 4.1's ThreadsPoolWorker).
    (this as unknown as Threaded)._thread = this.early;
  }

  override async start(): Promise<void> {
    await super.start();
    (this as unknown as Threaded)._thread?.on('message', this.heard);
    if (!this.early) return;
    // A vitest that started a thread of its own all the same: the early one would keep the process alive, idle.
    if ((this as unknown as Threaded)._thread !== this.early) await this.early.terminate();
    else this.early.ref();
  }

  override on(event: string, callback: (arg: unknown) => void): void {
    this.listeners.push([event, callback]);
    super.on(event, callback);
  }

  override send(message: { __vitest_worker_request__?: boolean; type?: string }): void {
    if (message?.__vitest_worker_request__ && (message.type === 'run' || message.type === 'collect')) this.busy = true;
    if (message?.__vitest_worker_request__ && message.type === 'stop' && this.keep && !this.busy && runsServed((this as unknown as Threaded)._thread) < MAX_RUNS_PER_THREAD) {
      // Kept for the next run: the thread's teardown is skipped (a node environment has none of its
      // own), and vitest hears that it stopped.
      this.stopAsked = true;
      setImmediate(() => { for (const [event, callback] of this.listeners) if (event === 'message') callback({ type: 'stopped', __vitest_worker_response__: true }); });
      return;
    }
    super.send(message as never);
  }

  override async stop(): Promise<void> {
    const thread = (this as unknown as Threaded)._thread;
    if (!thread || !this.stopAsked || this.busy) return super.stop();
    for (const [event, callback] of this.listeners) thread.off(event, callback);
    thread.off('message', this.heard);
    // As vitest's stop() leaves them, but for the thread, which lives on.
    const own = this as unknown as Threaded;
    thread.stdout.unpipe(own.stdout);
    own.stdout.setMaxListeners(own.stdout.getMaxListeners() - 1);
    thread.stderr.unpipe(own.stderr);
    own.stderr.setMaxListeners(own.stderr.getMaxListeners() - 1);
    (this as unknown as Threaded)._thread = undefined;
    served.set(thread, runsServed(thread) + 1);
    keepForNextRun(thread, this.entrypoint, this.options.execArgv, this.options.env);
  }
}

/**
 * A thread serves this many runs at most, then is stopped: each run leaves a little behind in it
 * (vitest's runtime adds a listener at each start), and memory a long series of runs would grow.
 */
const MAX_RUNS_PER_THREAD = 25;
const served = new WeakMap<Worker, number>();
const runsServed = (thread: Worker | undefined) => (thread && served.get(thread)) ?? 0;

const threadsStartedEarly = (early: EarlyWorker): PoolRunnerInitializer => ({ name: STARTED_EARLY, createPoolWorker: (options) => new ThreadStartedEarly(options, early) });

/**
 * How the suite worker loads the suite files. Through vite's module runner with vitest's module
 * cache on disk: a suite file is transformed once, and later runs read the result (keyed by the
 * file's content). The native loader instead registers Node 20's module hooks, which start a
 * hooks thread in every run's worker: ~15 % more CPU a run. Without a writable cache folder
 * (an installed copy in a read-only place) the compiled suites load natively; the sources
 * (tsx, where dist/ cannot be built) need vite's transform.
 */
export function suiteLoading(cacheFolder = join(cacheRoot, 'modules')) {
  const cache = writableFolder(cacheFolder);
  if (cache) return { fsModuleCache: true, fsModuleCachePath: cache };
  return basename(codeRoot) === 'dist' ? { viteModuleRunner: false, nodeLoader: false } : {};
}

function writableFolder(path: string): string | undefined {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
    return path;
  } catch {
    return undefined;
  }
}

