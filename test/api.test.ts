/** The typed API beyond the README's example: a run that proves nothing throws, an abort stops a run, nothing exits. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { projectRoot } from '../helpers/core/paths.ts';

// The package's entry (the compiled command), as `import ... from 'scheduling-conformance'` loads it.
const { ConformanceError, listChecks, runConformance } = (await import(join(projectRoot, 'index.js'))) as typeof import('../helpers/api.ts');

const scratch = mkdtempSync(join(tmpdir(), 'scr-api-'));
const exit = vi.spyOn(process, 'exit').mockImplementation(() => {
  throw new Error('process.exit called');
});
afterEach(() => expect(exit).not.toHaveBeenCalled());

test('options that cannot run throw a ConformanceError with exit code 2 and the one-line message', async () => {
  const error = await runConformance({ config: join(scratch, 'missing.json'), reportDir: join(scratch, 'r1') }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConformanceError);
  expect(error).toMatchObject({ exitCode: 2, message: expect.stringContaining('missing.json') });
  await expect(runConformance({ only: '(' })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--only "\(" is not a regular expression/) });
  await expect(runConformance({ maxBodyMiB: 0 })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--max-body-mib must be a number of MiB above 0/) });
  await expect(runConformance({ retryBudgetSeconds: -1 })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--retry-budget must be a number of seconds from 0/) });
  await expect(listChecks({ only: '^NO-SUCH' })).resolves.toEqual([]);
});

test('an aborted run stops before its checks, restores the target and returns an incomplete result, without touching the process signals', async () => {
  const before = process.listenerCount('SIGINT');
  const controller = new AbortController();
  controller.abort();
  const result = await runConformance({ signal: controller.signal, reportDir: join(scratch, 'r2') });
  expect(result).toMatchObject({ verdict: 'incomplete', stopped: 'interrupted', exitCode: 130 });
  expect(result.leftOnTarget).toEqual([]);
  expect(process.listenerCount('SIGINT')).toBe(before);
});

test('a target that cannot be tested throws the line the command prints, and the summary says why', async () => {
  let printed = '';
  const summary = join(scratch, 'summary.md');
  const error = await runConformance({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_api_unreachable_1', summary, reportDir: join(scratch, 'r3'), output: { write: (t: string) => ((printed += t), true) } }).catch((e: unknown) => e);
  expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^target unreachable: .*connection refused/) });
  expect(printed).toContain(`scheduling-conformance: ${(error as Error).message}\n`);
  expect(readFileSync(summary, 'utf8')).toContain(`Exit code 2: ${(error as Error).message}`);
});
