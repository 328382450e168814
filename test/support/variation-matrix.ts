/**
 * The suite passes every implementation that keeps the contract, however it fills in what the
 * contract leaves open: for each legitimate variation of the reference implementation, the run
 * exits 0, no check fails, and the target's data is as it was before the run.
 *
 * The command runs in process, and the catalog is dealt over test/variations*.test.ts so that
 * vitest runs the shares in parallel.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { VARIATIONS, type Variation } from '../../reference/variations.ts';
import { startReference } from '../../reference/server.ts';
import { runInProcess } from './cli.ts';
import { idsWith, readResult } from './verdicts.ts';
import { onlyNamed } from './fault-matrix.ts';

/** How many test files share the catalog; each is test/variations*.test.ts calling variationMatrix(i). */
export const VARIATION_SHARES = 2;

/** The data with server-managed fields left out: they change legitimately when a record is restored. */
function comparable(value: unknown, volatile: string[]): unknown {
  return JSON.parse(JSON.stringify(value), (key, v) => (volatile.includes(key) ? undefined : v));
}

/** Share `share` (0-based) of VARIATION_SHARES: every VARIATION_SHARES-th variation. */
export function variationMatrix(share: number): void {
  const mine = VARIATIONS.filter((_, i) => i % VARIATION_SHARES === share).filter((v) => onlyNamed(v.name));
  describe.concurrent(`variation catalog (share ${share + 1} of ${VARIATION_SHARES})`, () => {
    test.for(mine.map((v) => [v.name, v] as const))('%s passes and leaves no trace', async ([, variation]: readonly [string, Variation]) => {
      const ref = await startReference({ variations: [variation.name] });
      try {
        const before = ref.state.snapshot();
        const args = ['--base-url', ref.url];
        if (variation.vendorConfig) {
          const file = join(mkdtempSync(join(tmpdir(), 'scr-variation-')), 'vendor.json');
          writeFileSync(file, JSON.stringify(variation.vendorConfig));
          args.push('--config', file);
        }
        const run = await runInProcess(args, { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
        const { checks } = readResult(run);
        expect(idsWith(checks, ['failed']), run.stderr).toEqual([]);
        // Only the SHOULD checks the variation declares it departs from may warn, and they must.
        expect(idsWith(checks, ['warning']), run.stderr).toEqual((variation.expectWarnings ?? []).toSorted());
        // A legitimate variation never makes a business check impossible (the record is documented),
        // unless it declares which and says why in reference/variations.ts.
        expect(idsWith(checks.filter((c) => c.resource === 'business'), ['not-applicable'])).toEqual((variation.expectNotApplicable ?? []).toSorted());
        expect(run.code, run.stderr).toBe(0);
        const volatile = variation.volatileFields ?? [];
        expect(comparable(ref.state.snapshot(), volatile)).toEqual(comparable(before, volatile));
      } finally {
        await ref.close();
      }
    });
  });
}
