import type { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../core/errors.ts';

// ajv is loaded when a file is given, not at every start (--help, --version, runs without files).
const require = createRequire(import.meta.url);
const newAjv = (): Ajv => {
  const { Ajv } = require('ajv') as typeof import('ajv');
  const addFormats = require('ajv-formats') as (ajv: Ajv) => Ajv;
  return addFormats(new Ajv({ allErrors: true }));
};

/**
 * Reads a JSON file a user hands the command (vendor config, expectations) and validates it
 * against the schema the project ships. Every problem becomes one line, a usage error (exit 2):
 * "<label> <file>: cannot be read | not valid JSON | /path message; …".
 */
export function readValidatedJson(file: string, schemaPath: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${label} ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${label} ${file}: not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
  const validate = newAjv().compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const where = e.instancePath || '(top level)';
      if (e.keyword === 'additionalProperties') return `${where}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      return `${where} ${e.message}`;
    });
    throw new UsageError(`${label} ${file}: ${problems.join('; ')}`);
  }
  return raw;
}
