import { BaseSequencer, createVitest, type Reporter, type TestSpecification } from 'vitest/node';


type CancelReason = Parameters<Awaited<ReturnType<typeof createVitest>>['cancelCurrentRun']>[0];
import { basename, join } from 'node:path';
import { codeRoot, projectRoot } from './paths.ts';
import type { TargetConfig } from '../config/target.ts';

export interface SuiteRunOptions {
  target: TargetConfig;
  reporters: Reporter[];
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
class ContractOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = FILE_ORDER.indexOf(basename(f.moduleId).replace(/\.test\.[jt]s$/, ''));
      return i === -1 ? FILE_ORDER.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Starts the suites through vitest's Node API. Suite files run one after another (the business
 * record is a singleton, and staging should not see a burst); checks inside a file may be concurrent.
 */
export async function startSuites(options: SuiteRunOptions): Promise<SuiteRun> {
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
      fileParallelism: false,
      sequence: { sequencer: ContractOrder },
      pool: 'threads',
      // One worker for all suite files: they run one after another anyway, and sharing loaded
      // modules (spec, ajv, undici) saves a second of start-up per file.
      isolate: false,
      testTimeout: perCheck,
      hookTimeout: perCheck,
      teardownTimeout: perCheck,
      provide: { target: options.target },
      // The compiled helpers (dist/, scripts/build.mjs) load natively: nothing to transform.
      server: { deps: { external: [/\/dist\/(helpers|reference)\//] } },
      passWithNoTests: true,
    },
    { logLevel: 'silent', cacheDir: join(projectRoot, 'node_modules', '.vite-conformance') },
  );
  // Vitest's logger exits the process on the first signal; the command handles signals itself
  // (restore and clean up first: helpers/command/conform.ts), so take vitest's handlers off again.
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.off(s, l);
  const done = vitest.start().then(() => undefined).finally(() => vitest.close());
  return { done, cancel: (reason) => vitest.cancelCurrentRun(reason) };
}

