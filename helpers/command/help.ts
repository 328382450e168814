import { OPTIONS, type OptionRow } from './option-table.ts';

/** Where the words of an option start, and how wide its words are before the "(env …)" beside them. */
const WORDS_AT = 22;
const ENV_AT = 49;

/** "--base-url URL", "-h, --help". */
const label = (row: OptionRow) => `${row.short ? `-${row.short}, ` : ''}--${row.flag}${row.arg ? ` ${row.arg}` : ''}`;

const defaultShown = (row: OptionRow) => row.shownDefault ?? String(row.default);

/** An option's entry: its flags (with those listed beside it), then its words, each line under the first. */
function entry(rows: OptionRow[]): string {
  const words = rows.find((r) => r.help)!.help!.replaceAll('{default}', defaultShown(rows[0])).split('\n');
  const env = rows[0].env;
  if (env) words[0] = `${words[0].padEnd(ENV_AT - 2)}  (env ${env})`;
  const flags = `  ${rows.map(label).join(', ')}`;
  const first = flags.length < WORDS_AT ? `${flags.padEnd(WORDS_AT)}${words[0]}` : `${flags}\n${' '.repeat(WORDS_AT)}${words[0]}`;
  return [first, ...words.slice(1).map((w) => `${' '.repeat(WORDS_AT)}${w}`)].join('\n');
}

/** The options' entries in the table's order; a flag no words are written for is said in another's (--yes). */
function optionEntries(): string {
  const groups: OptionRow[][] = [];
  for (const row of OPTIONS as readonly OptionRow[]) {
    if (row.besideAbove) groups.at(-1)!.push(row);
    else groups.push([row]);
  }
  return groups.filter((g) => g.some((r) => r.help)).map(entry).join('\n');
}

export const HELP = `Usage: scheduling-conformance [options]
       scheduling-conformance verify <bundle-dir>

Holds a Scheduling API v1 implementation to its documented contract.
Without --base-url it starts the embedded reference implementation and tests that.

Options:
${optionEntries()}

verify <bundle-dir>   checks a certification bundle (its hashes, that this suite version made it from a
                      complete run that failed no MUST check); exit 0 when it holds, 1 when it does not

A .env file in the working directory is read too; flags win over the environment.
HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured (never for this machine); the report names the proxy used.

Exit codes:
  0    conformant: every MUST check passed (and every SHOULD check with --strict)
  1    not conformant: a MUST check failed (or a SHOULD check with --strict)
  2    usage or configuration error, or the target cannot be tested (unreachable, key refused,
       or the environment failing for --retry-budget in 3 checks in a row: outage, key revoked)
  130  interrupted (Ctrl-C / SIGTERM); the run restored what it changed before exiting
`;
