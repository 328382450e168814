import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The checkout's root: every project file is found from here, whatever the working directory. */
export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const specDir = join(projectRoot, 'spec');
export const openapiPath = join(specDir, 'openapi.yaml');
export const requirementsPath = join(specDir, 'requirements.yaml');
export const vendorConfigSchemaPath = join(specDir, 'vendor-config.schema.json');
