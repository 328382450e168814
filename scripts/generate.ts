/**
 * Writes every generated file: the id types (from spec/requirements.yaml and the fault catalog)
 * and spec/coverage.md (from the registries, and the source lines declaring checks and faults). Run it after adding or
 * renaming a requirement, a check or a fault: `npm run generate`.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { loadCatalog } from '../helpers/contract/catalog.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { FAULTS } from '../reference/faults/index.ts';
import { checkSites, faultSites } from './source-sites.ts';
import { faultNamesPath, renderFaultNames, renderRequirementIds, renderVariationNames, requirementIdsPath, variationNamesPath } from './typed-ids.ts';
import { VARIATIONS } from '../reference/variations.ts';
import { coveragePath, listChecks, renderCoverage } from './coverage-matrix.ts';

function write(path: string, text: string, what: string): void {
  writeFileSync(path, text);
  console.log(`wrote ${relative(projectRoot, path)}: ${what}`);
}

const catalog = loadCatalog();
write(requirementIdsPath, renderRequirementIds(catalog), `${catalog.requirements.length} requirement ids`);
write(faultNamesPath, renderFaultNames(FAULTS), `${FAULTS.length} fault names`);
write(variationNamesPath, renderVariationNames(VARIATIONS), `${VARIATIONS.length} variation names`);
try {
  const checks = await listChecks();
  write(coveragePath, renderCoverage(checks, checkSites(), faultSites()), `${checks.length} checks`);
} catch (e) {
  console.error(`spec/coverage.md not written: ${(e as Error).message}`);
  process.exitCode = 1;
}
