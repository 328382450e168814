/**
 * The suites' worker thread is started before vitest's Node API has loaded, and vitest runs the
 * suites in it (helpers/command/early-worker.ts); a vitest that asks for a worker started
 * otherwise gets its own, and a thread no suite took is stopped.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { startEarlyWorker, type EarlyWorker } from '../helpers/command/early-worker.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { loadVendorConfig } from '../helpers/config/vendor-config.ts';
import { ResultCollector } from '../helpers/results/reporters/collector.ts';
import { startReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { logRequests } from './support/network.ts';

// The compiled suites, as a run starts them.
const startSuites: typeof import('../helpers/command/run-suites.ts').startSuites = async (options) =>
  ((await import(join(projectRoot, 'dist/helpers/command/run-suites.js'))) as typeof import('../helpers/command/run-suites.ts')).startSuites(options);

type Asked = Parameters<EarlyWorker['adopt']>;

/**
 * One start of the suites with a thread started early: what vitest asked, what it was given, and
 * which threads it sent work to. Past its run timeout, so the suites are collected in the worker
 * and no check runs (there is no target).
 */
async function suitesRun(): Promise<{ asked: Asked[]; given: (Worker | undefined)[]; messaged: Set<Worker>; checks: number; reasons: Set<string | undefined> }> {
  const post = vi.spyOn(Worker.prototype, 'postMessage');
  try {
    const early = startEarlyWorker();
    const asked: Asked[] = [];
    const given: (Worker | undefined)[] = [];
    const watched: EarlyWorker = { adopt: (...args) => (asked.push(args), given.push(early.adopt(...args)), given.at(-1)), discard: () => early.discard() };
    const collector = new ResultCollector((t) => t);
    const target = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', vendor: loadVendorConfig(undefined), strict: false, readOnly: false, timeoutMs: 1000, runId: 'scr-20260101-0000abcd', stopChecksAt: Date.now() };
    await (await startSuites({ target, reporters: [collector], earlyWorker: watched })).done;
    await early.discard();
    return { asked, given, messaged: new Set(post.mock.contexts as Worker[]), checks: collector.checks.length, reasons: new Set(collector.checks.map((c) => c.reason)) };
  } finally {
    post.mockRestore();
  }
}

const ranInIt = (run: Awaited<ReturnType<typeof suitesRun>>) => {
  expect(run.given).toEqual([expect.any(Worker)]);
  // Every message vitest sent went to that thread, and vitest stopped it at the end.
  expect([...run.messaged]).toEqual([run.given[0]]);
  expect(run.given[0]!.threadId).toBe(-1);
  expect(run.checks).toBeGreaterThan(100);
  expect(run.reasons).toEqual(new Set(['not run: run-timeout']));
};

describe('the suites worker started early', () => {
  let asked: Asked;
  beforeAll(async () => {
    const run = await suitesRun();
    ranInIt(run);
    asked = run.asked[0];
  });
  afterEach(() => vi.restoreAllMocks());

  test('vitest runs the suites in it: it asks once, gets it, sends it the work and stops it', () => {
    expect(asked).toHaveLength(3);
  });

  test('the same where NODE_ENV is unset, as a command line starts (vite sets it to development)', async () => {
    const before = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    try {
      ranInIt(await suitesRun());
    } finally {
      process.env.NODE_ENV = before;
    }
  });

  test('it is given once, and only for the same entry point, flags and environment; any other ask stops it', async () => {
    const [entry, flags, env] = asked;
    const started = vi.spyOn(Worker.prototype, 'unref');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    for (const [e, f, v] of [[entry, [...flags, '--other-flag'], env], [join(projectRoot, 'elsewhere.js'), flags, env], [entry, flags, { ...env, NODE_ENV: 'production' }]] as Asked[]) {
      const early = startEarlyWorker();
      expect(early.adopt(e, f, v)).toBeUndefined();
      expect(early.adopt(entry, flags, env)).toBeUndefined();
    }
    expect(terminate.mock.contexts).toEqual(started.mock.contexts);
    expect(started.mock.contexts).toHaveLength(3);
    const early = startEarlyWorker();
    const thread = early.adopt(entry, flags, env);
    expect(thread).toBeInstanceOf(Worker);
    expect(early.adopt(entry, flags, env)).toBeUndefined();
    await thread?.terminate();
  });

  test('a thread that ended before vitest asked is not given', async () => {
    const [entry, flags, env] = asked;
    const started = vi.spyOn(Worker.prototype, 'unref');
    const early = startEarlyWorker();
    const thread = started.mock.contexts[0] as Worker;
    await thread.terminate();
    expect(early.adopt(entry, flags, env)).toBeUndefined();
  });

  test('discard stops a thread no vitest took, and leaves a taken one to vitest', async () => {
    const [entry, flags, env] = asked;
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const started = vi.spyOn(Worker.prototype, 'unref');
    await startEarlyWorker().discard();
    expect(terminate.mock.contexts).toEqual(started.mock.contexts);
    const early = startEarlyWorker();
    const thread = early.adopt(entry, flags, env);
    await early.discard();
    expect(terminate.mock.contexts).not.toContain(thread);
    await thread?.terminate();
  });
});

describe('a suites worker kept for the next run in this process (Io.keepWorker)', () => {
  test('serves that run alone: nothing of the run before asks the run before\'s target', async () => {
    // The first target stays up behind a log, so that anything still aimed at it shows.
    const first = await startReference();
    const log = await logRequests(first.url);
    // The second fails a difference the business lane settles (a write-back that resets the hours).
    const second = await startReference({ faults: ['business-hours-reset'] });
    try {
      const only = ['--only', '^(BUS-UPDATE-PARTIAL:operations-write-back|OP-DOCUMENTED:(retrieve|update)Business) '];
      const before = await runInProcess(['--base-url', log.url, ...only], { SCHEDULING_API_KEY: first.apiKey, SCHEDULING_EXPIRED_KEY: first.expiredKey });
      expect(before.code, before.stderr).toBe(0);
      const asked = log.requests.length;
      const run = await runInProcess(['--base-url', second.url, ...only], { SCHEDULING_API_KEY: second.apiKey, SCHEDULING_EXPIRED_KEY: second.expiredKey });
      expect(run.code, run.stderr).toBe(1);
      expect(log.requests.slice(asked)).toEqual([]);
    } finally {
      await Promise.all([log.close(), first.close(), second.close()]);
    }
  });
});
