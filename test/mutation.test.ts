/**
 * Mutation testing (npm run mutation, StrykerJS; not run here): the configuration is well formed,
 * and spec/mutation-survivors.yaml triages exactly the survivors of the checked-in incremental
 * report, none of them a gap, each not-shown one naming a variation that exists.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

test('scripts/mutation/timeouts.sh re-runs each Timeout alone and tells a survivor, a slow kill and a hang apart', () => {
  // A stand-in for a Stryker sandbox: its "conformance run" passes mutant 1, fails mutant 2 and never ends for mutant 3.
  const sandbox = mkdtempSync(join(tmpdir(), 'scr-timeouts-'));
  mkdirSync(join(sandbox, 'bin'));
  writeFileSync(join(sandbox, 'bin/scheduling-conformance.js'), `const m = process.env.__STRYKER_ACTIVE_MUTANT__;
if (m === '3') setInterval(() => {}, 1000); else process.exit(m === '1' ? 0 : 1);`);
  const at = (id: string, line: number, status: string) => ({ id, mutatorName: 'BlockStatement', status, location: { start: { line, column: 1 }, end: { line, column: 2 } } });
  const report = join(sandbox, 'mutation.json');
  writeFileSync(report, JSON.stringify({ files: { 'reference/x.ts': { mutants: [at('1', 1, 'Timeout'), at('2', 2, 'Timeout'), at('3', 3, 'Timeout'), at('4', 4, 'Killed')] } } }));
  const out = execFileSync('sh', ['scripts/mutation/timeouts.sh', sandbox, 'reference/x.ts', '5'], { cwd: projectRoot, env: { ...process.env, MUTATION_REPORT: report }, encoding: 'utf8' });
  expect(out.split('\n').filter(Boolean).map((l) => l.replace(/ after \d+ s$/, ''))).toEqual([
    '1 reference/x.ts:1 BlockStatement: survives',
    '2 reference/x.ts:2 BlockStatement: killed (exit 1)',
    '3 reference/x.ts:3 BlockStatement: hangs',
  ]);
}, 60_000);
