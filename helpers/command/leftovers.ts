import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, UsageError } from '../core/errors.ts';
import { JOURNAL_FILE, ownStoppedJournal } from './conform.ts';
import { loadSpec } from '../contract/spec.ts';
import { ApiClient } from '../http/client.ts';
import { Journal, outstanding } from '../safety/journal.ts';
import { sweep } from '../safety/sweep.ts';
import { applyRelease, planRelease, type ReleasePlan } from '../safety/release.ts';
import { isLive, seenAgo } from '../safety/lease.ts';
import { formatLeftOnTarget } from '../safety/after-run-cleanup.ts';
import { isRecord, type Row } from '../contract/record.ts';
import type { TargetConfig } from '../config/target.ts';
import type { Io } from './io.ts';
import { commandLine } from './relaunch.ts';

/**
 * `--sweep`: lists what earlier, crashed runs left (by the run marker), skipping every run that
 * is still going; with --yes deletes the customers. Fields of the business record and the team
 * members that hold a stopped run's values are named, with the --release that frees them; until
 * then they are left on the target (exit 2 with --yes).
 */
export async function sweepCommand(target: TargetConfig, yes: boolean, relaunch: string[], reportDir: string, redact: (t: string) => string, io: Io): Promise<number> {
  const result = await sweep(target, await loadSpec(), { yes });
  const say = (text: string) => io.stdout.write(redact(text));
  const lines = result.found.map((f) => `  ${f.path}: ${f.field} holds run ${f.runId}\n`).join('');
  if (!yes) say(`Sweep: ${result.found.length} record(s) left by earlier runs${result.found.length ? `; run again with --yes to delete them:\n${lines}` : '\n'}`);
  else say(`Sweep: deleted ${result.deleted.length} record(s) left by earlier runs${result.found.length ? `:\n${lines}` : '\n'}`);
  const again = (...flags: string[]) => commandLine([...relaunch, '--base-url', target.baseUrl, ...flags]);
  // A live lease whose run left its unfinished journal here, its process gone, is not a run going: it is this machine's own, stopped.
  const stopped = new Map(result.going.map((g) => [g.runId, ownStoppedJournal(reportDir, g.runId)]));
  for (const g of result.going) {
    const journal = stopped.get(g.runId);
    if (!journal) say(`Sweep: skipped ${g.customers} customer(s) of run ${g.runId} that is still going (last seen ${seenAgo(g.lease)})\n`);
    else say(`Sweep: skipped ${g.customers} customer(s) of run ${g.runId}, this machine's own run, stopped before it finished (its lease was last seen ${seenAgo(g.lease)}; its journal is ${journal}): ${again('--recover', journal)} undoes what it left and frees the target at once\n`);
  }
  for (const runId of new Set(result.held.map((h) => h.runId))) {
    const lease = result.leases.get(runId);
    const held = result.held.filter((h) => h.runId === runId);
    const where = held.map((h) => `${h.path} (${h.fields.join(', ')})`).join(', ');
    const release = `${again('--release', runId)} [--from <an earlier run's report directory>] lists what it would write; add --yes to write it`;
    if (held[0].going && stopped.get(runId)) {
      say(`Sweep: run ${runId} is this machine's own run, stopped before it finished; its values are in ${where}: ${again('--recover', stopped.get(runId)!)} puts them back\n`);
      continue;
    }
    if (held[0].going) {
      say(`Sweep: run ${runId} is still going (its lease was last seen ${seenAgo(lease!)}); its values are in ${where}. If it was stopped (a killed job), ${release}\n`);
      continue;
    }
    say(`Sweep: run ${runId}, not going (${lease ? `its lease was last seen ${seenAgo(lease)}` : 'it holds no lease'}), left its values in ${where}: later runs do not start until they are put back.\n`
      + `  With its report directory: ${again('--recover')} <dir>\n`
      + `  Without it: ${release}\n`);
  }
  if (!yes) return EXIT.conformant;
  say(formatLeftOnTarget(result.leftOnTarget));
  return result.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
}

