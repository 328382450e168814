import type { Operation, Spec } from './spec.ts';

/** The operations of one resource, by what they do (read from the spec by method and path shape). */
export interface ResourceOps {
  list?: Operation;
  create?: Operation;
  find?: Operation;
  update?: Operation;
  remove?: Operation;
}

const KIND: Record<string, [collection: keyof ResourceOps, item: keyof ResourceOps]> = {
  GET: ['list', 'find'],
  POST: ['create', 'create'],
  PATCH: ['update', 'update'],
  DELETE: ['remove', 'remove'],
};

export function resourceOps(spec: Spec, resource: string): ResourceOps {
  const ops: ResourceOps = {};
  for (const op of spec.operations.filter((o) => o.resource === resource)) {
    const kind = KIND[op.method];
    if (kind) ops[kind[op.itemPath ? 1 : 0]] = op;
  }
  return ops;
}

/** Every resource the spec documents, with its operations, in the order the spec first names each. */
export function everyResource(spec: Spec): { resource: string; ops: ResourceOps }[] {
  return [...new Set(spec.operations.map((o) => o.resource))].map((resource) => ({ resource, ops: resourceOps(spec, resource) }));
}

/** The resource whose operation addresses `path` (a path as sent, its id filled in), if any. */
export function resourceAt(spec: Spec, path: string): string | undefined {
  return spec.operations.find((o) => new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))?.resource;
}

/** The business is one record, addressed without an id: its retrieval and its update. */
export function businessOps(spec: Spec): { retrieve: Operation; update: Operation } {
  const { list: retrieve, update } = resourceOps(spec, 'business');
  if (!retrieve || !update) throw new Error('spec: the business needs a GET and a PATCH operation');
  return { retrieve, update };
}

/** The operations a suite is built on; a spec without them cannot drive it. */
export function requireOps<K extends keyof ResourceOps>(ops: ResourceOps, resource: string, kinds: K[]): Required<Pick<ResourceOps, K>> {
  for (const k of kinds) if (!ops[k]) throw new Error(`spec: resource ${resource} documents no ${k} operation`);
  return ops as Required<Pick<ResourceOps, K>>;
}

/**
 * A request the contract rules out (section 1: team members cannot be created or deleted), at the
 * path of a documented operation: the suite sends it to prove the target refuses it.
 */
export function undocumented(at: Operation, method: Operation['method'], operationId: string): Operation {
  return { ...at, method, operationId, summary: `${operationId} (not offered by the contract)`, success: 'none', otherStatuses: [] };
}
