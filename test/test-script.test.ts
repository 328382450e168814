/**
 * npm test (scripts/test.sh) runs the type check beside the tests: it fails when either fails,
 * whichever ends first. Stand-ins for tsc and vitest, on PATH as npm puts node_modules/.bin there.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { projectRoot } from '../helpers/core/paths.ts';
import { LONGEST_FIRST } from './support/longest-first.ts';

function npmTest(tsc: { code: number; after?: number }, vitest: { code: number; after?: number }): number | null {
  const bin = mkdtempSync(join(tmpdir(), 'scr-bin-'));
  for (const [name, { code, after = 0 }] of [['tsc', tsc], ['vitest', vitest]] as const) {
    writeFileSync(join(bin, name), `#!/bin/sh\nsleep ${after}\nexit ${code}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return spawnSync('sh', ['scripts/test.sh'], { cwd: projectRoot, env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' }).status;
}

test.for([
  [0, 0, 0],
  [1, 0, 1],
  [0, 1, 1],
  [2, 1, 1],
] as const)('type check exits %i, tests exit %i: npm test exits %i', ([types, tests, expected]) => {
  // The type check ending after the tests, and before them.
  expect(npmTest({ code: types, after: 0.3 }, { code: tests })).toBe(expected);
  expect(npmTest({ code: types }, { code: tests, after: 0.3 })).toBe(expected);
});

test('the files npm test starts first are files of the tests (a renamed one would silently drop to its size order)', () => {
  expect(LONGEST_FIRST.filter((name) => !existsSync(join(projectRoot, 'test', `${name}.test.ts`)))).toEqual([]);
});
