/**
 * Drafts a fault's `kills` list: runs the suite against the reference with the fault switched on
 * and prints the checks that failed or warned. A draft to review, never to paste unread: the list
 * in the catalog is a claim about what the fault breaks.
 *   node --import tsx scripts/fault-kills.ts NAME [NAME…]
 */
import { isFaultName } from '../reference/faults/index.ts';
import { startReference } from '../reference/server.ts';
import { runCli } from '../test/support/cli.ts';
import { idsWith, readResult } from '../test/support/verdicts.ts';

for (const fault of process.argv.slice(2)) {
  if (!isFaultName(fault)) {
    console.log(`${fault}: no such fault in reference/faults`);
    continue;
  }
  const ref = await startReference({ fault });
  const run = await runCli(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  await ref.close();
  const flagged = run.code === 2 ? [] : idsWith(readResult(run).checks, ['failed', 'warning']);
  console.log(`${fault} (exit ${run.code}${run.stderr ? `, stderr: ${run.stderr.trim().split('\n')[0]}` : ''})`);
  for (const id of flagged) console.log(`  '${id}',`);
}
