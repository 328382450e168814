import { startVitest, type Reporter } from 'vitest/node';
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