/**
 * `--release RUN`: frees the target of a run that was stopped with its journal lost: deletes its
 * customers (its lease last) and puts back every business and team member field holding its
 * marker (see planRelease). Without --yes it only says what it would do.
 */
export async function releaseCommand(target: TargetConfig, runId: string, from: string | undefined, yes: boolean, redact: (t: string) => string, io: Io): Promise<number> {
  const spec = await loadSpec();
  const originals = from === undefined ? undefined : loadOriginals(from, new URL(target.baseUrl).origin);
  const client = new ApiClient(target);
  client.phase = 'release';
  const say = (text: string) => io.stdout.write(redact(text));
  try {
    const plan = await planRelease(client, spec, target, runId, originals);
    for (const p of plan.problems) io.stderr.write(redact(`warning: ${p}\n`));
    say(describePlan(plan));
    if (!plan.customers.length && !plan.writes.length) return plan.problems.length ? EXIT.usage : EXIT.conformant;
    if (!yes) return void say('Run again with --yes to do it.\n'), EXIT.conformant;
    const done = await applyRelease(client, spec, target, plan);
    if (done.released.length) say(`Released: ${done.released.join(', ')}\n`);
    if (done.deleted.length) say(`Deleted: ${done.deleted.join(', ')}\n`);
    say(formatLeftOnTarget(done.leftOnTarget));
    return done.leftOnTarget.length ? EXIT.usage : EXIT.conformant;
  } finally {
    await client.close();
  }
}

function describePlan(plan: ReleasePlan): string {
  const lines: string[] = [];
  const lease = plan.lease;
  const state = !lease ? 'it holds no lease' : isLive(lease) ? `its lease was last seen ${seenAgo(lease)}: it may still be going; release only a run you know was stopped` : `its lease was last seen ${seenAgo(lease)}`;
  lines.push(`Release of run ${plan.runId} (${state}):`);
  if (!plan.customers.length && !plan.writes.length) lines.push('  nothing of it is on the target');
  for (const c of plan.customers) lines.push(`  delete ${c.path} (${c.field} holds run ${plan.runId}${c.path === lease?.path ? ': its lease' : ''})`);
  for (const w of plan.writes) {
    lines.push(`  write ${w.path}: ${w.changes.map((c) => `${c.field} ${JSON.stringify(c.now)} -> ${JSON.stringify(c.then)}${c.from === 'originals' ? '' : ' (marker taken out)'}`).join('; ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The originals --from gives: the snapshots of a run journal (a report directory, or its
 * run-journal.jsonl; of the same origin), or a JSON object of records by path.
 */
function loadOriginals(from: string, origin: string): Map<string, Row> {
  const file = statSync(from).isDirectory() ? join(from, JOURNAL_FILE) : from;
  if (!existsSync(file)) throw new UsageError(`--from ${from}: no ${JOURNAL_FILE} there (give a report directory of an earlier run against this target)`);
  if (file.endsWith('.jsonl')) {
    const entries = new Journal(file).read();
    const run = entries.find((e) => e.kind === 'run');
    if (run && run.origin !== origin) throw new UsageError(`--from ${from}: that run was against ${run.origin}, not ${origin}`);
    const { snapshots } = outstanding(entries);
    if (!snapshots.size) throw new UsageError(`--from ${from}: the journal holds no record as it was before its run`);
    return snapshots;
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--from ${from}: not JSON (${(e as Error).message})`);
  }
  const bad = !isRecord(json) ? 'not an object' : Object.entries(json).find(([path, record]) => !path.startsWith('/') || !isRecord(record))?.[0];
  if (bad !== undefined) throw new UsageError(`--from ${from}: expected {"<path>": {record}, ...}, as /api/v1/business (${bad === 'not an object' ? bad : `"${bad}" is not a path with a record`})`);
  return new Map(Object.entries(json as Record<string, Row>));
}
