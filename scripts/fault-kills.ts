/**
 * Drafts a fault's `kills` list: runs the suite against the reference with the fault switched on
 * and prints the checks that failed or warned. A draft to review, never to paste unread: the list
 * in the catalog is a claim about what the fault breaks.
 *   node --import tsx scripts/fault-kills.ts NAME [NAME…]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConformanceError, runConformance } from '../helpers/api.ts';
import { isFaultName } from '../reference/faults/index.ts';
import { startReference } from '../reference/server.ts';

for (const fault of process.argv.slice(2)) {
  if (!isFaultName(fault)) {
    console.log(`${fault}: no such fault in reference/faults`);
    continue;
  }
  const ref = await startReference({ fault });
  const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-kills-')), 'reports');
  try {
    const run = await runConformance({ baseUrl: ref.url, apiKey: ref.apiKey, expiredKey: ref.expiredKey, reportDir });
    console.log(`${fault} (exit ${run.exitCode}, ${run.verdict})`);
    for (const c of run.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'warning')) console.log(`  '${c.id}',`);
  } catch (e) {
    console.log(`${fault} (exit ${e instanceof ConformanceError ? e.exitCode : '?'}: ${(e as Error).message})`);
  } finally {
    await ref.close();
  }
}
