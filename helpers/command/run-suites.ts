import { BaseSequencer, createVitest, type Reporter, type TestSpecification } from 'vitest/node';


type CancelReason = Parameters<Awaited<ReturnType<typeof createVitest>>['cancelCurrentRun']>[0];
import { accessSync, constants, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { codeRoot, projectRoot } from '../core/paths.ts';
import type { TargetConfig } from '../config/target.ts';

export interface SuiteRunOptions {
  target: TargetConfig;
  reporters: Reporter[];
  /** Suite files run at once after the operations pass (--concurrency); 1: one after another. */
  concurrency?: number;
}

export interface SuiteRun {
  /** Settles when the suites have ended, completed or cancelled. */
  done: Promise<void>;
  /** Starts no further checks; running ones finish (each bounded by the request timeout). */
  cancel(reason: CancelReason): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Suite files run in the contract's order, always the same: a smoke pass over every operation,
 * then the business, customers, and last the team members (whose create/delete probes could
 * change data on a broken target). Vitest would otherwise order files by past durations.
 */
const FILE_ORDER = ['operations', 'business', 'customers', 'team-members'];
/** A suite file's place in that order; the reports list checks so, however the files interleaved. */
export function suiteRank(resource: string): number {
  const i = FILE_ORDER.indexOf(resource);
  return i === -1 ? FILE_ORDER.length : i;
}
const fileRank = (moduleId: string) => suiteRank(resourceOf(moduleId));
class ContractOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => fileRank(a.moduleId) - fileRank(b.moduleId) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Starts the suites through vitest's Node API. The operations pass runs first and alone (it
 * touches every resource, the business singleton too); then the resource files, which touch
 * only their own records, run up to `concurrency` at once, each in its own worker, the --rate
 * shared out between them. With concurrency 1 all files run one after another in one worker.
 * Checks inside a file may be concurrent.
 */
export async function startSuites(options: SuiteRunOptions & { stillWanted?: () => boolean }): Promise<SuiteRun> {
  const vitest = await suiteVitest(options);
  // A stop (signal, run timeout) while vitest was being created: vitest forgets a cancel that
  // comes before its run has begun, so the run is not begun at all.
  if (options.stillWanted && !options.stillWanted()) return { done: vitest.close(), cancel: async () => {} };
  const concurrency = options.concurrency ?? 1;
  let cancelled = false;
  const run = async () => {
    if (concurrency === 1) return void (await vitest.start());
    const files = await new ContractOrder(vitest).sort(await vitest.globTestSpecifications());
    const first = files.filter((f) => resourceOf(f.moduleId) === FILE_ORDER[0]);
    const rest = files.filter((f) => !first.includes(f));
    await vitest.runTestSpecifications(first, false);
    if (cancelled || (options.stillWanted && !options.stillWanted()) || rest.length === 0) return;
    const lanes = Math.min(concurrency, rest.length);
    // Each worker spaces its own requests: together they stay within --rate.
    if (options.target.rate) vitest.provide('target', { ...options.target, rate: options.target.rate / lanes });
    await vitest.runTestSpecifications(rest, false);
  };
  const done = run().finally(() => vitest.close());
  return {
    done,
    cancel: (reason) => {
      cancelled = true;
      return vitest.cancelCurrentRun(reason);
    },
  };
}

/** The suites' vitest instance, with the command's signal handling (not vitest's) in place. */
async function suiteVitest(options: SuiteRunOptions) {
  const perCheck = Math.max(60_000, options.target.timeoutMs * 8);
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
      fileParallelism: (options.concurrency ?? 1) > 1,
      maxWorkers: options.concurrency ?? 1,
      sequence: { sequencer: ContractOrder },
      pool: 'threads',
      // A worker runs the files it is given one after another, sharing loaded modules (spec, ajv,
      // undici): that saves a second of start-up per file.
      isolate: false,
      testTimeout: perCheck,
      hookTimeout: perCheck,
      teardownTimeout: perCheck,
      provide: { target: options.target },
      // The compiled helpers (dist/, scripts/build.mjs) load natively: nothing to transform.
      server: { deps: { external: [/\/dist\/(helpers|reference)\//] } },
      experimental: suiteLoading(),
      passWithNoTests: true,
    },
    { logLevel: 'silent', cacheDir: join(projectRoot, 'node_modules', '.vite-conformance') },
  );
  // Vitest's logger exits the process on the first signal; the command handles signals itself
  // (restore and clean up first: helpers/command/conform.ts), so take vitest's handlers off again.
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.off(s, l);
  return vitest;
}

/**
 * How the suite worker loads the suite files. Through vite's module runner with vitest's module
 * cache on disk: a suite file is transformed once, and later runs read the result (keyed by the
 * file's content). The native loader instead registers Node 20's module hooks, which start a
 * hooks thread in every run's worker: ~15 % more CPU a run. Without a writable cache folder
 * (an installed copy in a read-only place) the compiled suites load natively; the sources
 * (tsx, where dist/ cannot be built) need vite's transform.
 */
export function suiteLoading(cacheFolder = join(projectRoot, 'node_modules', '.vite-conformance', 'modules')) {
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

const resourceOf = (moduleId: string) => basename(moduleId).replace(/\.test\.[jt]s$/, '');

