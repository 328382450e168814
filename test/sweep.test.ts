/**
 * Issue 12 §3: the sweep deletes only what is certainly a run's own, and only when told to.
 * In process: the reference and the sweep run here, no child process.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { sweep } from '../helpers/safety/sweep.ts';
import { loadSpec, type Spec } from '../helpers/contract/spec.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { parseOptions } from '../helpers/command/options.ts';
import { UsageError } from '../helpers/core/errors.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

let ref: RunningReference;
let spec: Spec;
beforeAll(async () => {
  ref = await startReference();
  spec = await loadSpec();
});
afterAll(() => ref.close());

const target = (): TargetConfig => ({
  baseUrl: ref.url, apiKey: ref.apiKey, vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 10_000, runId: 'scr-20260101-00000000',
});

/** Customers of every kind a sweep meets: left by runs, and people's whose names only look alike. */
function seed(): Record<string, string> {
  const add = (lastName: string) => String(ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName, email: 'x@example.com' }, 'cus').id);
  return {
    crashed: add('Customer scr-20260101-0badcafe create'),
    crashedNoLabel: add('Customer scr-20251231-12345678'),
    merelyContains: add("Customer scr-20260101-0badcafe's friend"),
    otherPrefix: add('Bob scr-20260101-0badcafe'),
    badDate: add('Customer scr-20261399-0badcafe create'),
    upperHex: add('Customer scr-20260101-0BADCAFE create'),
    person: add('Lopez'),
  };
}

describe('--sweep', () => {
  test('without --yes it lists (id, the field, the run) and deletes nothing', async () => {
    const ids = seed();
    const before = ref.state.snapshot();
    const result = await sweep(target(), spec, { yes: false });
    expect(ref.state.snapshot()).toEqual(before);
    expect(result.deleted).toEqual([]);
    expect(result.found.map((f) => [String(f.id), f.field, f.runId]).sort()).toEqual(
      [[ids.crashed, 'lastName', 'scr-20260101-0badcafe'], [ids.crashedNoLabel, 'lastName', 'scr-20251231-12345678']].sort(),
    );
    for (const id of Object.values(ids)) ref.state.customers.delete(id);
  });

  test('with --yes it deletes exactly the records a run of this suite marked, nothing merely marker-shaped', async () => {
    const ids = seed();
    const result = await sweep(target(), spec, { yes: true });
    const left = new Set(ref.state.customers.keys());
    expect(left.has(ids.crashed) || left.has(ids.crashedNoLabel)).toBe(false);
    for (const k of ['merelyContains', 'otherPrefix', 'badDate', 'upperHex', 'person']) expect(left.has(ids[k]), k).toBe(true);
    expect(result.deleted).toHaveLength(2);
    expect(result.leftOnTarget).toEqual([]);
    for (const id of Object.values(ids)) ref.state.customers.delete(id);
  });

  test('--read-only --sweep and --only with --sweep are usage errors', () => {
    expect(() => parseOptions(['--read-only', '--sweep'], {})).toThrow(UsageError);
    expect(() => parseOptions(['--sweep', '--only', '^BUS'], {})).toThrow(UsageError);
    expect(parseOptions(['--sweep', '--yes'], {})).toMatchObject({ sweep: true, sweepYes: true });
  });
});
