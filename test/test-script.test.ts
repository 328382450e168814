/**
 * npm test (scripts/test.sh) runs the type check beside the tests: it fails when either fails,
 * whichever ends first. Stand-ins for the type check (where the script calls TypeScript 7's
 * compiler) and for vitest (on PATH, as npm puts node_modules/.bin there).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { projectRoot } from '../helpers/core/paths.ts';
import { LONGEST_FIRST } from './support/longest-first.ts';

function npmTest(tsc: { code: number; after?: number }, vitest: { code: number; after?: number }): number | null {
  // Run where the stand-ins are: vitest on PATH, the native compiler where the script calls it.
  const cwd = mkdtempSync(join(tmpdir(), 'scr-bin-'));
  mkdirSync(join(cwd, 'node_modules/typescript-native/bin'), { recursive: true });
  writeFileSync(join(cwd, 'node_modules/typescript-native/bin/tsc'), `setTimeout(() => process.exit(${tsc.code}), ${(tsc.after ?? 0) * 1000});\n`);
  writeFileSync(join(cwd, 'vitest'), `#!/bin/sh\nsleep ${vitest.after ?? 0}\nexit ${vitest.code}\n`);
  chmodSync(join(cwd, 'vitest'), 0o755);
  return spawnSync('sh', [join(projectRoot, 'scripts/test.sh')], { cwd, env: { PATH: `${cwd}:${dirname(process.execPath)}:/usr/bin:/bin` }, encoding: 'utf8' }).status;
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
