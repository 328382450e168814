/**
 * Every check can fail: for each fault in the reference implementation's catalog, the suite run
 * against the faulty reference fails exactly the checks the fault names, no more and no fewer.
 * A fault that breaks only SHOULD checks gives warnings (exit 0), and failures under --strict.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { FAULTS, type CatalogFault } from '../reference/faults/index.ts';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runCli } from './support/cli.ts';
import { idsWith, matches, readResult } from './support/verdicts.ts';
import { loadCatalog, requirementOf } from '../helpers/contract/catalog.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

async function runAgainst(fault: CatalogFault, strict: boolean) {
  const ref = await startReference({ fault: fault.name });
  running.push(ref);
  const run = await runCli(['--base-url', ref.url, ...(strict ? ['--strict'] : [])], {
    SCHEDULING_API_KEY: ref.apiKey,
    SCHEDULING_EXPIRED_KEY: ref.expiredKey,
  });
  await ref.close();
  return run;
}

function expectExactly(fault: CatalogFault, flagged: string[]) {
  const unexpected = flagged.filter((id) => !fault.kills.some((p) => matches(p, id)));
  const missed = fault.kills.filter((p) => !flagged.some((id) => matches(p, id)));
  expect({ unexpected, missed }, `fault ${fault.name}`).toEqual({ unexpected: [], missed: [] });
}

/** The run left exactly the requirements the fault names without proof (verdict INCOMPLETE). */
function expectUntested(fault: CatalogFault, result: Record<string, unknown>) {
  const untested = (result.untested as { requirement: string; allowed: boolean }[]).filter((u) => !u.allowed).map((u) => u.requirement).sort();
  expect(untested, `fault ${fault.name}: requirements without proof`).toEqual((fault.untested ?? []).toSorted());
}

const catalog = loadCatalog();
const onlyShould = (fault: CatalogFault) =>
  fault.kills.every((p) => catalog.byId.get(requirementOf(p.replace(/\*$/, '')))?.level === 'SHOULD');

/**
 * The families of generated faults (e.g. business-get-wrong-type:<field>) whose --strict run is
 * already proven: it shows that warnings turn into failures, which does not depend on the field,
 * so one member of a family is enough and the matrix stays short.
 */
const strictProven = new Set<string>();
const family = (fault: CatalogFault) => fault.name.split(':')[0];

describe.concurrent('fault catalog', () => {
  test('names at least one check to kill for every fault', () => {
    for (const f of FAULTS) expect(f.kills.length + (f.untested?.length ?? 0), f.name).toBeGreaterThan(0);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
  });

  test.for(FAULTS.map((f) => [f.name, f] as const))('%s is caught', async ([, fault]) => {
    const run = await runAgainst(fault, false);
    const result = readResult(run);
    const { checks } = result;
    if (onlyShould(fault)) {
      // A fault that fails nothing but leaves MUST requirements without proof ends INCOMPLETE.
      expect(run.code, run.stderr).toBe(fault.untested?.length ? 2 : 0);
      expectExactly(fault, idsWith(checks, ['warning']));
      expectUntested(fault, result);
      if (!fault.kills.length || (fault.name.includes(':') && strictProven.has(family(fault)))) return;
      strictProven.add(family(fault));
      const strict = await runAgainst(fault, true);
      expect(strict.code, strict.stderr).toBe(1);
      expectExactly(fault, idsWith(readResult(strict).checks, ['failed']));
    } else {
      expect(run.code, run.stderr).toBe(1);
      expectExactly(fault, idsWith(checks, ['failed', 'warning']));
    }
  });
});
