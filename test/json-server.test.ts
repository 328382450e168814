/**
 * A real server nobody here wrote: json-server 0.17.4 (a pinned development dependency), started
 * by this test on a free port of this machine. Plain, it is judged NOT CONFORMANT for exactly its
 * real breaches: the business operations take any key or none (no 401: section 5 gives 401 to a
 * request without a valid key), and team members can be created and deleted (section 1 offers
 * neither). What a refusal would carry cannot be judged where nothing is refused: that SHOULD is
 * blocked by the failed 401 checks. With the small middleware the contract needs, it is
 * CONFORMANT run after run, though it gives a new record the highest id plus one (a deleted top
 * id comes back with the next create): the suite tells customers apart by what its checks wrote,
 * not by id alone. After every run the data is as found. JSON_SERVER_RUNS sets how many runs in a
 * row (default 1, to keep npm test short; `npm run test:json-server` makes 20).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { startJsonServer } from './support/json-server.ts';
import { runInProcess } from './support/cli.ts';
import { idsWith, readResult } from './support/verdicts.ts';

const RUNS = Number(process.env.JSON_SERVER_RUNS ?? 1);
const EXPIRED_KEY = 'js_expired_fedcba9876543210';

async function runAgainst(contract: boolean, extra: string[] = []) {
  const server = await startJsonServer({ contract });
  try {
    const before = server.data();
    const run = await runInProcess(['--base-url', server.url, ...extra], { SCHEDULING_API_KEY: server.apiKey, SCHEDULING_EXPIRED_KEY: EXPIRED_KEY });
    return { run, checks: readResult(run).checks, asFound: isDeepStrictEqual(server.data(), before) };
  } finally {
    await server.close();
  }
}

describe('json-server 0.17.4', () => {
  test('plain: NOT CONFORMANT for exactly its breaches (no 401 on the business operations, team members created and deleted), data as found', async () => {
    // Exploration finds the same missing 401 again (EXPLORE-REFUSED) when its random sequences draw a refusal: as in the fault matrix, left out here (--explore 0).
    const { run, checks, asFound } = await runAgainst(false, ['--explore', '0']);
    expect(run.code, run.stderr).toBe(1);
    const failed = idsWith(checks, ['failed']);
    const breaches = checks.filter((c) => /^BUS-AUTH-(MISSING|INVALID|EXPIRED):/.test(c.id) || c.id === 'TM-NO-CREATE' || c.id === 'TM-NO-DELETE').map((c) => c.id).sort();
    expect(failed).toEqual(breaches);
    for (const group of ['BUS-AUTH-MISSING:retrieveBusiness', 'BUS-AUTH-MISSING:updateBusiness', 'BUS-AUTH-INVALID:retrieveBusiness:', 'BUS-AUTH-INVALID:updateBusiness:', 'BUS-AUTH-EXPIRED:', 'TM-NO-CREATE', 'TM-NO-DELETE']) {
      expect(failed.some((id) => id.startsWith(group)), group).toBe(true);
    }
    // The SHOULD that no refusal carries the record: nothing was refused, so it is blocked by the failed 401 checks, not warned.
    expect(idsWith(checks, ['warning'])).toEqual([]);
    const blocked = checks.filter((c) => c.outcome === 'blocked');
    expect(blocked.map((c) => c.id)).toEqual(['BUS-AUTH-NO-RECORD:retrieveBusiness', 'BUS-AUTH-NO-RECORD:updateBusiness']);
    for (const c of blocked) expect(c.reason).toMatch(/^blocked by BUS-AUTH-INVALID:/);
    expect(asFound).toBe(true);
  });

  test(`with the contract's middleware: CONFORMANT ${RUNS} runs in a row, with its id reuse, data as found after each`, async () => {
    const verdicts: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { run, checks, asFound } = await runAgainst(true);
      const wrong = idsWith(checks, ['failed', 'warning', 'blocked']);
      // A run that ends otherwise than exit 0 with no check to blame says why: its last lines.
      const why = run.code !== 0 && !wrong.length ? `: ${(run.stderr.trim() || run.stdout.trim()).split('\n').slice(-3).join(' / ')}` : '';
      verdicts.push(`run ${i + 1}: exit ${run.code}${wrong.length ? ` (${wrong.join(', ')})` : why}${asFound ? '' : ', data changed'}`);
    }
    expect(verdicts.filter((v) => !/exit 0$/.test(v))).toEqual([]);
  });
});
