/**
 * The suite passes every implementation that keeps the contract, however it fills in what the
 * contract leaves open: the run exits 0, no check fails, and the target's data is as it was
 * before the run.
 *
 * A product fills in every open point at once, each its own way, and of one point many things
 * besides (a currency list, a time-zone list, the fields it adds). So does the matrix: a run's
 * reference is one such product, holding variations no two of which conflict (`conflict`); each
 * variation is in exactly one run, and the runs are few: about as many as the variations of the
 * point that has most that say nothing of what they fill in. A run that fails names its
 * variations; MATRIX_ONLY=<name> runs one alone
 * to tell which (test/support/fault-matrix.ts), and MATRIX_ALONE=1 runs every variation alone
 * (about four times the time).
 *
 * The command runs in process, and the runs are dealt over test/variations*.test.ts so that
 * vitest runs the shares in parallel.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { VARIATIONS, type Variation } from '../../reference/variations.ts';
import { startReference } from '../../reference/server.ts';
import { runInProcess } from './cli.ts';
import { shareOf } from './shares.ts';
import { idsWith, readResult } from './verdicts.ts';
import { onlyNamed } from './fault-matrix.ts';


/** What a variation fills in within its open point, where it says (`fills`, or the fields it adds); undefined: the whole point. */
const fillsOf = (v: Variation): readonly string[] | undefined => v.fills ?? v.volatileFields;

/**
 * Two variations no product has both: they fill in the same thing, of whichever open point (a
 * paged list has an order and a shape too), or one open point and one of them says not what of it
 * (it fills in the whole point), or they set the same vendor setting.
 */
export function conflict(a: Variation, b: Variation): boolean {
  if (a === b) return false;
  const settings = Object.keys(a.vendorConfig ?? {});
  if (Object.keys(b.vendorConfig ?? {}).some((k) => settings.includes(k))) return true;
  const [fa, fb] = [fillsOf(a), fillsOf(b)];
  if (fa && fb && fa.some((f) => fb.includes(f))) return true;
  return a.notShown === b.notShown && (!fa || !fb);
}

/**
 * Products of variations no two of which conflict. The most conflicting are dealt first, each
 * opening a run of its own when every run holds one it conflicts with; the others join the run
 * that holds fewest (runs of alike size take alike time, and the files run them in parallel).
 */
export function variationGroups(variations: readonly Variation[]): Variation[][] {
  if (process.env.MATRIX_ALONE) return variations.map((v) => [v]);
  const conflicts = new Map(variations.map((v) => [v, variations.filter((w) => conflict(v, w)).length]));
  const runs: Variation[][] = [];
  for (const v of variations.toSorted((a, b) => conflicts.get(b)! - conflicts.get(a)!)) {
    const open = runs.filter((run) => run.every((w) => !conflict(v, w)));
    if (open.length) open.reduce((fewest, run) => (run.length < fewest.length ? run : fewest)).push(v);
    else runs.push([v]);
  }
  return runs;
}

/** What a group of variations adds to a run: their vendor settings together (no two set the same one). */
export function vendorConfigOf(group: Variation[]): Record<string, unknown> | undefined {
  const configs = group.filter((v) => v.vendorConfig);
  if (!configs.length) return undefined;
  const merged: Record<string, unknown> = {};
  for (const v of configs) {
    for (const [key, value] of Object.entries(v.vendorConfig!)) {
      if (key in merged) throw new Error(`variations ${configs.map((c) => c.name).join(', ')} both set the vendor setting ${key}: they fill in the same open point`);
      merged[key] = value;
    }
  }
  return merged;
}

const union = (group: Variation[], pick: (v: Variation) => readonly string[] | undefined) => [...new Set(group.flatMap((v) => pick(v) ?? []))].sort();

/** A business check id as the run names it: under the vendor's name for the email field, when the group renames it. */
const asNamed = (ids: string[], config: Record<string, unknown> | undefined) => {
  const email = config?.businessEmailField;
  return typeof email === 'string' ? ids.map((id) => id.replace(/^(BUS-[A-Z0-9-]+):email(?=:|$)/, `$1:${email}`)).sort() : ids;
};

/** The data with server-managed fields left out: they change legitimately when a record is restored. */
export function comparable(value: unknown, volatile: string[]): unknown {
  return JSON.parse(JSON.stringify(value), (key, v) => (volatile.includes(key) ? undefined : v));
}

/** The share of the matrix a test file runs (test/support/shares.ts): every n-th run. */
export function variationMatrix(file: string): void {
  const share = shareOf(file);
  const groups = variationGroups(VARIATIONS.filter((v) => onlyNamed(v.name)));
  const mine = groups.filter((_, i) => i % share.of === share.index);
  // One group at a time in a file: a group holds the variations whose verdicts rest on time (reads
  // that lag, go back in time, pages), and a share's groups side by side in one process starved
  // them of the CPU their reads' timing assumes (the whole suite runs six files at once already).
  describe.sequential(`variation catalog (share ${share.index + 1} of ${share.of})`, () => {
    test.for(mine.map((g) => [g.map((v) => v.name).join(' + '), g] as const))('%s: passes and leaves no trace', async ([, group]) => {
      const ref = await startReference({ variations: group.map((v) => v.name) });
      try {
        const before = ref.state.snapshot();
        const args = ['--base-url', ref.url];
        const vendorConfig = vendorConfigOf(group);
        if (vendorConfig) {
          const file = join(mkdtempSync(join(tmpdir(), 'scr-variation-')), 'vendor.json');
          writeFileSync(file, JSON.stringify(vendorConfig));
          args.push('--config', file);
        }
        const run = await runInProcess(args, { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: true });
        const { checks } = readResult(run);
        // With each failure's reason: a group's failure may need load to show, and not come back alone.
        expect(checks.filter((c) => c.outcome === 'failed').map((c) => `${c.id}: ${c.reason}`), run.stderr).toEqual([]);
        // Only the SHOULD checks the variations declare they depart from may warn, and they must.
        expect(idsWith(checks, ['warning']), run.stderr).toEqual(asNamed(union(group, (v) => v.expectWarnings), vendorConfig));
        // A legitimate variation never makes a business check impossible (the record is documented),
        // unless it declares which and says why in reference/variations.ts.
        expect(idsWith(checks.filter((c) => c.resource === 'business'), ['not-applicable'])).toEqual(asNamed(union(group, (v) => v.expectNotApplicable), vendorConfig));
        expect(run.code, run.stderr).toBe(0);
        const volatile = union(group, (v) => v.volatileFields);
        expect(comparable(ref.state.snapshot(), volatile)).toEqual(comparable(before, volatile));
      } finally {
        await ref.close();
      }
    });
  });
}
