import { configDefaults, defineConfig } from 'vitest/config';

// The project's own tests (not the conformance suites, which the command runs through vitest's API).
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    // The packed tarball and the Action: minutes of packing and installing, run by .ci/run (npm run test:package).
    exclude: ['test/package/**', ...configDefaults.exclude],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The heavy work happens in child processes (each test runs the command against its own
    // reference instance), so more files and cases at once keep both cores busy while others wait.
    maxWorkers: 3,
    maxConcurrency: 4,
  },
});
