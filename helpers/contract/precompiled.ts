import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { openapiPath, projectRoot, requirementsPath } from '../core/paths.ts';

/**
 * Data the build (scripts/build.mjs → precompile.ts) derives from the spec once, so that a run
 * starts without validating and dereferencing the OpenAPI document, parsing YAML or compiling
 * schemas: the spec as loadSpec() returns it, the requirement catalog, and the response
 * validators as standalone ajv code. Each is used only while the sources it was derived from are
 * byte for byte those of the build; otherwise the callers derive it at run time, as without a build.
 */
export const dataDir = join(projectRoot, 'dist', 'data');

/** What the data is derived from: the spec files, and the code that derives it. */
export const DATA_SOURCES = [
  openapiPath,
  requirementsPath,
  ...['spec.ts', 'catalog.ts', 'schema.ts', 'precompile.ts'].map((f) => join(projectRoot, 'helpers', 'contract', f)),
];

export const MANIFEST = 'manifest.json';

/** One hash over the sources, in order; a source that cannot be read makes a hash no build has. */
export function sourcesHash(files: string[] = DATA_SOURCES): string {
  const hash = createHash('sha256');
  for (const file of files) {
    let bytes: Buffer | string;
    try {
      bytes = readFileSync(file);
    } catch {
      bytes = `missing ${file}`;
    }
    hash.update(createHash('sha256').update(bytes).digest('hex'));
  }
  return hash.digest('hex');
}

let currentHash: string | undefined;
/** Whether the data in `dir` was built from the sources as they are now. */
function isCurrent(dir: string, files?: string[]): boolean {
  let manifest: { sources?: string };
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return false;
  }
  const now = files ? sourcesHash(files) : (currentHash ??= sourcesHash());
  return manifest.sources === now;
}

/** The precompiled JSON `name` (spec, catalog), or undefined when missing or stale. */
export function readPrecompiled<T>(name: 'spec' | 'catalog', dir = dataDir, files?: string[]): T | undefined {
  if (!isCurrent(dir, files)) return undefined;
  try {
    return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** A standalone validator: ajv's compiled function, with the `errors` of its last call. */
export type StandaloneValidate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

export const VALIDATORS = 'validators.cjs';

/** The key of a schema among the precompiled validators: its content. */
export const schemaKey = (schema: unknown) => `s${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 32)}`;

/** The precompiled response validators by schemaKey, or undefined when missing or stale. */
export function precompiledValidators(dir = dataDir, files?: string[]): Record<string, StandaloneValidate> | undefined {
  if (!isCurrent(dir, files)) return undefined;
  try {
    // ajv's standalone code is CommonJS (it requires ajv's runtime helpers).
    return createRequire(import.meta.url)(join(dir, VALIDATORS)) as Record<string, StandaloneValidate>;
  } catch {
    return undefined;
  }
}
