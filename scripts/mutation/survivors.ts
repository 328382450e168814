/**
 * Writes spec/mutation-survivors.yaml from StrykerJS's incremental report
 * (spec/mutation-incremental.json, written by `npm run mutation`): one entry per surviving mutant.
 * An entry already in the file keeps its class and reason (they were read by a person); a new one
 * is classified by the rules below where they are sound, else it is a `gap` to read and close.
 *   node --import tsx scripts/mutation/survivors.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../../helpers/core/paths.ts';
import { survivors, type Survivor } from './report.ts';

const file = join(projectRoot, 'spec/mutation-survivors.yaml');
type Entry = { id: string; at: string; mutator: string; replacement: string; class: string; variation?: string; reason: string };

/** Rules that classify a survivor by where it sits; the first that matches wins. */
const RULES: { when: (s: Survivor) => boolean; class: 'equivalent' | 'not-shown'; variation?: string; reason: string }[] = [
  { when: (s) => /ctx\.(fault|varies)\(/.test(s.line), class: 'equivalent', reason: 'decided by a fault or variation switch, off in this run; the switch on is its own case in the fault or variation matrix' },
  { when: (s) => /operationId: '/.test(s.line) && s.mutator === 'StringLiteral', class: 'equivalent', reason: 'operationId only names the route for the route-missing faults; no answer depends on it' },
  { when: (s) => /emailTaken/.test(s.line) || /^function emailTaken/.test(s.line), class: 'equivalent', reason: 'emailTaken is false unless the unique-customer-email variation is on' },
];

const previous = new Map<string, Entry>((parse(readFileSync(file, 'utf8').toString() || 'survivors: []')?.survivors ?? []).map((e: Entry) => [e.id, e]));
const entries: Entry[] = survivors().map((s) => {
  const kept = previous.get(s.id);
  if (kept) return { ...kept, at: s.at };
  const rule = RULES.find((r) => r.when(s));
  return { id: s.id, at: s.at, mutator: s.mutator, replacement: s.replacement, class: rule?.class ?? 'gap', ...(rule?.variation ? { variation: rule.variation } : {}), reason: rule?.reason ?? 'not read yet' };
});
writeFileSync(file, `# Every mutant of the reference that survived the suite (npm run mutation), triaged. Generated
# by scripts/mutation/survivors.ts; class and reason are kept across runs. equivalent: no client
# can tell it apart; not-shown: behaviour the contract leaves open (variation: the one proving the
# suite passes it); gap: the suite should catch it (closed by a check and a fault). No gap stays.
${stringify({ survivors: entries }, { lineWidth: 0 })}`);
console.log(`${entries.length} survivors: ${['equivalent', 'not-shown', 'gap'].map((c) => `${entries.filter((e) => e.class === c).length} ${c}`).join(', ')}`);
