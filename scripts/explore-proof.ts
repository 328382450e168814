/**
 * npm run explore:proof [-- options]: what exploration finds on its own, and that it says nothing
 * false (issue 32, "Proof"). In process against the embedded reference, several runs at once
 * (child processes, each running its share one after another).
 *
 *   (faults)        every fault of the catalogue, with the checks off (--only ^EXPLORE-), the
 *                   default budget (--explore) on seeds 1, 2 and 3: found when an EXPLORE-*
 *                   check fails. Writes spec/explore-proof.json (read by spec/coverage.md).
 *   --variations    every variation of reference/variations.ts, in the variation matrix's groups,
 *                   full runs with the default exploration on seeds 1-10, at --concurrency 1 and 3:
 *                   each must exit 0 with nothing left on the target (no false verdict).
 *   --explore N     another budget, to measure (prints; writes the file only with --write).
 *   --seeds a,b,c   other seeds.   --jobs N   runs at once (default 3).   --only REGEX   names.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from '../reference/server.ts';
import { FAULTS } from '../reference/faults/index.ts';
import type { FaultName } from '../reference/faults/fault-names.generated.ts';
import { VARIATIONS, type Variation } from '../reference/variations.ts';
import { compiledMain } from '../test/support/cli.ts';
import { comparable, variationGroups, vendorConfigOf } from '../test/support/variation-matrix.ts';
import { OPTIONS } from '../helpers/command/option-table.ts';
import { specDir } from '../helpers/core/paths.ts';
import { proofShare, type Proof } from './explore-share.ts';

const proofPath = join(specDir, 'explore-proof.json');

const { values } = parseArgs({
  options: {
    variations: { type: 'boolean', default: false },
    explore: { type: 'string' },
    seeds: { type: 'string' },
    jobs: { type: 'string', default: '3' },
    only: { type: 'string' },
    write: { type: 'boolean', default: false },
    shard: { type: 'string' },
  },
});

const DEFAULT_BUDGET = Number(OPTIONS.find((o) => o.flag === 'explore')!.default);
const budget = Number(values.explore ?? DEFAULT_BUDGET);
const seeds = (values.seeds ?? (values.variations ? '1,2,3,4,5,6,7,8,9,10' : '1,2,3')).split(',').map(Number);

/**
 * Whether exploration could show a fault: its breakage breaks a promise exploration holds, in the
 * answer to an operation it drives with inputs it sends, or in a later read of one. The others,
 * by why not (the first pattern that matches a fault's name).
 */
const NOT_OBSERVABLE: [RegExp, string][] = [
  [/^(route-missing|html|server-error|truncated-json):/, 'the operation does not answer in a form any promise can be judged on (protocol): exploration is blocked, the OP-DOCUMENTED checks fail'],
  [/^business-get-(wrong-type|text-plain)/, 'the shape of the retrieval (JSON types, Content-Type of the answer): exploration holds values, and the update takes that form back'],
  [/^customer-list-pages-|^customer-list-next-loops$/, 'paging: it shows past the first pages, and exploration creates a handful of customers'],
  [/^customer-(find-unknown-200|deleted-410)$/, 'a status for an unknown id, which the contract does not show for customers'],
  [/^(customer|team-member)-patch-upserts?$/, 'an update of an unknown id: exploration sends no update to an id it does not know (a record made so could not be found to delete)'],
  [/^team-member(s-writable|-create-allowed|-delete-allowed)$/, 'a create or delete of a team member: exploration never sends one (nothing to undo it with)'],
  [/^customer-create-twice$/, 'a second record under an id exploration never learns: only a count of the whole list shows it'],
];

type Task = { kind: 'fault'; fault: string; seed: number } | { kind: 'variation'; group: string[]; seed: number; concurrency: number };

const onlyRe = values.only ? new RegExp(values.only) : undefined;
const faults = FAULTS.filter((f) => !onlyRe || onlyRe.test(f.name));
const groups = variationGroups(VARIATIONS.filter((v) => !onlyRe || onlyRe.test(v.name)));
const tasks: Task[] = values.variations
  ? groups.flatMap((g) => seeds.flatMap((seed) => [1, 3].map((concurrency) => ({ kind: 'variation' as const, group: g.map((v) => v.name), seed, concurrency }))))
  : faults.flatMap((f) => seeds.map((seed) => ({ kind: 'fault' as const, fault: f.name, seed })));

const quiet = { stdout: { write() {} }, stderr: { write() {} } };

