import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { requirementsPath } from '../core/paths.ts';
import { readPrecompiled } from './precompiled.ts';
import type { MustRequirementId, NotShownKey, RequirementIdPrefix, ShouldRequirementId } from './requirement-ids.generated.ts';

export type { MustRequirementId, NotShownKey, RequirementIdPrefix, ShouldRequirementId };

export type Level = 'MUST' | 'SHOULD';

/** A requirement id of spec/requirements.yaml (the union is generated: `npm run generate`). */
export type RequirementId = MustRequirementId | ShouldRequirementId;

/** The id of a check of one of the requirements R: the requirement id, optionally ":" and the variant it checks. */
export type CheckIdOf<R extends RequirementId> = R | `${R}:${string}`;

/** A check id, e.g. BUS-UPDATE-APPLIES:name. */
export type CheckId = CheckIdOf<RequirementId>;

export interface Requirement {
  id: string;
  level: Level;
  clause: string;
  operations: string[];
  text: string;
  /**
   * The not-applicable reason for which this MUST requirement may stay untested in a conformant
   * verdict (only the vendor can supply the means, e.g. an expired key); absent: it must be proven.
   */
  untestedIf?: string;
}

export interface NotChecked {
  /** Names the statement (reference/variations.ts: the realistic choices standing for it). */
  key: NotShownKey;
  clause: string;
  statement: string;
  why: string;
}

/** The catalog as the file states it (what the build precompiles: precompiled.ts). */
export interface CatalogData {
  requirements: Requirement[];
  notChecked: NotChecked[];
}

export interface Catalog extends CatalogData {
  byId: Map<string, Requirement>;
}

let cached: Catalog | undefined;

/**
 * The requirement catalog, read synchronously: check definitions need it at collection time.
 * spec/requirements.yaml as the build parsed it (dist/data, while the file is unchanged), else parsed now.
 */
export function loadCatalog(file = requirementsPath): Catalog {
  if (cached && file === requirementsPath) return cached;
  const data = (file === requirementsPath && readPrecompiled<CatalogData>('catalog')) || readCatalog(file);
  const catalog: Catalog = { ...data, byId: new Map(data.requirements.map((r) => [r.id, r])) };
  if (file === requirementsPath) cached = catalog;
  return catalog;
}

export function readCatalog(file = requirementsPath): CatalogData {
  // The YAML parser is loaded only here: a run with the precompiled catalog never needs it.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const raw = parse(readFileSync(file, 'utf8')) as {
    requirements: (Omit<Requirement, 'untestedIf'> & { 'untested-if'?: string })[];
    'not-checked': NotChecked[];
  };
  const requirements = raw.requirements.map(({ 'untested-if': untestedIf, ...r }) => ({ ...r, ...(untestedIf ? { untestedIf } : {}) }));
  return { requirements, notChecked: raw['not-checked'] ?? [] };
}

/** A check id is a requirement id, optionally followed by ":" and the variant it checks. */
/**
 * What names a check and where it comes from, the same wherever a check is held: declared in a
 * suite (CheckMeta), listed before a run (DeclaredCheck), collected (CollectedCheck), reported
 * (ReportedCheck).
 */
export interface CheckIdentity {
  /** The check id: the requirement id, optionally ":" and a variant. */
  id: string;
  requirement: string;
  level: Level;
  clause: string;
  title: string;
}

export function requirementOf(checkId: string): string {
  return checkId.split(':')[0];
}
