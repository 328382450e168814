/**
 * npm run stability [-- N [VARIATION ...]]: N full runs (default 20) against a fresh reference (with
 * the variations named, e.g. read-replicas-alternate: reads that go back in time) at each
 * concurrency (1, 2 and 3: lanes one after another, two and three at once), in process; prints how many distinct results each gave, comparing the
 * checks' ids, order, outcomes and reasons, the verdict, the exit code and what was left on the
 * target. Exits 1 when a concurrency gave more than one.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../reference/server.ts';
import { compiledMain } from '../test/support/cli.ts';

const runs = Number(process.argv[2] ?? 20);
const variations = process.argv.slice(3);
const main = await compiledMain();
const quiet = { stdout: { write() {} }, stderr: { write() {} } };
let unstable = false;
for (const concurrency of ['1', '2', '3']) {
  const results = new Map<string, number>();
  for (let i = 0; i < runs; i++) {
    const ref = await startReference({ variations });
    const dir = join(mkdtempSync(join(tmpdir(), 'scr-stability-')), 'reports');
    try {
      const code = await main(['--base-url', ref.url, '--report-dir', dir, '--concurrency', concurrency], { PATH: process.env.PATH ?? '', CI: 'true', SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, quiet);
      const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { verdict: string; leftOnTarget: unknown[]; checks: { id: string; outcome: string; reason?: string }[] };
      const key = JSON.stringify([code, result.verdict, result.leftOnTarget, result.checks.map((c) => [c.id, c.outcome, c.reason])]);
      results.set(key, (results.get(key) ?? 0) + 1);
    } finally {
      await ref.close();
    }
  }
  const [first] = results.keys();
  const [code, verdict, left, checks] = JSON.parse(first) as [number, string, unknown[], unknown[]];
  console.log(`--concurrency ${concurrency}${variations.length ? ` (${variations.join(', ')})` : ''}: ${runs} runs, ${results.size} distinct result${results.size === 1 ? '' : 's'} (${[...results.values()].join(' + ')}); first: exit ${code}, ${verdict}, ${checks.length} checks, ${left.length} left on the target`);
  unstable ||= results.size > 1;
}
process.exit(unstable ? 1 : 0);
