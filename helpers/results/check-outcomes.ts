import type { CheckIdentity } from '../contract/catalog.ts';
import type { Exchange } from '../http/exchanges.ts';
import type { Outcome } from '../core/outcome.ts';

/** One check as every report shows it. */
export interface CollectedCheck extends CheckIdentity {
  /** The resource whose lane ran it, e.g. "business". */
  resource: string;
  outcome: Outcome;
  reason?: string;
  durationMs: number;
  exchanges: Exchange[];
  notes: string[];
}

/** What the suite reports where the contract does not rule (see observe() in helpers/vitest/check.ts). */
export interface Observation {
  id: string;
  title: string;
  resource: string;
  text: string;
  exchanges: Exchange[];
}

export interface Counts {
  must: { passed: number; failed: number };
  should: { passed: number; warned: number; failed: number };
  notApplicable: number;
  /** Checks whose precondition the suite could not establish: neither passed nor failed. */
  blocked: number;
  skipped: number;
}

export function countOutcomes(checks: CollectedCheck[]): Counts {
  const counts: Counts = { must: { passed: 0, failed: 0 }, should: { passed: 0, warned: 0, failed: 0 }, notApplicable: 0, blocked: 0, skipped: 0 };
  for (const c of checks) {
    if (c.outcome === 'not-applicable') counts.notApplicable++;
    else if (c.outcome === 'blocked') counts.blocked++;
    else if (c.outcome === 'skipped') counts.skipped++;
    else if (c.level === 'MUST') counts.must[c.outcome === 'passed' ? 'passed' : 'failed']++;
    else counts.should[c.outcome === 'passed' ? 'passed' : c.outcome === 'warning' ? 'warned' : 'failed']++;
  }
  return counts;
}

/** A run is conformant when no check failed: SHOULD checks fail only under --strict. */
export function isConformant(checks: CollectedCheck[]): boolean {
  return checks.every((c) => c.outcome !== 'failed');
}
