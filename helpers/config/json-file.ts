import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { UsageError } from '../command/errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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
  const ajv = addFormats(new Ajv({ allErrors: true }));
  const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
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
