import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './support/longest-first.ts';

// The project's own tests (not the conformance suites, which the command runs through vitest's API).
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/own-tmp.ts', 'test/build-dist.ts', 'test/reports-untouched.ts'],
    // The packed tarball and the Action: minutes of packing and installing, run by .ci/run (npm run test:package).
    exclude: ['test/package/**', ...configDefaults.exclude],
    testTimeout: 180_000,
    // A beforeAll may run the whole command (reports, coverage): the same room as a test.
    hookTimeout: 180_000,
    pool: 'forks',
    // Test files in one fork share loaded modules (the reference, test support): each file
    // imported them anew before, ~14 s of CPU a run of npm test.
    isolate: false,
    // The fault and variation matrices run the command in process, several files at once, each
    // with a few runs in flight: a run waits on its target and its suite worker about half the time,
    // and many of the other files wait on purpose (outages, timeouts, rate limits). Since runs in a
    // fork take the suites' worker the last run left idle (Io.keepWorker), a run costs half the CPU
    // it did, and the waits are what is left to fill: six forks, longest files first (LongestFirst),
    // 169 s against 195 s with four (the cores 180 % busy against 153 %, the same CPU).
    maxWorkers: 6,
    maxConcurrency: 2,
    sequence: { sequencer: LongestFirst },
    // The compiled command (dist/) loads natively, as bin/ runs it: nothing to transform.
    server: { deps: { external: [/\/dist\/(helpers|reference)\//] } },
  },
});
