import { loadCatalog, requirementOf, type CheckIdentity } from '../contract/catalog.ts';
import { loadSpec, type Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { checksOf, type Check, type Declare } from '../checks/definition.ts';
import { operationsChecks } from './operations.ts';
import { businessChecks } from './business.ts';
import { customerChecks } from './customers.ts';
import { teamMemberChecks } from './team-members.ts';
import { exploreChecks } from './explore.ts';
import { frameChecks } from './frame.ts';

/**
 * Every registry, in the order a run meets them: a smoke pass over every operation, then the
 * business, customers, and last the team members (whose create/delete probes could change data
 * on a broken target). The operations pass has suites/operations.test.ts; the resources are lanes
 * of suites/resources.test.ts.
 */
export const REGISTRIES = [
  listed('operations', operationsChecks),
  listed('business', businessChecks),
  listed('customers', customerChecks),
  listed('team-members', teamMemberChecks),
  listed('frame', frameChecks),
  listed('exploration', exploreChecks),
];

/** A check as the listing sees it: what it is, not how it runs. */
type Listed = Pick<Check<unknown>, 'id' | 'title' | 'changesData' | 'needs'>;

/** A registry as the listing sees it: the identity of its checks, whatever its checks share. */
function listed<C>(resource: string, declare: Declare<C>): { resource: string; checks(spec: Spec, target: TargetConfig): Listed[] } {
  return { resource, checks: (spec, target) => checksOf(declare(spec, target).entries) };
}

/** A check as the registries declare it, before anything runs. */
export interface DeclaredCheck extends CheckIdentity {
  /** The resource whose lane runs it, e.g. "business". */
  resource: string;
  /** Changes data on the target (left out of --read-only runs). */
  changesData: boolean;
  /** Checks whose work it judges: --only takes them with it. */
  needs: string[];
}

/**
 * Every check the registries declare for this target's configuration, in the order a run meets
 * them, with its level and clause from the catalog. Nothing is opened, so nothing is sent.
 */
export async function declaredChecks(target: TargetConfig): Promise<DeclaredCheck[]> {
  const spec = await loadSpec();
  const catalog = loadCatalog();
  return REGISTRIES.flatMap(({ resource, checks }) =>
    checks(spec, target).map((c) => {
      const requirement = catalog.byId.get(requirementOf(c.id));
      if (!requirement) throw new Error(`check ${c.id}: no requirement ${requirementOf(c.id)} in spec/requirements.yaml`);
      return { id: c.id, requirement: requirement.id, level: requirement.level, clause: requirement.clause, title: c.title, resource, changesData: Boolean(c.changesData), needs: [...(c.needs ?? [])] };
    }),
  );
}
