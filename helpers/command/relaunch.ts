import { join } from 'node:path';
import { projectRoot } from '../core/paths.ts';
import { OPTIONS, type Given, type OptionRow } from './option-table.ts';

/** The flags a later command against the same target needs to reach it and read its records as this run did. */
const carried = (OPTIONS as readonly OptionRow[]).filter((r) => r.carried);
/** How to reach the target first (files, headers), then its pace (numbers): the line reads as it always has. */
const CARRIED = [...carried.filter((r) => !r.number), ...carried.filter((r) => r.number)];

/**
 * The words that start this command again as it was started: `npm run conformance --` from the
 * project's script, `npx scheduling-conformance` from npx, else node and the absolute path of
 * the bin (`scheduling-conformance` alone is on no PATH but npm's); then the flags in CARRIED as
 * given (a --header's $VAR stays $VAR). Never the key: it is read from the environment again.
 */
export function relaunchOf(given: Given, env: Record<string, string | undefined>): string[] {
  const start = env.npm_command === 'run-script' && env.npm_lifecycle_event === 'conformance' ? ['npm', 'run', 'conformance', '--']
    : env.npm_command === 'exec' ? ['npx', 'scheduling-conformance']
    : ['node', join(projectRoot, 'bin', 'scheduling-conformance.js')];
  const flags = CARRIED.flatMap((r) => [given[r.flag as keyof Given]].flat().filter((v) => v !== undefined && typeof v !== 'boolean').flatMap((v) => [`--${r.flag}`, String(v)]));
  return [...start, ...flags];
}

/** Words as one POSIX shell line: each quoted only where it needs to be. */
export function commandLine(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
