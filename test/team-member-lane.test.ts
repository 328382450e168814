/**
 * The team-member lane puts back what a check changed. When the target turns the putting back
 * away (503 to the end), a failure the change already proved stands; without one, the check is
 * blocked by the target (the after-run clean-up tries the member again).
 */
import { describe, expect, test } from 'vitest';
import { TeamMemberLane } from '../helpers/resources/team-member-lane.ts';
import { TurnedAway, type ApiClient } from '../helpers/http/client.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { requireOps, resourceOps } from '../helpers/contract/resource-ops.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

const turnedAway = new TurnedAway('GET /api/v1/team-members/m1 answered 503 each of the 4 times it was asked (the target says "not now")');
// Every request the lane sends to put the member back is turned away.
const client = { call: async () => Promise.reject(turnedAway) } as unknown as ApiClient;
const target = { runId: 'scr-20260101-abcdef12', vendor: DEFAULT_VENDOR_CONFIG } as TargetConfig;
const original = { id: 'm1', firstName: 'Sam' };

async function lane(): Promise<TeamMemberLane> {
  const ops = requireOps(resourceOps(await loadSpec(), 'team-members'), 'team-members', ['list', 'find', 'update']);
  return new TeamMemberLane(client, ops, target);
}

describe('putting a member back, turned away', () => {
  test('a failure the change proved stands, and says the member could not be put back', async () => {
    const changing = (await lane()).changing(original, async () => {
      throw new Error('updating member m1 also changed member m2');
    });
    await expect(changing).rejects.toThrow(/^updating member m1 also changed member m2; then putting the member back was turned away: blocked by the target: GET/);
  });

  test('without one, the check is blocked by the target', async () => {
    await expect((await lane()).changing(original, async () => {})).rejects.toBe(turnedAway);
  });
});
