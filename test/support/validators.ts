import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectRoot, specDir } from '../../helpers/core/paths.ts';

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Problems of a value against a JSON Schema, as readable lines (empty: valid). */
function problems(validate: ((v: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null }, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

export function resultProblems(value: unknown): string[] {
  const ajv = addFormats(new Ajv({ allErrors: true }));
  return problems(ajv.compile(JSON.parse(readFileSync(join(specDir, 'result.schema.json'), 'utf8'))), value);
}

/** HAR 1.2 as the har-schema package describes it (the schemas behind har-validator). */
export function harProblems(value: unknown): string[] {
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  const schemas = require('har-schema') as Record<string, object>;
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return problems(ajv.getSchema('har.json#') as never, value);
}

export const hasXmllint = (() => {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Validates a JUnit file against the project's JUnit XSD with libxml2; returns xmllint's complaints. */
export function junitProblems(file: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', join(projectRoot, 'test/support/junit.xsd'), file], { stdio: 'pipe' });
    return '';
  } catch (e) {
    return String((e as { stderr?: Buffer }).stderr ?? e);
  }
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
