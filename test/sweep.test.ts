/**
 * The sweep deletes only what is certainly a run's own, and only when told to; never what
 * belongs to a run that is still going (its lease is live).
 * In process: the reference, the sweep and the run beside it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { sweep } from '../helpers/safety/sweep.ts';
import { loadSpec, type Spec } from '../helpers/contract/spec.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { parseOptions } from '../helpers/command/options.ts';
import { UsageError } from '../helpers/core/errors.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { Journal } from '../helpers/safety/journal.ts';
import { ApiClient } from '../helpers/http/client.ts';
import { Lease, leasePlace, LEASE_TTL_MS } from '../helpers/safety/lease.ts';
import { compiledMain, runInProcess } from './support/cli.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

describe('--sweep beside a run that is going', () => {
  const runOf = (lastName: unknown) => /scr-\d{8}-[0-9a-f]{8}/.exec(String(lastName))?.[0];

  test('--sweep --yes while a run works on its customers: the sweep skips them and says so, the run passes', async () => {
    const slow = await startReference({ latencyMs: 10 });
    try {
      const before = slow.state.snapshot();
      // The customers' checks alone: the sweep deletes customers only, and these are the checks it broke (below).
      const run = runInProcess(['--base-url', slow.url, '--only', '^CUS-'], { SCHEDULING_API_KEY: slow.apiKey, SCHEDULING_EXPIRED_KEY: slow.expiredKey });
      // The run's customers besides its lease: the customers suite is at work.
      const working = () => [...slow.state.customers.values()].some((c) => runOf(c.lastName) && !/ lease-\d+$/.test(String(c.lastName)));
      while (!working()) await new Promise((resolve) => setTimeout(resolve, 10));
      const out: string[] = [];
      const code = await (await compiledMain())(['--base-url', slow.url, '--sweep', '--yes'], { SCHEDULING_API_KEY: slow.apiKey }, { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(t) } });
      const said = out.join('');
      expect(code, said).toBe(0);
      expect(said).toMatch(/Sweep: deleted 0 record\(s\) left by earlier runs\n/);
      expect(said).toMatch(/Sweep: skipped \d+ customer\(s\) of run scr-\d{8}-[0-9a-f]{8} that is still going \(last seen (just now|\d+ s ago)\)/);
      const done = await run;
      // Before: the sweep deleted them, and the run failed CUS-UPDATE and CUS-ISOLATION (exit 1).
      expect(done.code, done.stdout.slice(-2000)).toBe(0);
      expect(slow.state.snapshot()).toEqual(before);
    } finally {
      await slow.close();
    }
  });

  test('a lease not refreshed for LEASE_TTL_MS stands for a stopped run: its customers are swept, the lease among them', async () => {
    const seen = Math.floor((Date.now() - LEASE_TTL_MS - 5_000) / 1000);
    const lease = String(ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: `Customer scr-20260101-0badcafe lease-${seen}`, email: 'x@example.com' }, 'cus').id);
    const left = String(ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: 'Customer scr-20260101-0badcafe create', email: 'x@example.com' }, 'cus').id);
    const result = await sweep(target(), spec, { yes: true });
    expect(result.going).toEqual([]);
    expect(ref.state.customers.has(lease) || ref.state.customers.has(left)).toBe(false);
  });

  test('a run beats its lease: the lease\'s marker field says when it was last seen', async () => {
    const t = { ...target(), runId: 'scr-20260101-00000001' };
    const journal = new Journal(join(mkdtempSync(join(tmpdir(), 'scr-lease-')), 'run-journal.jsonl'));
    const client = new ApiClient(t);
    try {
      const taken = await Lease.take(client, t, leasePlace(spec, t), journal);
      if (!('lease' in taken)) throw new Error(`no lease: ${JSON.stringify(taken)}`);
      const id = taken.lease.path.split('/').at(-1)!;
      ref.state.customers.set(id, { ...ref.state.customers.get(id)!, lastName: `Customer ${t.runId} lease-1000000000` });
      taken.lease.beat();
      await taken.lease.settled();
      const seen = Number(/lease-(\d+)$/.exec(String(ref.state.customers.get(id)!.lastName))![1]) * 1000;
      expect(Math.abs(Date.now() - seen)).toBeLessThan(60_000);
      ref.state.customers.delete(id);
    } finally {
      await client.close();
    }
  });
});
