/**
 * The lanes side by side in the one suite worker (--concurrency): a lane whose close throws (it
 * does, on purpose, when it leaves something on the target) still gives its turn back, so the
 * lanes waiting for one run, and the run ends.
 */
import { expect, test } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

// Bounded: a turn never given back hangs the run for good; a run here takes a few seconds, and
// 60 s leaves a busy machine ample room.
test('two lanes whose close throws, at --concurrency 2: the third lane still gets its turn and the run ends', { timeout: 60_000 }, async () => {
  // The business record cannot be restored, and the customers cannot be deleted: both closes throw.
  const ref = await startReference({ faults: ['business-true-ignored', 'customer-delete-noop'] });
  try {
    const run = await runInProcess(['--base-url', ref.url, '--concurrency', '2'], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: true });
    const result = readResult(run);
    expect((result.suiteErrors as string[]).join('\n')).toMatch(/business[\s\S]*could not be restored/);
    expect((result.suiteErrors as string[]).join('\n')).toMatch(/customers[\s\S]*could not be deleted/);
    const members = result.checks.filter((c) => c.resource === 'team-members');
    expect(members.length).toBeGreaterThan(10);
    expect(members.filter((c) => c.outcome !== 'passed').map((c) => `${c.id}: ${c.outcome}`)).toEqual([]);
    expect(run.code).toBe(1);
  } finally {
    await ref.close();
  }
});
