import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, test } from 'vitest';
import { openapiPath } from '../helpers/command/paths.ts';
import { loadSpec } from '../helpers/contract/spec.ts';

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
