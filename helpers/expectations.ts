import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { specDir } from './paths.ts';
import { UsageError } from './errors.ts';
import type { Outcome } from './check.ts';

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

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function validateExpectations(raw: unknown, source: string): Expectations {
  const ajv = addFormats(new Ajv({ allErrors: true }));
  const validate = ajv.compile(JSON.parse(readFileSync(expectationsSchemaPath, 'utf8')));
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const where = e.instancePath || '(top level)';
      if (e.keyword === 'additionalProperties') return `${where}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      return `${where} ${e.message}`;
    });
    throw new UsageError(`expectations ${source}: ${problems.join('; ')}`);
  }
  const { $schema: _, ...pins } = raw as Record<string, Expectation>;
  return pins;
}

export function loadExpectations(file: string): Expectations {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`expectations ${file}: ${code ? `cannot be read (${code})` : `not valid JSON (${(e as Error).message.split('\n')[0]})`}`);
  }
  return validateExpectations(raw, file);
}

export function pinStatus(pin: Expectation, outcome: Outcome): PinStatus {
  if (outcome === pin.outcome) return 'as-expected';
  return outcome === 'passed' ? 'now-passes' : 'differs';
}
