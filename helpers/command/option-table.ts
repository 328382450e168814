import { join } from 'node:path';
import { apiKey, baseUrl, existing, MAX_TIMER_MS, pattern, rerunOf, runId, type NumberRule } from './option-checks.ts';
import { DEFAULT_LIMITS } from '../core/limits.ts';

/** Where runs keep their report folders unless told (--report-dir): reports/<timestamp>. */
export const DEFAULT_REPORTS = 'reports';

/**
 * One option of the command. The table below is the only place an option is written: --help,
 * parsing, defaults, the environment, validation, RunOptions and the typed API all read it.
 */
export interface OptionRow {
  /** The long flag, without its dashes. */
  readonly flag: string;
  readonly short?: string;
  /** What the flag takes, as --help names it (URL, FILE, S); none: a switch. */
  readonly arg?: string;
  readonly repeatable?: boolean;
  /** The environment variable read when the flag is not given. */
  readonly env?: string;
  /** Taken when neither the flag nor its variable is given; a function for one made per run. */
  readonly default?: number | string | (() => string);
  /** How --help shows a default that is made per run. */
  readonly shownDefault?: string;
  /** A number option: what it accepts. */
  readonly number?: NumberRule;
  /** The value a flag's text stands for, or its usage error; `source` names the flag or variable. */
  readonly check?: (text: string, source: string) => string;
  /** Its field in RunOptions; none: a resolver of its own reads it (options.ts). */
  readonly field?: string;
  /** RunOptions holds this of the number given (seconds to milliseconds). */
  readonly scale?: (n: number) => number;
  /** Its name in the typed API (ConformanceOptions); none: the command's only. */
  readonly api?: string;
  /** --help's words, lines apart by \n; {default} shows the default. None: another flag's words say it (--yes). */
  readonly help?: string;
  /** --help lists it beside the flag above (--cert FILE, --key FILE). */
  readonly besideAbove?: boolean;
  /** A later command against the same target needs it to reach it (the printed --recover line). */
  readonly carried?: boolean;
  /** Given without one of these flags, it is a usage error saying `why`. */
  readonly needs?: { readonly flags: readonly string[]; readonly why: string };
  /** The value a flag that takes one stands for when given bare (last, or before another flag). */
  readonly bare?: string;
  /** Given with any of these flags, it is a usage error saying `why`. */
  readonly refuses?: readonly { readonly flags: readonly string[]; readonly why: string }[];
}

