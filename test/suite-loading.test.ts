/**
 * How the suite worker loads the suite files: through vite's module runner with vitest's module
 * cache where a cache folder can be written, natively from dist/ where none can (a read-only
 * install), so that a run never fails for want of a cache.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { suiteLoading } from '../helpers/command/run-suites.ts';
import { cacheRoot, projectRoot } from '../helpers/core/paths.ts';

test('a writable cache folder: vitest caches the transformed suite files there', () => {
  const folder = join(mkdtempSync(join(tmpdir(), 'scr-cache-')), 'modules');
  expect(suiteLoading(folder)).toEqual({ fsModuleCache: true, fsModuleCachePath: folder });
});

test('no folder can be made there: no cache; the compiled suites load natively, the sources through vite', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'scr-cache-')), 'a-file');
  writeFileSync(file, '');
  // The command as bin/ runs it (test/build-dist.ts built it), whose code root is dist/.
  const compiled = (await import(join(projectRoot, 'dist/helpers/command/run-suites.js'))) as typeof import('../helpers/command/run-suites.ts');
  expect(compiled.suiteLoading(join(file, 'modules'))).toEqual({ viteModuleRunner: false, nodeLoader: false });
  expect(suiteLoading(join(file, 'modules'))).toEqual({});
});

test('the default cache is the user\'s cache folder, one per installed copy, never inside the project or its node_modules', () => {
  const loading = suiteLoading() as { fsModuleCachePath?: string };
  expect(loading.fsModuleCachePath?.startsWith(cacheRoot)).toBe(true);
  expect(cacheRoot.startsWith(projectRoot)).toBe(false);
  expect(cacheRoot).not.toMatch(/node_modules/);
});
