/**
 * The examples of spec/openapi.yaml: generated from the reference implementation's seed data
 * (one source), and each valid against the schema it illustrates.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openapiPath } from '../helpers/core/paths.ts';
import { schemaProblems } from '../helpers/contract/schema.ts';
import { withSeedExamples } from '../scripts/openapi-examples.ts';

type Json = Record<string, any>;

interface Illustrated {
  where: string;
  schema: Json;
  value: unknown;
}

/** Every example of a path parameter or a request or response body, with the schema it illustrates. */
function illustrated(doc: Json): Illustrated[] {
  const found: Illustrated[] = [];
  const collect = (where: string, content: Json | undefined) => {
    for (const [type, media] of Object.entries<Json>(content ?? {})) {
      for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
        found.push({ where: `${where} ${type} ${name}`, schema: media.schema ?? {}, value: example.value });
      }
    }
  };
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const parameter of item.parameters ?? []) {
      for (const [name, example] of Object.entries<Json>(parameter.examples ?? {})) found.push({ where: `${path} ${parameter.name} ${name}`, schema: parameter.schema ?? {}, value: example.value });
    }
    for (const [method, op] of Object.entries<Json>(item)) {
      if (typeof op !== 'object' || !op.operationId) continue;
      collect(`${op.operationId} request`, op.requestBody?.content);
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) collect(`${method.toUpperCase()} ${path} ${status}`, response.content);
    }
  }
  return found;
}

describe('spec/openapi.yaml examples', () => {
  test('are what the reference seed holds (run `npm run examples`)', async () => {
    const text = readFileSync(openapiPath, 'utf8');
    expect(text).toBe(await withSeedExamples(text));
  });

  test('each validates against the schema of what it illustrates', async () => {
    const doc = (await SwaggerParser.dereference(openapiPath)) as Json;
    const examples = illustrated(doc);
    // Every id and JSON body the spec documents has one: the lists and finds, create, the updates, the business.
    expect(examples.map((e) => e.where.split(' ')[0]).sort()).toEqual(
      ['/api/v1/customers/{id}', '/api/v1/team-members/{id}', 'GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'createCustomer', 'updateBusiness', 'updateBusiness', 'updateCustomer', 'updateTeamMember'].sort(),
    );
    const invalid = examples.flatMap((e) => schemaProblems(e.schema, e.value).map((p) => `${e.where}: ${p}`));
    expect(invalid).toEqual([]);
    // The business record's fields under a documented update name carry the documented type.
    const business = examples.find((e) => e.where.startsWith('GET /api/v1/business 200'));
    expect(business && schemaProblems(doc.components.schemas.BusinessUpdate, business.value)).toEqual([]);
  });
});
