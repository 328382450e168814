import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths.ts';

/** The suite's version, as package.json says: reports and certification bundles name it. */
export const suiteVersion: string = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).version;
