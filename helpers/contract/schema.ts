import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import { precompiledValidators, schemaKey, type StandaloneValidate } from './precompiled.ts';

const require = createRequire(import.meta.url);

/**
 * The options every response validator is compiled with, at run time (below) and by the build
 * (precompile.ts): OpenAPI 3.1 schemas are JSON Schema 2020-12; the spec's own `x-` notes are not
 * keywords to enforce.
 */
export const AJV_OPTIONS = { allErrors: true, strict: false } as const;

/** A validator of the spec's schemas; ajv is loaded only when a schema was not precompiled. */
export function newSchemaAjv(options: Record<string, unknown> = {}): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
  return addFormats(new Ajv2020({ ...AJV_OPTIONS, ...options }));
}

let ajv: Ajv2020 | undefined;
let precompiled: Record<string, StandaloneValidate> | undefined | null = null;
const compiled = new WeakMap<object, StandaloneValidate>();

/** The validator of a schema: the build's (dist/data) when current, else compiled now. */
function validatorOf(schema: Record<string, unknown>): StandaloneValidate {
  let validate = compiled.get(schema);
  if (!validate) {
    if (precompiled === null) precompiled = precompiledValidators();
    validate = precompiled?.[schemaKey(schema)] ?? (ajv ??= newSchemaAjv()).compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validates a value against a schema from the spec; returns the problems, empty when valid. */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`);
}
