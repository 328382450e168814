import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../core/paths.ts';

/** The flags a later command against the same target needs to reach it and read its records as this run did. */
const CARRIED = { config: { type: 'string' }, header: { type: 'string', multiple: true }, ca: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' }, timeout: { type: 'string' }, rate: { type: 'string' } } as const;

/**
 * The words that start this command again as it was started: `npm run conformance --` from the
 * project's script, `npx scheduling-conformance` from npx, else node and the absolute path of
 * the bin (`scheduling-conformance` alone is on no PATH but npm's); then the flags in CARRIED as
 * given (a --header's $VAR stays $VAR). Never the key: it is read from the environment again.
 */
export function relaunchWords(argv: string[], env: Record<string, string | undefined>): string[] {
  const start = env.npm_command === 'run-script' && env.npm_lifecycle_event === 'conformance' ? ['npm', 'run', 'conformance', '--']
    : env.npm_command === 'exec' ? ['npx', 'scheduling-conformance']
    : ['node', join(projectRoot, 'bin', 'scheduling-conformance.js')];
  const { values } = parseArgs({ args: argv, options: CARRIED, strict: false, allowPositionals: true });
  const flags = Object.keys(CARRIED).flatMap((name) => {
    const value = values[name as keyof typeof CARRIED];
    return [value].flat().filter((v): v is string => typeof v === 'string').flatMap((v) => [`--${name}`, v]);
  });
  return [...start, ...flags];
}

/** Words as one POSIX shell line: each quoted only where it needs to be. */
export function commandLine(words: string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
