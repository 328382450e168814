import { join } from 'node:path';
import { specDir } from '../core/paths.ts';
import { readValidatedJson } from './json-file.ts';
import type { Outcome } from '../core/outcome.ts';

/** A known deviation an implementation's CI pins in its --expect file. */
export interface Expectation {
  outcome: Extract<Outcome, 'failed' | 'warning' | 'not-applicable'>;
  reason: string;
  link?: string;
}

export type Expectations = Record<string, Expectation>;

/** How a check's real outcome compares with its pin. */
export type PinStatus = 'as-expected' | 'now-passes' | 'differs';

export const expectationsSchemaPath = join(specDir, 'expectations.schema.json');

/** The known deviations from --expect, validated against spec/expectations.schema.json. */
export function loadExpectations(file: string): Expectations {
  const { $schema: _, ...pins } = readValidatedJson(file, expectationsSchemaPath, 'expectations') as Record<string, Expectation>;
  return pins;
}

export function pinStatus(pin: Expectation, outcome: Outcome): PinStatus {
  if (outcome === pin.outcome) return 'as-expected';
  return outcome === 'passed' ? 'now-passes' : 'differs';
}
