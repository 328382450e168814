/**
 * spec/openapi.yaml as the ecosystem's tools read it: Redocly's recommended rules find nothing,
 * and every rule the checked-in redocly.yaml turns off is explained by a statement of the contract.
 */
import { lint, loadConfig } from '@redocly/openapi-core';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isMap, isScalar, parseDocument, type Pair } from 'yaml';
import { openapiPath, projectRoot } from '../helpers/core/paths.ts';

const configPath = join(projectRoot, 'redocly.yaml');
/** Where the spec says it was written from; absent in a checkout without the contract beside it. */
const contractPath = join(projectRoot, '..', 'shared', 'contract', 'scheduling-api-v1.md');

/** Each rule redocly.yaml turns off, with the comment above it. */
function rulesTurnedOff(): { rule: string; reason: string }[] {
  const rules = parseDocument(readFileSync(configPath, 'utf8')).get('rules');
  if (!isMap(rules)) return [];
  // The comment above a map's first pair belongs to the map itself.
  const commentAbove = (pair: Pair, i: number) => (i === 0 ? rules.commentBefore : (pair.key as { commentBefore?: string }).commentBefore) ?? '';
  return (rules.items as Pair[])
    .map((pair, i) => ({ pair, reason: commentAbove(pair, i) }))
    .filter(({ pair }) => (isMap(pair.value) ? pair.value.get('severity') : isScalar(pair.value) ? pair.value.value : undefined) === 'off')
    .map(({ pair, reason }) => ({ rule: String((pair.key as { value: unknown }).value), reason }));
}

const quotes = (text: string) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]);

describe('spec/openapi.yaml under redocly.yaml', () => {
  test('has no lint problem, error or warning', async () => {
    const config = await loadConfig({ configPath });
    const problems = await lint({ ref: openapiPath, config });
    const shown = problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer ?? '').join(', ')}: ${p.message}`);
    expect(shown).toEqual([]);
  });

  test('extends the recommended rules and turns off only rules whose comment quotes a contract section', () => {
    expect(parseDocument(readFileSync(configPath, 'utf8')).toJS().extends).toEqual(['recommended']);
    const off = rulesTurnedOff();
    expect(off.length).toBeGreaterThan(0);
    for (const { rule, reason } of off) {
      expect(reason, `${rule} is turned off without a reason`).toMatch(/Section \d/);
      expect(quotes(reason).some((q) => q.endsWith('not shown.')), `${rule}: its reason quotes no "not shown" statement`).toBe(true);
    }
  });

  test.skipIf(!existsSync(contractPath))('quotes the contract verbatim where it turns a rule off', () => {
    const contract = readFileSync(contractPath, 'utf8');
    const misquoted = rulesTurnedOff().flatMap(({ rule, reason }) => quotes(reason).filter((q) => !contract.includes(q)).map((q) => `${rule}: "${q}"`));
    expect(misquoted).toEqual([]);
  });
});
