/**
 * Mutation testing (npm run mutation, StrykerJS; not run here): the configuration is well formed,
 * and spec/mutation-survivors.yaml triages exactly the survivors of the checked-in incremental
 * report, none of them a gap, each not-shown one naming a variation that exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, test } from 'vitest';
import { projectRoot } from '../helpers/core/paths.ts';
import { variationNamed } from '../reference/variations.ts';
import { survivors } from '../scripts/mutation/report.ts';

const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');

test('npm run mutation runs StrykerJS over the reference with the command runner, incrementally', () => {
  const config = JSON.parse(read('stryker.config.json'));
  expect(JSON.parse(read('package.json')).scripts.mutation).toBe('stryker run');
  expect(config).toMatchObject({ testRunner: 'command', coverageAnalysis: 'off', incremental: true, incrementalFile: 'spec/mutation-incremental.json' });
  expect(config.mutate).toEqual(['reference/routes/**/*.ts', 'reference/state.ts', 'reference/seed.ts']);
  expect(config.concurrency).toBeLessThanOrEqual(2);
});

test('every survivor is triaged, none is a gap, and each not-shown one names a variation', () => {
  const entries = parse(read('spec/mutation-survivors.yaml')).survivors as { id: string; at: string; mutator: string; class: string; variation?: string; reason: string }[];
  expect(entries.map((e) => e.id).sort()).toEqual(survivors().map((s) => s.id).sort());
  for (const e of entries) {
    expect(['equivalent', 'not-shown'], `${e.id} at ${e.at}`).toContain(e.class);
    expect(e.reason, e.id).toMatch(/\w{3}/);
    expect(e.at, e.id).toMatch(/^reference\/\S+\.ts:\d+$/);
    if (e.class === 'not-shown') expect(variationNamed(e.variation ?? ''), `${e.id}: variation ${e.variation}`).toBeDefined();
  }
});
