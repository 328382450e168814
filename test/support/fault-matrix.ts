/**
 * Every check can fail: for each fault in the reference implementation's catalog, the suite run
 * against the faulty reference fails exactly the checks the fault names, no more and no fewer.
 * A fault that breaks only SHOULD checks gives warnings (exit 0), and failures under --strict.
 *
 * The command runs in process (main() with captured output), and the catalog is dealt over
 * several test files (test/faults*.test.ts) so that vitest runs the shares in parallel.
 */
import { describe, expect, test } from 'vitest';
import { FAULTS, type CatalogFault as Fault } from '../../reference/faults/index.ts';
import { startReference } from '../../reference/server.ts';
import { runInProcess } from './cli.ts';
import { idsWith, matches, readResult } from './verdicts.ts';
import { loadCatalog, requirementOf } from '../../helpers/contract/catalog.ts';

/** MATRIX_ONLY=<regular expression>: only the faults (and variations) so named, to try a few by hand. */
export const onlyNamed = (name: string) => !process.env.MATRIX_ONLY || new RegExp(process.env.MATRIX_ONLY).test(name);

/** How many test files share the catalog; each is test/faults*.test.ts calling faultMatrix(i). */
export const FAULT_SHARES = 4;

async function runAgainst(fault: Fault, strict: boolean) {
  const ref = await startReference({ fault: fault.name });
  try {
    return await runInProcess(['--base-url', ref.url, ...(strict ? ['--strict'] : [])], {
      SCHEDULING_API_KEY: ref.apiKey,
      SCHEDULING_EXPIRED_KEY: ref.expiredKey,
    });
  } finally {
    await ref.close();
  }
}

function expectExactly(fault: Fault, flagged: string[]) {
  const unexpected = flagged.filter((id) => !fault.kills.some((p) => matches(p, id)));
  const missed = fault.kills.filter((p) => !flagged.some((id) => matches(p, id)));
  expect({ unexpected, missed }, `fault ${fault.name}`).toEqual({ unexpected: [], missed: [] });
}

const catalog = loadCatalog();
const onlyShould = (fault: Fault) =>
  fault.kills.every((p) => catalog.byId.get(requirementOf(p.replace(/\*$/, '')))?.level === 'SHOULD');

/**
 * The families of generated faults (e.g. business-get-wrong-type:<field>) prove their --strict
 * run once, with the family's first member: that warnings turn into failures does not depend on
 * the field, so the matrix stays short.
 */
const family = (fault: Fault) => fault.name.split(':')[0];
const provesStrict = (fault: Fault) =>
  fault.kills.length > 0 &&
  (!fault.name.includes(':') || FAULTS.find((f) => onlyShould(f) && f.kills.length > 0 && family(f) === family(fault)) === fault);

/** The run left exactly the requirements the fault names without proof (verdict INCOMPLETE). */
function expectUntested(fault: Fault, result: Record<string, unknown>) {
  const untested = (result.untested as { requirement: string; allowed: boolean }[]).filter((u) => !u.allowed).map((u) => u.requirement).sort();
  expect(untested, `fault ${fault.name}: requirements without proof`).toEqual((fault.untested ?? []).toSorted());
}

/** Share `share` (0-based) of FAULT_SHARES: every FAULT_SHARES-th fault, so the shares take alike. */
export function faultMatrix(share: number): void {
  const mine = FAULTS.filter((_, i) => i % FAULT_SHARES === share).filter((f) => onlyNamed(f.name));
  describe.concurrent(`fault catalog (share ${share + 1} of ${FAULT_SHARES})`, () => {
    test.for(mine.map((f) => [f.name, f] as const))('%s is caught', async ([, fault]) => {
      const run = await runAgainst(fault, false);
      const result = readResult(run);
      const { checks } = result;
      if (onlyShould(fault)) {
        // A fault that fails nothing but leaves MUST requirements without proof ends INCOMPLETE.
        expect(run.code, run.stderr).toBe(fault.untested?.length ? 2 : 0);
        expectExactly(fault, idsWith(checks, ['warning']));
        expectUntested(fault, result);
        if (!provesStrict(fault)) return;
        const strict = await runAgainst(fault, true);
        expect(strict.code, strict.stderr).toBe(1);
        expectExactly(fault, idsWith(readResult(strict).checks, ['failed']));
      } else {
        expect(run.code, run.stderr).toBe(1);
        expectExactly(fault, idsWith(checks, ['failed', 'warning']));
      }
    });
  });
}
