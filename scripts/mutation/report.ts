/** StrykerJS's incremental report (mutation-testing-report-schema), as the triage reads it. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../helpers/core/paths.ts';

export const incrementalFile = join(projectRoot, 'spec/mutation-incremental.json');

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
export interface Survivor {
  /** Stable across runs: the file, the place, the mutator and the replacement. */
  id: string;
  at: string;
  mutator: string;
  replacement: string;
  /** The source line the mutant sits on. */
  line: string;
}

export function statuses(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of mutants()) counts[m.status] = (counts[m.status] ?? 0) + 1;
  return counts;
}

function mutants(): (Mutant & { file: string; source: string[] })[] {
  const report = JSON.parse(readFileSync(incrementalFile, 'utf8')) as { files: Record<string, { source: string; mutants: Mutant[] }> };
  return Object.entries(report.files).flatMap(([file, f]) => f.mutants.map((m) => ({ ...m, file, source: f.source.split('\n') })));
}

export function survivors(): Survivor[] {
  return mutants()
    .filter((m) => m.status === 'Survived')
    .map((m) => {
      const { start, end } = m.location;
      const replacement = m.replacement ?? m.mutatorName;
      const key = `${m.file}|${start.line}:${start.column}-${end.line}:${end.column}|${m.mutatorName}|${replacement}`;
      return { id: `m-${createHash('sha1').update(key).digest('hex').slice(0, 10)}`, at: `${m.file}:${start.line}`, mutator: m.mutatorName, replacement, line: m.source[start.line - 1].trim() };
    })
    .sort((a, b) => a.at.localeCompare(b.at, 'en', { numeric: true }));
}
