import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';

/** Where the code runs from: the checkout, or its compiled copy in dist/ (scripts/build.mjs). */
export const codeRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The checkout's root: every project file is found from here, whatever the working directory. */
export const projectRoot = basename(codeRoot) === 'dist' ? dirname(codeRoot) : codeRoot;
export const specDir = join(projectRoot, 'spec');
export const openapiPath = join(specDir, 'openapi.yaml');
export const requirementsPath = join(specDir, 'requirements.yaml');
export const vendorConfigSchemaPath = join(specDir, 'vendor-config.schema.json');

/**
 * The suite's own cache (vite's, the transformed suite files): in the user's cache folder
 * (XDG_CACHE_HOME, else ~/.cache), one folder per installed copy, never inside node_modules,
 * which belongs to the package manager.
 */
export const cacheRoot = join(
  process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
  'scheduling-conformance',
  createHash('sha256').update(projectRoot).digest('hex').slice(0, 16),
);
