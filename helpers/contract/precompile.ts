import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Code } from 'ajv';
import { openapiPath } from '../core/paths.ts';
import { readCatalog } from './catalog.ts';
import { dataDir, MANIFEST, schemaKey, sourcesHash, VALIDATORS } from './precompiled.ts';
import { newSchemaAjv } from './schema.ts';
import { readSpec } from './spec.ts';

const require = createRequire(import.meta.url);

/**
 * Writes dist/data (see precompiled.ts), run by the build: the validated and dereferenced spec,
 * the catalog, and every documented response schema compiled to standalone validator code. The
 * manifest, written last, names the sources' hash: data without it is never used.
 */
export async function writePrecompiled(dir = dataDir): Promise<void> {
  // Hashed first: a source edited while this runs makes data that a run will not use.
  const sources = sourcesHash();
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    mkdirSync(tmp, { recursive: true });
    const spec = await readSpec(openapiPath, { validate: true });
    writeFileSync(join(tmp, 'spec.json'), JSON.stringify(spec));
    writeFileSync(join(tmp, 'catalog.json'), JSON.stringify(readCatalog()));

    const { _ } = require('ajv') as typeof import('ajv');
    const { default: standaloneCode } = require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
    const ajv = newSchemaAjv({ code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` as Code } });
    const refs: Record<string, string> = {};
    for (const op of spec.operations) {
      if (!op.successSchema) continue;
      const key = schemaKey(op.successSchema);
      if (refs[key]) continue;
      ajv.addSchema(op.successSchema, key);
      refs[key] = key;
    }
    writeFileSync(join(tmp, VALIDATORS), standaloneCode(ajv, refs));
    writeFileSync(join(tmp, MANIFEST), JSON.stringify({ sources }));
    // Runs started at the same time may build at the same time: the directory appears whole (a
    // run that finds none meanwhile derives the data itself).
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(tmp, dir);
    } catch {
      // Another build's directory came first: it is the same data.
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
