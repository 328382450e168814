import { BaseSequencer, startVitest, type Reporter, type TestSpecification } from 'vitest/node';
import { basename } from 'node:path';
import { join } from 'node:path';
import { projectRoot } from './paths.ts';
import type { TargetConfig } from './target.ts';

export interface SuiteRunOptions {
  target: TargetConfig;
  reporters: Reporter[];
  /** Only checks whose name matches (vitest's test name pattern). */
  testNamePattern?: string;
}

/**
 * Suite files run in the contract's order, always the same: a smoke pass over every operation,
 * then the business, customers, and last the team members (whose create/delete probes could
 * change data on a broken target). Vitest would otherwise order files by past durations.
 */
const FILE_ORDER = ['operations', 'business', 'customers', 'team-members'];
class ContractOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = FILE_ORDER.indexOf(basename(f.moduleId).replace(/\.test\.ts$/, ''));
      return i === -1 ? FILE_ORDER.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Runs the suites through vitest's Node API. Suite files run one after another (the business
 * record is a singleton, and staging should not see a burst); checks inside a file may be concurrent.
 */
export async function runSuites(options: SuiteRunOptions): Promise<void> {
  const perCheck = Math.max(60_000, options.target.timeoutMs * 8);
  const vitest = await startVitest(
    'test',
    [],
    {
      config: false,
      root: projectRoot,
      dir: join(projectRoot, 'suites'),
      include: ['**/*.test.ts'],
      watch: false,
      run: true,
      reporters: options.reporters,
      fileParallelism: false,
      sequence: { sequencer: ContractOrder },
      pool: 'threads',
      testTimeout: perCheck,
      hookTimeout: perCheck,
      teardownTimeout: perCheck,
      testNamePattern: options.testNamePattern,
      provide: { target: options.target },
      passWithNoTests: true,
    },
    { logLevel: 'silent', cacheDir: join(projectRoot, 'node_modules', '.vite-conformance') },
  );
  await vitest.close();
}
