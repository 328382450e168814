import SwaggerParser from '@apidevtools/swagger-parser';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openapiPath, projectRoot } from '../helpers/core/paths.ts';
import { loadSpec } from '../helpers/contract/spec.ts';

type Json = Record<string, any>;

/** Where the spec says it was written from; absent in a checkout without the contract beside it. */
const contractPath = join(projectRoot, '..', 'shared', 'contract', 'scheduling-api-v1.md');

/** Each operation of the spec as written (not dereferenced), with its method and path. */
async function rawOperations(): Promise<{ method: string; path: string; op: Json }[]> {
  const doc = (await SwaggerParser.parse(openapiPath)) as Json;
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).filter(([, op]) => op.operationId).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** The line of an operation's description that is its row of the contract's endpoint table. */
const contractRow = (op: Json) => String(op.description ?? '').split('\n').find((line) => line.startsWith(`| ${op.summary} |`));

describe('spec/openapi.yaml', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const api = (await SwaggerParser.validate(openapiPath)) as { openapi: string };
    expect(api.openapi).toMatch(/^3\.1\./);
  });

  test('describes exactly the ten documented operations', async () => {
    const spec = await loadSpec();
    expect(spec.operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'DELETE /api/v1/customers/{id}',
      'GET /api/v1/business',
      'GET /api/v1/customers',
      'GET /api/v1/customers/{id}',
      'GET /api/v1/team-members',
      'GET /api/v1/team-members/{id}',
      'PATCH /api/v1/business',
      'PATCH /api/v1/customers/{id}',
      'PATCH /api/v1/team-members/{id}',
      'POST /api/v1/customers',
    ]);
    expect(new Set(spec.operations.map((o) => o.operationId)).size).toBe(10);
  });

  test('puts the bearer scheme and a 401 answer on the two business operations only', async () => {
    const spec = await loadSpec();
    const secured = spec.operations.filter((o) => o.secured);
    expect(secured.map((o) => o.operationId).sort()).toEqual(['retrieveBusiness', 'updateBusiness']);
    for (const op of secured) expect(op.otherStatuses).toContain('401');
  });

  test('lets the customer and team-member operations take the key or none, their authentication not being shown', async () => {
    const keyOrNone = (await rawOperations()).map((o) => o.op).filter((op) => JSON.stringify(op.security) === JSON.stringify([{ bearerAuth: [] }, {}]));
    expect(keyOrNone.map((op) => op.operationId).sort()).toEqual(
      ['createCustomer', 'deleteCustomer', 'findCustomer', 'findTeamMember', 'listCustomers', 'listTeamMembers', 'updateCustomer', 'updateTeamMember'],
    );
    const spec = await loadSpec();
    expect(spec.operations.filter((o) => keyOrNone.some((op) => op.operationId === o.operationId) && o.secured)).toEqual([]);
  });

  test("quotes each operation's row of the contract's endpoint table in its description", async () => {
    for (const { method, path, op } of await rawOperations()) expect(contractRow(op), op.operationId).toContain(`| ${op.summary} | ${method} | ${path} |`);
  });

  test.skipIf(!existsSync(contractPath))('quotes the contract verbatim: the rows, and what tags and the security scheme put in quotes', async () => {
    const contract = readFileSync(contractPath, 'utf8');
    const misquoted = (await rawOperations()).filter(({ op }) => !contract.split('\n').includes(contractRow(op) ?? '')).map(({ op }) => op.operationId);
    const doc = (await SwaggerParser.parse(openapiPath)) as Json;
    const described = [...doc.tags, ...Object.values<Json>(doc.components.securitySchemes)].map((t) => String(t.description));
    const quoted = described.flatMap((d) => [...d.matchAll(/"([^"]+)"/g)].map((m) => m[1]));
    expect(quoted.length).toBeGreaterThan(0);
    expect([...misquoted, ...quoted.filter((q) => !contract.includes(q))]).toEqual([]);
  });

  test('lists the seventeen documented business fields with their documented types', async () => {
    const spec = await loadSpec();
    const fields = Object.fromEntries(spec.businessFields.map((f) => [f.specName, f.types.join('|')]));
    expect(Object.keys(fields)).toHaveLength(17);
    expect(fields).toMatchObject({ name: 'string', email: 'string', currencyIso: 'string', timeZone: 'string', businessHours: 'array', useGdprCompliance: 'boolean' });
    const nullable = spec.businessFields.filter((f) => f.nullable).map((f) => f.specName);
    expect(nullable.sort()).toEqual(
      ['address', 'facebookUrl', 'instagramUrl', 'linkedInUrl', 'phoneNumber', 'privacyPolicyUrl', 'termsAndConditionsUrl', 'tikTokUrl', 'twitterUrl', 'websiteUrl', 'youTubeUrl'].sort(),
    );
    expect(spec.businessFields.find((f) => f.specName === 'email')?.vendorConfigKey).toBe('businessEmailField');
  });
});
