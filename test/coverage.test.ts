/**
 * Coverage is visible and complete: spec/coverage.md is up to date, every MUST requirement has
 * a check, and every check has a fault in the reference implementation that kills it.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../helpers/contract/catalog.ts';
import { coveragePath, faultsKilling, listChecks, renderCoverage, type ListedCheck } from '../scripts/coverage-matrix.ts';
import { checkSites, faultSites, sitesOf } from '../scripts/source-sites.ts';
import { FAULTS } from '../reference/faults/index.ts';
import { matches } from '../reference/faults/fault.ts';

let checks: ListedCheck[];
beforeAll(async () => {
  checks = await listChecks();
});

describe('coverage matrix', () => {
  test('spec/coverage.md is up to date (run `npm run generate`)', () => {
    expect(readFileSync(coveragePath, 'utf8')).toBe(renderCoverage(checks, checkSites(), faultSites()));
  });

  test('every MUST requirement has at least one check', () => {
    const checked = new Set(checks.map((c) => c.requirement));
    const unchecked = loadCatalog().requirements.filter((r) => r.level === 'MUST' && !checked.has(r.id)).map((r) => r.id);
    expect(unchecked).toEqual([]);
  });

  test('every check has a fault that kills it', () => {
    const unkilled = checks.filter((c) => faultsKilling(c.id).length === 0).map((c) => c.id);
    expect(unkilled).toEqual([]);
  });

  // The requirement part of an id is typed (a typo fails tsc); the variant part is data derived from
  // the spec and the seed, so a typo there fails here, before any run of the fault matrix.
  test('every check a fault kills is one the suites declare', () => {
    const ids = checks.map((c) => c.id);
    const stray = FAULTS.flatMap((f) => f.kills.filter((k) => !ids.some((id) => matches(k, id))).map((k) => `${f.name}: ${k}`));
    expect(stray).toEqual([]);
  });

  test('every check and every fault traces back to one declaration (the file:line of spec/coverage.md)', () => {
    const [suites, faults] = [checkSites(), faultSites()];
    expect(checks.filter((c) => sitesOf(c.id, suites).length !== 1).map((c) => c.id)).toEqual([]);
    expect(FAULTS.filter((f) => sitesOf(f.name, faults).length !== 1).map((f) => f.name)).toEqual([]);
  });
});
