import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// OpenAPI 3.1 schemas are JSON Schema 2020-12; the spec's own `x-` notes are not keywords to enforce.
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const compiled = new WeakMap<object, ReturnType<Ajv2020['compile']>>();

/** Validates a value against a schema from the spec; returns the problems, empty when valid. */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`);
}
