/**
 * The frame (helpers/safety/frame.ts) as a mechanism: a change no check targets, made by a route
 * of another resource than the record's, is found by the WRITE-FRAME check alone, named with the writes
 * that may have made it, and named again as left on the target; at either concurrency.
 */
import { expect, test } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { idsWith, readResult } from './support/verdicts.ts';

for (const concurrency of [1, 3]) {
  test(`a team member a customer delete took with it is named by WRITE-FRAME alone (--concurrency ${concurrency})`, async () => {
    const ref = await startReference({ fault: 'customer-delete-removes-team-member' });
    try {
      const members = [...ref.state.teamMembers.keys()];
      const run = await runInProcess(['--base-url', ref.url, '--concurrency', String(concurrency)], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: true });
      const result = readResult(run) as ReturnType<typeof readResult> & { leftOnTarget: { record: string; problem: string }[] };
      const gone = members.filter((id) => !ref.state.teamMembers.has(id));
      expect(gone).toHaveLength(1);
      const path = `/api/v1/team-members/${gone[0]}`;
      expect(run.code, run.stderr).toBe(1);
      expect(idsWith(result.checks, ['failed'])).toEqual(['WRITE-FRAME']);
      const frame = result.checks.find((c) => c.id === 'WRITE-FRAME')!;
      // The member, how it changed, and the write that took it among those named.
      expect(frame.reason).toContain(`${path} vanished`);
      expect(frame.reason).toMatch(/DELETE \/api\/v1\/customers\//);
      expect(result.leftOnTarget.map((l) => l.record)).toContain(path);
    } finally {
      await ref.close();
    }
  });
}

test('a target no write of the run reaches beyond its record passes WRITE-FRAME, and nothing is named as left', async () => {
  const ref = await startReference({});
  try {
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: true });
    const result = readResult(run) as ReturnType<typeof readResult> & { leftOnTarget: unknown[] };
    expect(run.code, run.stderr).toBe(0);
    expect(result.checks.find((c) => c.id === 'WRITE-FRAME')?.outcome).toBe('passed');
    expect(result.leftOnTarget).toEqual([]);
  } finally {
    await ref.close();
  }
});