const seconds = (s: number) => s * 1000;
const timerSeconds: NumberRule = { unit: 'seconds', min: 0, max: MAX_TIMER_MS / 1000 };
const timestamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** In the order --help lists them. */
export const OPTIONS = [
  { flag: 'base-url', arg: 'URL', env: 'SCHEDULING_BASE_URL', check: baseUrl, field: 'baseUrl', api: 'baseUrl', help: 'target origin, e.g. https://staging.example.com' },
  { flag: 'api-key', arg: 'KEY', env: 'SCHEDULING_API_KEY', check: apiKey, field: 'apiKey', api: 'apiKey', help: 'valid API key; prefer the env variable' },
  { flag: 'expired-key', arg: 'KEY', env: 'SCHEDULING_EXPIRED_KEY', check: apiKey, field: 'expiredKey', api: 'expiredKey', help: 'an expired key, for the expired-key check' },
  { flag: 'config', arg: 'FILE', field: 'configFile', api: 'config', carried: true, help: 'vendor settings (JSON, see spec/vendor-config.schema.json)' },
  { flag: 'report-dir', arg: 'DIR', default: () => join(DEFAULT_REPORTS, timestamp()), shownDefault: 'reports/<timestamp>', field: 'reportDir', api: 'reportDir', help: 'where reports go (default {default})' },
  { flag: 'strict', field: 'strict', api: 'strict', help: 'SHOULD failures fail the run' },
  { flag: 'read-only', field: 'readOnly', api: 'readOnly', help: 'run only checks that change nothing on the target' },
  { flag: 'timeout', arg: 'MS', default: 10000, number: { whole: true, unit: 'milliseconds', min: 1, max: MAX_TIMER_MS }, field: 'timeoutMs', api: 'timeoutMs', carried: true, help: 'per-request timeout in milliseconds (default {default})' },
  {
    flag: 'run-timeout', arg: 'S', default: 1800, number: { unit: 'seconds', min: 0, above: true, max: MAX_TIMER_MS / 1000 }, scale: seconds, field: 'runTimeoutMs', api: 'runTimeoutSeconds',
    help: 'stop the whole run after S seconds (start-up included), clean up, exit 2 (default {default})',
  },
  { flag: 'rate', arg: 'N', number: { unit: 'requests per second', min: 0, above: true }, field: 'rate', api: 'rate', carried: true, help: 'at most N requests per second (for rate-limited staging)' },
  {
    flag: 'concurrency', arg: 'N', number: { whole: true, min: 1, max: 16 }, field: 'concurrency',
    help: 'after the operations pass, run up to N lanes (business, customers, team\nmembers) at once, in the one suite worker (default 1 on loopback, where the run\nis CPU-bound; 3 for any other target; give 3 for a distant target reached\nthrough a tunnel on localhost); --rate holds for all together',
  },
  { flag: 'allow-http', field: 'allowHttp', api: 'allowHttp', help: 'no warning for a plain-HTTP base URL that is not loopback' },
  {
    flag: 'header', arg: "'NAME: VALUE'", repeatable: true, carried: true,
    help: 'send this header with every request (repeatable; e.g. a tenant or gateway header);\n$VAR or ${VAR} in VALUE is taken from the environment and shown as $VAR in every report',
  },
  { flag: 'ca', arg: 'FILE', carried: true, help: 'also trust this CA (PEM) for the target\'s certificate (NODE_EXTRA_CA_CERTS works too)' },
  { flag: 'cert', arg: 'FILE', carried: true, needs: { flags: ['key'], why: '--cert and --key go together: a client certificate needs its private key' }, help: 'client certificate and key (PEM) for a target that asks for mutual TLS' },
  { flag: 'key', arg: 'FILE', carried: true, needs: { flags: ['cert'], why: '--cert and --key go together: a client certificate needs its private key' }, besideAbove: true },
  { flag: 'wait-for-target', arg: 'S', default: 0, number: timerSeconds, scale: seconds, field: 'waitForTargetMs', help: 'keep asking a target that does not answer yet, for up to S seconds (CI starting it)' },
  {
    flag: 'converge-window', arg: 'S', default: DEFAULT_LIMITS.convergeWindowMs / 1000, number: { unit: 'seconds', min: 0, max: 600 }, scale: seconds, field: 'convergeWindowMs',
    help: 'after a write, read for up to S seconds until it shows (a lagging read replica;\ndefault {default}); a write that never shows still fails',
  },
  {
    flag: 'max-pages', arg: 'N', default: DEFAULT_LIMITS.maxPages, number: { whole: true, unit: 'pages', min: 1 }, field: 'maxPages',
    help: 'read a paged list to at most N pages (default {default}); past them, the checks that\nneed the whole list are blocked',
  },
  {
    flag: 'explore', arg: 'N', default: 10, number: { whole: true, unit: 'commands', min: 0, max: 100000 }, field: 'exploreCommands', api: 'explore',
    help: 'after the checks, explore N generated operations, judged by the contract\'s promises\n(default {default}; 0: none); a broken promise is shrunk to its shortest sequence',
  },
  {
    flag: 'explore-seed', arg: 'S', number: { whole: true, min: 0, max: 2 ** 31 - 1 }, field: 'exploreSeed', api: 'exploreSeed',
    help: 'the seed of the exploration, to replay a run exactly (default: a new one, printed)',
  },
  {
    flag: 'sweep', field: 'sweep',
    refuses: [
      { flags: ['read-only'], why: '--sweep deletes records: it cannot be combined with --read-only' },
      { flags: ['only'], why: '--sweep deletes by the run marker, not by check: it cannot be combined with --only' },
    ],
    help: 'only list customers left by earlier, crashed runs (by their run marker), and the\nbusiness and team member fields holding their values; with --yes, delete the\ncustomers (never those of a run still going: its lease is live)',
  },
  { flag: 'yes', field: 'sweepYes', needs: { flags: ['sweep', 'release'], why: '--yes only confirms --sweep or --release' } },
  { flag: 'cleanup-timeout', arg: 'S', default: 60, number: timerSeconds, scale: seconds, field: 'cleanupTimeoutMs', help: 'retry what the clean-up could not undo for at most S seconds (default {default})' },
  {
    flag: 'retry-budget', arg: 'S', default: DEFAULT_LIMITS.retryBudgetMs / 1000, number: timerSeconds, scale: seconds, field: 'retryBudgetMs', api: 'retryBudgetSeconds',
    help: 'when a request and the preflight\'s known-good request both fail (5xx, no answer, the\nkey refused), ask again for up to S seconds before the check is blocked by the\nenvironment; 3 such blocks in a row stop the run, exit 2 (default {default})',
  },
  {
    flag: 'max-body-mib', arg: 'N', default: DEFAULT_LIMITS.maxBodyBytes / 2 ** 20, number: { unit: 'MiB', min: 0, above: true, max: 256 }, scale: (mib: number) => Math.floor(mib * 2 ** 20), field: 'maxBodyBytes', api: 'maxBodyMiB',
    help: 'read answer bodies up to N MiB; a larger one blocks its check, never fails it (default {default})',
  },
  {
    flag: 'recover', arg: 'DIR', field: 'recover', repeatable: true,
    refuses: [{ flags: ['sweep', 'read-only', 'only'], why: '--recover only undoes what an earlier run left: it cannot be combined with --sweep, --read-only or --only' }],
    help: 'only undo, from DIR\'s run journals (or a journal file), what those runs left on the target, then exit;\nrepeat it for runs that overlapped: the newest is undone first, so that each record\nends as the oldest run found it',
  },
  {
    flag: 'release', arg: 'RUN', check: runId, field: 'release',
    refuses: [{ flags: ['sweep', 'recover', 'read-only', 'only'], why: '--release only frees the target of one earlier run: it cannot be combined with --sweep, --recover, --read-only or --only' }],
    help: 'only free the target of run RUN (as --sweep names it), stopped with its journal lost:\nlist what it would write (RUN\'s customers deleted, the fields holding its marker\nput back: the marker taken out, or the originals of --from); with --yes, do it',
  },
  {
    flag: 'from', arg: 'PATH', check: existing, field: 'releaseFrom', needs: { flags: ['release'], why: '--from only gives --release the originals to put back' },
    help: 'with --release: the originals to put back (an earlier run\'s report directory or\nrun-journal.jsonl, or a JSON file {"<path>": {record}, ...})',
  },
  {
    flag: 'only', arg: 'PATTERN', check: pattern, field: 'only', api: 'only',
    help: 'run only checks whose "<id> <title>" matches PATTERN (a regular expression);\none that matches none exits 2 before any request',
  },
  {
    flag: 'rerun-failed', arg: 'DIR', bare: 'reports', check: rerunOf, field: 'rerunOnly',
    refuses: [{ flags: ['only'], why: '--rerun-failed selects the checks itself: give it or --only, not both' }],
    help: 'only the checks that failed, warned or were blocked in the last run in DIR (a run\'s\nreport directory, or a folder of them; default reports), with what they need',
  },
  {
    flag: 'expect', arg: 'FILE', field: 'expectFile', api: 'expect',
    help: 'known deviations: check id -> expected outcome (see spec/expectations.schema.json);\na pinned failure does not fail the run',
  },
  {
    flag: 'certify',
    help: 'write the certification bundle too; refuses --only and --read-only, ignores --expect;\ncertified only a --base-url target with no MUST untested (give the expired key too)',
  },
  { flag: 'summary', arg: 'FILE', field: 'summaryFile', api: 'summary', help: 'write the Markdown summary to FILE (appended to $GITHUB_STEP_SUMMARY when that is set)' },
  {
    flag: 'list', field: 'list',
    help: 'print every check (id, level, clause, title, whether it changes data); sends nothing;\n--only, --read-only and --config apply',
  },
  { flag: 'json', field: 'json', needs: { flags: ['list'], why: '--json goes with --list (a run writes result.json in the report directory)' }, help: 'with --list: the list as JSON' },
  { flag: 'vendor', arg: 'NAME' },
  { flag: 'product', arg: 'NAME', besideAbove: true },
  { flag: 'product-version', arg: 'V', besideAbove: true },
  { flag: 'contact', arg: 'C', besideAbove: true, help: 'who and what is certified (default: the config file\'s "product")' },
  { flag: 'help', short: 'h', help: 'this help' },
  { flag: 'version', short: 'v', help: 'the suite\'s version' },
] as const satisfies readonly OptionRow[];

