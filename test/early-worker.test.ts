/**
 * The suites' worker thread is started before vitest's Node API has loaded, and vitest runs the
 * suites in it (helpers/command/early-worker.ts); a vitest that asks for a worker started
 * otherwise gets its own, and a thread no suite took is stopped.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, test, vi } from 'vitest';
import { startEarlyWorker, type EarlyWorker } from '../helpers/command/early-worker.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { loadVendorConfig } from '../helpers/config/vendor-config.ts';
import { ResultCollector } from '../helpers/results/reporters/collector.ts';

// The compiled suites, as a run starts them.
const startSuites: typeof import('../helpers/command/run-suites.ts').startSuites = async (options) =>
  ((await import(join(projectRoot, 'dist/helpers/command/run-suites.js'))) as typeof import('../helpers/command/run-suites.ts')).startSuites(options);

type Asked = Parameters<EarlyWorker['adopt']>;

describe('the suites worker started early', () => {
  const asked: Asked[] = [];

  test('vitest runs the suites in it: it asks once, and gets it', async () => {
    const early = startEarlyWorker();
    const given: (Worker | undefined)[] = [];
    const watched: EarlyWorker = { adopt: (...args) => (asked.push(args), given.push(early.adopt(...args)), given.at(-1)), discard: () => early.discard() };
    const collector = new ResultCollector((t) => t);
    // Past its run timeout: the suites are collected in the worker and no check runs (there is no target).
    const target = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', vendor: loadVendorConfig(undefined), strict: false, readOnly: false, timeoutMs: 1000, runId: 'scr-20260101-0000abcd', stopChecksAt: Date.now() };
    await (await startSuites({ target, reporters: [collector], earlyWorker: watched })).done;
    await early.discard();
    expect(given).toEqual([expect.any(Worker)]);
    expect(collector.checks.length).toBeGreaterThan(100);
    expect(new Set(collector.checks.map((c) => c.reason))).toEqual(new Set(['not run: run-timeout']));
  });

  test('it is given once, and only for the same entry point, flags and environment; any other ask stops it', async () => {
    const [entry, flags, env] = asked[0];
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      for (const [e, f, v] of [[entry, [...flags, '--other-flag'], env], [join(projectRoot, 'elsewhere.js'), flags, env], [entry, flags, { ...env, NODE_ENV: 'production' }]] as Asked[]) {
        const early = startEarlyWorker();
        expect(early.adopt(e, f, v)).toBeUndefined();
        expect(early.adopt(entry, flags, env)).toBeUndefined();
      }
      expect(terminate).toHaveBeenCalledTimes(3);
      const early = startEarlyWorker();
      const thread = early.adopt(entry, flags, env);
      expect(thread).toBeInstanceOf(Worker);
      expect(early.adopt(entry, flags, env)).toBeUndefined();
      await thread?.terminate();
    } finally {
      terminate.mockRestore();
    }
  });

  test('discard stops a thread no vitest took, and leaves a taken one to vitest', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      await startEarlyWorker().discard();
      expect(terminate).toHaveBeenCalledTimes(1);
      const [entry, flags, env] = asked[0];
      const early = startEarlyWorker();
      const thread = early.adopt(entry, flags, env);
      await early.discard();
      expect(terminate).toHaveBeenCalledTimes(1);
      await thread?.terminate();
    } finally {
      terminate.mockRestore();
    }
  });
});
