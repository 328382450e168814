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
    // it did, and the waits are what is left to fill: four forks, longest files first (LongestFirst).
    // More forks fill no more: on these two cores each fork's work costs more CPU beside the others
    // (2026-11-30: six forks 352–361 CPU-s and 184–188 s, four 297 and 170 s, the same code; with
    // the fault matrix's lanes cut, five 300–335 and 162–180 s, four 281–322 and 165–179 s, three
    // 305 and 199 s), and a busy machine has only CPU to give.
    maxWorkers: 4,
    maxConcurrency: 2,
    sequence: { sequencer: LongestFirst },
    // The compiled command (dist/) loads natively, as bin/ runs it: nothing to transform.
    server: { deps: { external: [/\/dist\/(helpers|reference)\//] } },
  },
});