type Row = (typeof OPTIONS)[number];
export type Flag = Row['flag'];

/** What a flag holds once read: its text, true for a switch, every text of a repeatable one; the typed API gives numbers as numbers. */
export type Given = Partial<Record<Flag, string | number | boolean | string[]>>;

type Value<R> = R extends { repeatable: true } ? string[] : R extends { number: NumberRule } ? number : R extends { arg: string } ? string : boolean;
/** A value every run has: a switch (false), a repeatable flag (none), a default. */
type Always<R> = R extends { default: unknown } ? true : R extends { arg: string } ? (R extends { repeatable: true } ? true : false) : true;

/** RunOptions' fields the table fills: one per row with a field. */
export type TableOptions = {
  [R in Row as R extends { field: infer K extends string } ? K : never]: Always<R> extends true ? Value<R> : Value<R> | undefined;
};

/** The typed API's options the table names: one per row with an api name, each optional. */
export type ApiOptions = {
  [R in Row as R extends { api: infer A extends string } ? A : never]?: Value<R>;
};

// A flag a rule names that is no row would make the rule hold nothing: tsc refuses it.
type Named = Extract<Row, { needs: unknown }>['needs']['flags'][number] | Extract<Row, { refuses: unknown }>['refuses'][number]['flags'][number];
const namedAreFlags: [Named] extends [Flag] ? true : never = true;
void namedAreFlags;
