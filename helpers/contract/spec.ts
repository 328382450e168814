import { isMainThread } from 'node:worker_threads';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openapiPath } from '../core/paths.ts';
import { readPrecompiled } from './precompiled.ts';

/** One documented operation, as the suites need it: everything here is read from spec/openapi.yaml. */
export interface Operation {
  operationId: string;
  summary: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path template, e.g. /api/v1/customers/{id}. */
  path: string;
  /** First tag: the resource the operation belongs to (customers, business, team-members). */
  resource: string;
  /**
   * Whether the spec requires a security scheme (the contract's documented auth). An operation
   * whose alternatives include the empty requirement `{}` ("a key or none") is not secured: that
   * is how the spec says its authentication is not shown.
   */
  secured: boolean;
  /** The documented success: an exact status ("200") or a class ("2XX"). */
  success: string;
  /** The documented status codes other than success, e.g. ["401"]. */
  otherStatuses: string[];
  /** Whether the path names a record by {id}. */
  itemPath: boolean;
  /** The collection the record belongs to (the path without its {id}). */
  collectionPath: string;
  hasRequestBody: boolean;
  /**
   * The headers whose value the spec fixes, by their spec name: each header parameter with a
   * `const`, and Content-Type, the media type of the request body (section 4's header table of
   * the business operations: Accept and Content-Type are application/json).
   */
  declaredHeaders: Record<string, string>;
  /** JSON Schema of the documented success body, when the spec documents a JSON one. */
  successSchema?: Record<string, unknown>;
  clause: string;
}

/** A field of the business update schema, with the types the contract documents. */
export interface BusinessField {
  /** The name in the spec (email is named `email` there; see vendorName). */
  specName: string;
  types: string[];
  nullable: boolean;
  description: string;
  /** Name of the vendor config key that renames the field, if the contract does not show its name. */
  vendorConfigKey?: string;
  /** For arrays: whether the element structure is documented (WorkHours' is not). */
  itemsShown: boolean;
}

export interface Spec {
  operations: Operation[];
  businessFields: BusinessField[];
  /** SHA-256 of spec/openapi.yaml as checked in: reports name the exact spec they were held to. */
  sha256: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Json = Record<string, any>;

let cached: Promise<Spec> | undefined;

/**
 * The spec, once per process (thread): as the build validated and derived it (dist/data, while
 * spec/openapi.yaml is the one it was built from: precompiled.ts), else read now. Read now, the
 * command's main thread also validates it against the OpenAPI schema before any suite starts; a
 * suite worker reads the same file in the same run, so it only dereferences (validating again
 * cost ~0.4 s of CPU a run).
 */
export function loadSpec(): Promise<Spec> {
  cached ??= Promise.resolve(readPrecompiled<Spec>('spec') ?? readSpec(openapiPath, { validate: isMainThread }));
  return cached;
}

export async function readSpec(file: string, options: { validate: boolean } = { validate: true }): Promise<Spec> {
  // Loaded only here: with the precompiled spec a run never loads the parser (nor its ajv).
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  const doc = (await (options.validate ? SwaggerParser.validate(file) : SwaggerParser.dereference(file))) as Json;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const statuses = Object.keys(op.responses ?? {});
      const success = statuses.find((s) => /^2/.test(s));
      if (!success) throw new Error(`spec: ${op.operationId} documents no success response`);
      const security: Json[] = op.security ?? doc.security ?? [];
      operations.push({
        operationId: op.operationId,
        summary: op.summary ?? op.operationId,
        method: method.toUpperCase() as Operation['method'],
        path,
        resource: (op.tags ?? ['other'])[0],
        secured: security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
        success,
        otherStatuses: statuses.filter((s) => s !== success),
        itemPath: /\{[^}]+\}$/.test(path),
        collectionPath: path.replace(/\/\{[^}]+\}$/, ''),
        hasRequestBody: Boolean(op.requestBody),
        declaredHeaders: {
          ...Object.fromEntries(([...(item.parameters ?? []), ...(op.parameters ?? [])] as Json[]).filter((p) => p.in === 'header' && p.schema?.const !== undefined).map((p) => [p.name, String(p.schema.const)])),
          ...(op.requestBody?.content && { 'Content-Type': Object.keys(op.requestBody.content)[0] }),
        },
        successSchema: op.responses[success]?.content?.['application/json']?.schema,
        clause: String(op['x-clause'] ?? ''),
      });
    }
  }
  const update = doc.components?.schemas?.BusinessUpdate as Json | undefined;
  const businessFields: BusinessField[] = Object.entries<Json>(update?.properties ?? {}).map(
    ([specName, schema]) => {
      const types = ([] as string[]).concat(schema.type ?? []);
      return {
        specName,
        types,
        nullable: types.includes('null'),
        description: schema.description ?? '',
        vendorConfigKey: schema['x-vendor-config'],
        itemsShown: Boolean(schema.items && !schema.items['x-not-shown']),
      };
    },
  );
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  return { operations, businessFields, sha256 };
}

/** Whether a status satisfies a documented one ("200" exactly, "2XX" any of the class). */
export function statusMatches(documented: string, status: number): boolean {
  if (/^\dXX$/i.test(documented)) return String(status)[0] === documented[0];
  return String(status) === documented;
}
