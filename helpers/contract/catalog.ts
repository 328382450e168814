import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { requirementsPath } from '../command/paths.ts';
import type { MustRequirementId, RequirementIdPrefix, ShouldRequirementId } from './requirement-ids.generated.ts';

export type { MustRequirementId, RequirementIdPrefix, ShouldRequirementId };

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
  clause: string;
  statement: string;
  why: string;
}

export interface Catalog {
  requirements: Requirement[];
  notChecked: NotChecked[];
  byId: Map<string, Requirement>;
}

let cached: Catalog | undefined;

/** The requirement catalog, read synchronously: check definitions need it at collection time. */
export function loadCatalog(file = requirementsPath): Catalog {
  if (cached && file === requirementsPath) return cached;
  const raw = parse(readFileSync(file, 'utf8')) as {
    requirements: (Omit<Requirement, 'untestedIf'> & { 'untested-if'?: string })[];
    'not-checked': NotChecked[];
  };
  const requirements = raw.requirements.map(({ 'untested-if': untestedIf, ...r }) => ({ ...r, ...(untestedIf ? { untestedIf } : {}) }));
  const catalog: Catalog = {
    requirements,
    notChecked: raw['not-checked'] ?? [],
    byId: new Map(requirements.map((r) => [r.id, r])),
  };
  if (file === requirementsPath) cached = catalog;
  return catalog;
}

/** A check id is a requirement id, optionally followed by ":" and the variant it checks. */
export function requirementOf(checkId: string): string {
  return checkId.split(':')[0];
}
