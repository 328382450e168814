import { defineConfig } from 'vitest/config';

// The suite as users outside this repository get it: the packed tarball and the GitHub Action (.ci/run).
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/package/**/*.test.ts'],
    globalSetup: ['test/own-tmp.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
