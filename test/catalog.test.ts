/**
 * The requirement catalog (spec/requirements.yaml) is well formed and covers every operation, and
 * the id types generated from it and from the reference's faults and variations are up to date
 * and catch a typo at the type check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadCatalog, type CheckId, type CheckIdOf, type ShouldRequirementId } from '../helpers/contract/catalog.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { FAULTS, type FaultName } from '../reference/faults/index.ts';
import type { KillPattern } from '../reference/faults/fault.ts';
import type { RefContext } from '../reference/types.ts';
import { VARIATIONS } from '../reference/variations.ts';
import { faultNamesPath, renderFaultNames, renderRequirementIds, renderVariationNames, requirementIdsPath, variationNamesPath } from '../scripts/typed-ids.ts';

describe('spec/requirements.yaml', () => {
  const catalog = loadCatalog();

  test('gives every requirement a unique id, a level, a clause, a text and known operations', async () => {
    const spec = await loadSpec();
    const operationIds = new Set(spec.operations.map((o) => o.operationId));
    expect(new Set(catalog.requirements.map((r) => r.id)).size).toBe(catalog.requirements.length);
    for (const r of catalog.requirements) {
      expect(r.id, r.id).toMatch(/^[A-Z]+(-[A-Z0-9]+)+$/);
      expect(['MUST', 'SHOULD'], r.id).toContain(r.level);
      expect(r.clause, r.id).toMatch(/^\d/);
      expect(r.text.length, r.id).toBeGreaterThan(20);
      for (const op of r.operations) expect(operationIds.has(op), `${r.id} names unknown operation ${op}`).toBe(true);
    }
  });

  test('lets only MUST requirements stay untested, each for a stated reason', () => {
    for (const r of catalog.requirements.filter((q) => q.untestedIf !== undefined)) {
      expect(r.level, r.id).toBe('MUST');
      expect(r.untestedIf!.length, r.id).toBeGreaterThan(10);
    }
    expect(catalog.byId.get('BUS-AUTH-EXPIRED')?.untestedIf).toBe('no expired key was given');
  });

  test('names every operation of the spec in some requirement', async () => {
    const spec = await loadSpec();
    const named = new Set(catalog.requirements.flatMap((r) => r.operations));
    for (const op of spec.operations) expect(named.has(op.operationId), op.operationId).toBe(true);
  });

  test('lists the statements left out, each with a reason', () => {
    expect(catalog.notChecked.length).toBeGreaterThan(5);
    for (const n of catalog.notChecked) expect(n.why.length, n.statement).toBeGreaterThan(10);
  });
});

describe('typed ids', () => {
  test('the requirement id types are up to date (run `npm run generate`)', () => {
    expect(readFileSync(requirementIdsPath, 'utf8')).toBe(renderRequirementIds(loadCatalog()));
  });

  test('the fault name type is up to date (run `npm run generate`)', () => {
    expect(readFileSync(faultNamesPath, 'utf8')).toBe(renderFaultNames(FAULTS));
  });

  test('the variation name type is up to date (run `npm run generate`)', () => {
    expect(readFileSync(variationNamesPath, 'utf8')).toBe(renderVariationNames(VARIATIONS));
  });

  // The proof is `tsc --noEmit` (part of `npm test`, scripts/test.sh): each line below must not compile.
  test('an id the catalogs do not hold fails the type check', () => {
    // @ts-expect-error a requirement id with a typo
    const check: CheckId = 'BUS-UPDATE-PARTAL:name';
    // @ts-expect-error a MUST requirement where only SHOULD checks may go
    const warning: CheckIdOf<ShouldRequirementId> = 'BUS-UPDATE-PARTIAL:name';
    // @ts-expect-error a group prefix that is no requirement's
    const pattern: KillPattern = 'BUS-UPDTE-*';
    // @ts-expect-error a fault name with a typo
    const fault: FaultName = 'business-patch-replace';
    expect([check, warning, pattern, fault]).toHaveLength(4);
  });

  test('a fault or variation name a route asks for with a typo fails the type check', () => {
    const asked: string[] = [];
    const ctx = { fault: (name: string) => asked.push(name) > 0, varies: (name: string) => asked.push(name) > 0 } as Pick<RefContext, 'fault' | 'varies'>;
    ctx.fault('auth-any-token-accepted');
    ctx.fault('route-missing:retrieveBusiness');
    // @ts-expect-error a fault name with a typo
    ctx.fault('auth-any-token-acepted');
    // @ts-expect-error a family of generated faults with a typo
    ctx.fault('route-mising:retrieveBusiness');
    ctx.varies('list-paged');
    // @ts-expect-error a variation name with a typo
    ctx.varies('list-page');
    expect(asked).toHaveLength(6);
  });
});
