/**
 * What the build derives into dist/data (the spec, the catalog, the response validators) is
 * exactly what a run would derive itself, and is used only while its sources are the build's.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openapiPath } from '../helpers/core/paths.ts';
import { readCatalog } from '../helpers/contract/catalog.ts';
import { dataDir, DATA_SOURCES, MANIFEST, precompiledValidators, readPrecompiled, schemaKey } from '../helpers/contract/precompiled.ts';
import { newSchemaAjv } from '../helpers/contract/schema.ts';
import { readSpec, type Spec } from '../helpers/contract/spec.ts';

// dist/data is written by the build (test/build-dist.ts runs it when stale): a run uses it instead
// of deriving the same at every start, so it must be exactly what deriving gives.
describe('precompiled data (dist/data)', () => {
  test('the spec is the validated, dereferenced spec/openapi.yaml', async () => {
    const precompiled = readPrecompiled<Spec>('spec');
    expect(precompiled).toBeDefined();
    expect(precompiled).toStrictEqual(JSON.parse(JSON.stringify(await readSpec(openapiPath, { validate: true }))));
  });

  test('the catalog is spec/requirements.yaml as parsed', () => {
    const precompiled = readPrecompiled('catalog');
    expect(precompiled).toBeDefined();
    expect(precompiled).toStrictEqual(JSON.parse(JSON.stringify(readCatalog())));
  });

  test('each documented response schema has a validator that judges as ajv compiling it now', async () => {
    const validators = precompiledValidators();
    expect(validators).toBeDefined();
    const ajv = newSchemaAjv();
    const values = [null, 'x', 1, {}, [], [{}], [1], [{ id: 'a' }], { data: [] }, { data: [{ id: 1 }] }, { a: [], b: [] }, { name: 'n', email: 'e', businessHours: [] }];
    const schemas = (await readSpec(openapiPath)).operations.flatMap((o) => (o.successSchema ? [o.successSchema] : []));
    expect(schemas.length).toBeGreaterThan(0);
    for (const schema of schemas) {
      const precompiled = validators![schemaKey(schema)];
      expect(precompiled, JSON.stringify(schema).slice(0, 80)).toBeTypeOf('function');
      const now = ajv.compile(schema);
      for (const value of values) {
        expect([precompiled(value), precompiled.errors ?? null]).toEqual([now(value), now.errors ?? null]);
      }
    }
  });

  test('data built from other sources is not used: the run derives it then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scr-data-'));
    cpSync(dataDir, dir, { recursive: true });
    expect(readPrecompiled('spec', dir)).toBeDefined();
    // A spec edited since the build (a copy, one byte changed).
    const edited = join(dir, 'openapi.yaml');
    writeFileSync(edited, `${readFileSync(openapiPath, 'utf8')} `);
    const files = DATA_SOURCES.map((f) => (f === openapiPath ? edited : f));
    expect(readPrecompiled('spec', dir, files)).toBeUndefined();
    expect(readPrecompiled('catalog', dir, files)).toBeUndefined();
    expect(precompiledValidators(dir, files)).toBeUndefined();
    // A manifest naming other sources.
    writeFileSync(join(dir, MANIFEST), JSON.stringify({ sources: '0'.repeat(64) }));
    expect(readPrecompiled('spec', dir)).toBeUndefined();
    expect(precompiledValidators(dir)).toBeUndefined();
  });
});