/** One run: a fresh reference, the command in process; what failed, the exit code, what the reference holds changed. */
async function runTask(task: Task) {
  const main = await compiledMain();
  const group = task.kind === 'variation' ? VARIATIONS.filter((v) => task.group.includes(v.name)) : [];
  const ref = await startReference(task.kind === 'fault' ? { faults: [task.fault as FaultName] } : { variations: task.group });
  const scratch = mkdtempSync(join(tmpdir(), 'scr-explore-proof-'));
  try {
    const before = ref.state.snapshot();
    const args = ['--base-url', ref.url, '--report-dir', join(scratch, 'reports'), '--explore', String(budget), '--explore-seed', String(task.seed)];
    if (task.kind === 'fault') args.push('--only', '^EXPLORE-');
    else {
      args.push('--concurrency', String(task.concurrency));
      const config = vendorConfigOf(group);
      if (config) {
        writeFileSync(join(scratch, 'vendor.json'), JSON.stringify(config));
        args.push('--config', join(scratch, 'vendor.json'));
      }
    }
    const code = await main(args, { PATH: process.env.PATH ?? '', CI: 'true', SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, quiet);
    const result = JSON.parse(readFileSync(join(scratch, 'reports', 'result.json'), 'utf8')) as { leftOnTarget: unknown[]; checks: { id: string; outcome: string; reason?: string }[] };
    const volatile = group.flatMap((v) => v.volatileFields ?? []);
    const changed = JSON.stringify(comparable(ref.state.snapshot(), volatile)) !== JSON.stringify(comparable(before, volatile));
    return {
      task, code, changed, left: result.leftOnTarget.length,
      failed: result.checks.filter((c) => c.outcome === 'failed' || (task.kind === 'variation' && c.outcome === 'warning' && !group.some((v) => (v.expectWarnings as string[] | undefined)?.includes(c.id)))).map((c) => ({ id: c.id, reason: c.reason?.split('\n')[0] })),
    };
  } finally {
    await ref.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

type Outcome = Awaited<ReturnType<typeof runTask>>;

if (values.shard) {
  // A child: its share of the tasks, one after another, each outcome a line on stdout.
  const [index, of] = values.shard.split('/').map(Number);
  for (const task of tasks.filter((_, i) => i % of === index)) process.stdout.write(`${JSON.stringify(await runTask(task))}\n`);
  process.exit(0);
}

await compiledMain(); // builds dist/ once, before the children load it
const jobs = Math.max(1, Number(values.jobs));
const started = Date.now();
const outcomes: Outcome[] = [];
await Promise.all(
  Array.from({ length: jobs }, (_, index) =>
    new Promise<void>((resolve, reject) => {
      const argv = process.argv.slice(2).filter((a, i, all) => a !== '--jobs' && all[i - 1] !== '--jobs');
      const child = spawn(process.execPath, ['--import', 'tsx', process.argv[1], ...argv, '--shard', `${index}/${jobs}`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
          const outcome = JSON.parse(buffered.slice(0, at)) as Outcome;
          buffered = buffered.slice(at + 1);
          outcomes.push(outcome);
          process.stderr.write(`[${outcomes.length}/${tasks.length}] ${describe(outcome)}\n`);
        }
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`shard ${index} exited ${code}`))));
    }),
  ),
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);

function describe(o: Outcome): string {
  const t = o.task;
  const what = t.kind === 'fault' ? `${t.fault} seed ${t.seed}` : `${t.group.join(' + ')} seed ${t.seed} --concurrency ${t.concurrency}`;
  return `${what}: exit ${o.code}${o.failed.length ? `, ${o.failed.map((f) => f.id).join(', ')}` : ''}${o.left ? `, ${o.left} left` : ''}${o.changed ? ', data changed' : ''}`;
}

if (values.variations) {
  // Exploration's false verdicts: an EXPLORE-* check flagged, or something left where no other check failed (a check's own failure leaves what it could not restore).
  const byExploration = (o: Outcome) => o.failed.some((f) => f.id.startsWith('EXPLORE-')) || ((o.left || o.changed) && !o.failed.length);
  const wrong = outcomes.filter(byExploration);
  const checks = outcomes.filter((o) => !byExploration(o) && (o.code !== 0 || o.failed.length));
  for (const o of wrong) console.log(`FALSE VERDICT ${describe(o)}\n  ${o.failed.map((f) => `${f.id}: ${f.reason}`).join('\n  ')}`);
  const groupsFailing = [...new Set(checks.map((o) => (o.task.kind === 'variation' ? `${o.task.group.join(' + ')}: ${[...new Set(o.failed.map((f) => f.id))].join(', ')}` : '')))];
  for (const g of groupsFailing) console.log(`checks, not exploration, failed: ${g}`);
  console.log(`${outcomes.length} runs (${groups.length} groups of ${VARIATIONS.length} variations × ${seeds.length} seeds × --concurrency 1 and 3, --explore ${budget}) in ${minutes} min: ${wrong.length} where exploration flagged something or left something; ${checks.length} where hand-written checks failed (the variation matrix's own verdicts)`);
  process.exit(wrong.length ? 1 : 0);
}

const proof: Proof = { budget, seeds, faults: {} };
for (const f of faults) {
  const why = NOT_OBSERVABLE.find(([re]) => re.test(f.name))?.[1];
  const found: Record<string, string[]> = {};
  for (const o of outcomes.filter((x) => x.task.kind === 'fault' && x.task.fault === f.name)) {
    const ids = o.failed.filter((c) => c.id.startsWith('EXPLORE-')).map((c) => c.id);
    if (ids.length) found[String(o.task.seed)] = ids;
  }
  proof.faults[f.name] = { observable: !why, ...(why ? { why } : {}), found };
}
const s = proofShare(proof);
console.log(`--explore ${budget}, seeds ${seeds.join(', ')} (${minutes} min): observable ${s.observable}/${faults.length}; found on every seed ${s.everySeed}/${s.observable}, on at least one ${s.anySeed}/${s.observable}, per seed ${s.perSeed.join(', ')}; not observable but found ${s.foundUnobservable}`);
for (const [name, e] of Object.entries(proof.faults)) if (e.observable && Object.keys(e.found).length < seeds.length) console.log(`  observable, ${Object.keys(e.found).length ? `found on seeds ${Object.keys(e.found).join(', ')} only` : 'not found'}: ${name}`);
if (values.write || (!values.explore && !values.seeds && !values.only)) writeFileSync(proofPath, `${JSON.stringify(proof, null, 2)}\n`);
