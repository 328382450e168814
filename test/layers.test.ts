/**
 * Imports point one way: down the declared layer order, never up, never across to a sibling, and
 * never between the main process and the suite worker (vitest's runtime: `inject`, `test`). No
 * file imports itself back through others. The imports are parsed by TypeScript, type-only ones
 * and `import()` included.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectRoot } from '../helpers/core/paths.ts';
import { cycles, importsOf, sourceFiles, type Edge } from './support/import-graph.ts';

type Side = 'main' | 'worker';
interface Layer {
  path: string;
  rank: number;
  /** Main-process code and suite-worker code sit side by side above the shared layers and never import each other. */
  side?: Side;
}

/** Bottom to top; README "Where things live" describes each. */
const LAYERS: Layer[] = [
  { path: 'helpers/core', rank: 0 },
  { path: 'helpers/contract', rank: 1 },
  { path: 'helpers/config', rank: 2 },
  { path: 'helpers/http', rank: 3 },
  { path: 'helpers/records', rank: 4 },
  { path: 'helpers/model', rank: 4 },
  { path: 'helpers/safety', rank: 5 },
  { path: 'helpers/checks', rank: 6 },
  { path: 'helpers/resources', rank: 7 },
  { path: 'helpers/explore', rank: 7.5 },
  { path: 'helpers/registries', rank: 8 },
  { path: 'helpers/vitest', rank: 9, side: 'worker' },
  { path: 'suites', rank: 10, side: 'worker' },
  { path: 'reference', rank: 6, side: 'main' },
  { path: 'helpers/results', rank: 6, side: 'main' },
  { path: 'helpers/command', rank: 9, side: 'main' },
  { path: 'helpers/api.ts', rank: 10, side: 'main' },
];

const layerOf = (file: string): Layer | undefined =>
  LAYERS.filter((l) => file === l.path || file.startsWith(`${l.path}/`)).sort((a, b) => b.path.length - a.path.length)[0];

/** Why an import breaks the layering, or undefined when it points down (or stays in its folder). */
export function misdirected(edge: Edge): string | undefined {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (!from) return undefined;
  if (!to) return `imports ${edge.to}, which is in no layer`;
  if (from === to) return undefined;
  if (from.side && to.side && from.side !== to.side) return `${from.side} code imports ${to.side} code (${to.path})`;
  if (to.rank > from.rank) return `imports the higher layer ${to.path}`;
  if (to.rank === from.rank) return `imports its sibling ${to.path}`;
  return undefined;
}

const files = sourceFiles(projectRoot, ['helpers', 'suites', 'reference']);
const edges = files.flatMap((file) => importsOf(projectRoot, file));

describe('the layers', () => {
  test('every source file belongs to a declared layer', () => {
    expect(files.filter((f) => !layerOf(f))).toEqual([]);
  });

  test('no import runs up, sideways or between the main process and the suite worker', () => {
    expect(edges.length).toBeGreaterThan(200);
    const wrong = edges.flatMap((e) => {
      const why = misdirected(e);
      return why ? [`${e.from}:${e.line} ${why}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  test("docs/architecture.md's \"Where things live\" names each layer where it is", () => {
    const section = readFileSync(join(projectRoot, 'docs/architecture.md'), 'utf8').split('\n### Where things live\n')[1]?.split('\n#')[0] ?? '';
    const rows = [...section.matchAll(/^\| (\d+(?:\.\d+)?) \|(.*)\|$/gm)].flatMap(([, rank, cells]) => [...cells.matchAll(/`([^`]+)`/g)].map(([, path]) => `${path.replace(/\/$/, '')} ${rank}`));
    expect(rows.sort()).toEqual(LAYERS.map((l) => `${l.path} ${l.rank}`).sort());
  });

  // The command lists the registries' checks in its own process: below the two sides, nothing loads vitest's runtime.
  test('only the two sides import vitest (types aside)', () => {
    const shared = files.filter((f) => !layerOf(f)?.side);
    const loading = shared.filter((f) => /^import (?!type )[^;]*from 'vitest(\/[^']*)?';/m.test(readFileSync(join(projectRoot, f), 'utf8')));
    expect(shared.length).toBeGreaterThan(50);
    expect(loading).toEqual([]);
  });

  test('no import cycle', () => {
    expect(cycles(edges)).toEqual([]);
  });

  test('the guard sees each kind of fault', () => {
    expect(misdirected({ from: 'helpers/contract/spec.ts', to: 'helpers/command/cli.ts', line: 1 })).toMatch(/higher layer helpers\/command/);
    expect(misdirected({ from: 'helpers/results/run-result.ts', to: 'helpers/vitest/check.ts', line: 1 })).toMatch(/main code imports worker code/);
    expect(misdirected({ from: 'helpers/records/compare.ts', to: 'helpers/model/check-meta.ts', line: 1 })).toMatch(/sibling/);
    expect(misdirected({ from: 'helpers/http/client.ts', to: 'test/support/cli.ts', line: 1 })).toMatch(/in no layer/);
    expect(misdirected({ from: 'helpers/command/cli.ts', to: 'helpers/core/paths.ts', line: 1 })).toBeUndefined();
    const a = 'helpers/core/a.ts';
    const b = 'helpers/core/b.ts';
    expect(cycles([{ from: a, to: b, line: 1 }, { from: b, to: a, line: 1 }])).toEqual([[a, b]]);
    expect(importsOf(projectRoot, 'helpers/command/cli.ts').map((e) => e.to)).toEqual(expect.arrayContaining(['helpers/command/conform.ts', 'reference/server.ts']));
  });
});
