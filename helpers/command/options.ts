import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { UsageError } from '../core/errors.ts';
import { loadVendorConfig, type VendorConfig } from '../config/vendor-config.ts';
import { loadExpectations, type Expectations } from '../config/expectations.ts';
import type { Product } from '../config/product.ts';
import { isLoopback, proxyEnvironment, proxyFor } from '../http/network.ts';
import type { ExtraHeader, Network } from '../config/target.ts';
import { relaunchWords } from './relaunch.ts';
import { isIssuedRunId } from '../records/run-marker.ts';
import { MAX_BODY_BYTES, RETRY_BUDGET_MS } from '../http/limits.ts';

/** Everything a run needs to know, resolved from flags, then environment, then `.env`. */
export interface RunOptions {
  /** Undefined: start the embedded reference implementation. */
  baseUrl?: string;
  apiKey?: string;
  expiredKey?: string;
  vendor: VendorConfig;
  configFile?: string;
  reportDir: string;
  strict: boolean;
  readOnly: boolean;
  timeoutMs: number;
  /** The whole run stops starting checks after this, cleans up and exits 2. */
  runTimeoutMs: number;
  /** Requests per second at most; undefined: no cap. */
  rate?: number;
  /** Suite files (lanes) run at once after the operations pass; 1: one after another. */
  /** --concurrency; undefined: as suits the target (defaultConcurrency). */
  concurrency?: number;
  /** No warning for a plain-HTTP base URL that is not loopback. */
  allowHttp: boolean;
  /** Only list what earlier, crashed runs left behind (by the run marker), then exit. */
  sweep: boolean;
  /** --yes: the sweep deletes what it lists, --release does what it lists. */
  sweepYes: boolean;
  /** --recover DIR: undo, from that report directory's journal, what its run left; then exit. */
  recover?: string;
  /** --release RUN: free the target of a run that was stopped and whose journal is lost; then exit. */
  release?: string;
  /** --from PATH: the originals --release puts back (an earlier report directory, its journal, or a JSON file). */
  releaseFrom?: string;
  /** How long the after-run clean-up retries what it could not undo (--cleanup-timeout). */
  cleanupTimeoutMs: number;
  /** How long a check waits out a target that stopped answering before it is blocked by the environment (--retry-budget). */
  retryBudgetMs: number;
  /** The largest answer body the suite reads (--max-body-mib). */
  maxBodyBytes: number;
  /** Only checks whose name matches this pattern (a regular expression). */
  only?: string;
  expectFile?: string;
  /** Known deviations from --expect; undefined in a certification run, which ignores them. */
  expectations?: Expectations;
  /** Set for a certification run (--certify): who and what is certified. */
  certify?: Product;
  /** --list: print the checks this configuration declares, run nothing; as JSON with --json. */
  list: boolean;
  json: boolean;
  /** --summary FILE: the Markdown summary goes there. */
  summaryFile?: string;
  /** $GITHUB_STEP_SUMMARY: the Markdown summary is appended there too. */
  stepSummaryFile?: string;
  /** The CA, client certificate and key files; the proxy is decided with the target's URL. */
  network: Omit<Network, 'proxy'>;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY of the command's environment. */
  proxies: ReturnType<typeof proxyEnvironment>;
  /** --header, repeatable. */
  headers: ExtraHeader[];
  /** --wait-for-target: seconds to keep asking a target that does not answer yet. */
  waitForTargetMs: number;
  /** --converge-window: how long a read waits for the run's own write to show. */
  convergeWindowMs?: number;
  /** --max-pages: pages a list is read to before its completeness is unknown. */
  maxPages?: number;
  /** How to start the command again against this target (relaunch.ts): for the printed --recover line. */
  relaunch: string[];
}

export const HELP = `Usage: scheduling-conformance [options]
       scheduling-conformance verify <bundle-dir>

Holds a Scheduling API v1 implementation to its documented contract.
Without --base-url it starts the embedded reference implementation and tests that.

Options:
  --base-url URL      target origin, e.g. https://staging.example.com  (env SCHEDULING_BASE_URL)
  --api-key KEY       valid API key; prefer the env variable          (env SCHEDULING_API_KEY)
  --expired-key KEY   an expired key, for the expired-key check        (env SCHEDULING_EXPIRED_KEY)
  --config FILE       vendor settings (JSON, see spec/vendor-config.schema.json)
  --report-dir DIR    where reports go (default reports/<timestamp>)
  --strict            SHOULD failures fail the run
  --read-only         run only checks that change nothing on the target
  --timeout MS        per-request timeout in milliseconds (default 10000)
  --run-timeout S     stop the whole run after S seconds (start-up included), clean up, exit 2 (default 1800)
  --rate N            at most N requests per second (for rate-limited staging)
  --concurrency N     after the operations pass, run up to N suite files (business, customers,
                      team members) at once (default 1 on loopback, where the run is CPU-bound;
                      2 for any other target; give 2 for a distant target reached through a
                      tunnel on localhost); --rate holds for all together
  --allow-http        no warning for a plain-HTTP base URL that is not loopback
  --header 'NAME: VALUE'
                      send this header with every request (repeatable; e.g. a tenant or gateway header);
                      $VAR or \${VAR} in VALUE is taken from the environment and shown as $VAR in every report
  --ca FILE           also trust this CA (PEM) for the target's certificate (NODE_EXTRA_CA_CERTS works too)
  --cert FILE, --key FILE
                      client certificate and key (PEM) for a target that asks for mutual TLS
  --wait-for-target S keep asking a target that does not answer yet, for up to S seconds (CI starting it)
  --converge-window S after a write, read for up to S seconds until it shows (a lagging read replica;
                      default 3); a write that never shows still fails
  --max-pages N       read a paged list to at most N pages (default 1000); past them, the checks that
                      need the whole list are blocked
  --sweep             only list customers left by earlier, crashed runs (by their run marker), and the
                      business and team member fields holding their values; with --yes, delete the
                      customers (never those of a run still going: its lease is live)
  --cleanup-timeout S retry what the clean-up could not undo for at most S seconds (default 60)
  --retry-budget S    when a request and the preflight's known-good request both fail (5xx, no answer, the
                      key refused), ask again for up to S seconds before the check is blocked by the
                      environment; 3 such blocks in a row stop the run, exit 2 (default 30)
  --max-body-mib N    read answer bodies up to N MiB; a larger one blocks its check, never fails it (default 5)
  --recover DIR       only undo, from DIR's run journal, what that run left on the target, then exit
  --release RUN       only free the target of run RUN (as --sweep names it), stopped with its journal lost:
                      list what it would write (RUN's customers deleted, the fields holding its marker
                      put back: the marker taken out, or the originals of --from); with --yes, do it
  --from PATH         with --release: the originals to put back (an earlier run's report directory or
                      run-journal.jsonl, or a JSON file {"<path>": {record}, ...})
  --only PATTERN      run only checks whose "<id> <title>" matches PATTERN (a regular expression);
                      one that matches none exits 2 before any request
  --expect FILE       known deviations: check id -> expected outcome (see spec/expectations.schema.json);
                      a pinned failure does not fail the run
  --certify           write the certification bundle too; refuses --only and --read-only, ignores --expect;
                      certified only a --base-url target with no MUST untested (give the expired key too)
  --summary FILE      write the Markdown summary to FILE (appended to $GITHUB_STEP_SUMMARY when that is set)
  --list              print every check (id, level, clause, title, whether it changes data); sends nothing;
                      --only, --read-only and --config apply
  --json              with --list: the list as JSON
  --vendor NAME, --product NAME, --product-version V, --contact C
                      who and what is certified (default: the config file's "product")
  -h, --help          this help
  -v, --version       the suite's version

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

const FLAGS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'expired-key': { type: 'string' },
  config: { type: 'string' },
  'report-dir': { type: 'string' },
  strict: { type: 'boolean' },
  'read-only': { type: 'boolean' },
  timeout: { type: 'string' },
  'run-timeout': { type: 'string' },
  rate: { type: 'string' },
  concurrency: { type: 'string' },
  'allow-http': { type: 'boolean' },
  sweep: { type: 'boolean' },
  yes: { type: 'boolean' },
  recover: { type: 'string' },
  release: { type: 'string' },
  from: { type: 'string' },
  'cleanup-timeout': { type: 'string' },
  'retry-budget': { type: 'string' },
  'max-body-mib': { type: 'string' },
  header: { type: 'string', multiple: true },
  ca: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  'wait-for-target': { type: 'string' },
  'converge-window': { type: 'string' },
  'max-pages': { type: 'string' },
  only: { type: 'string' },
  expect: { type: 'string' },
  certify: { type: 'boolean' },
  vendor: { type: 'string' },
  product: { type: 'string' },
  'product-version': { type: 'string' },
  contact: { type: 'string' },
  summary: { type: 'string' },
  list: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The environment the command sees: `.env` in the working directory, overridden by the real one. */
export function commandEnvironment(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const file = join(cwd, '.env');
  let fromFile: Record<string, string> = {};
  try {
    if (existsSync(file)) fromFile = parseDotenv(readFileSync(file));
  } catch (e) {
    throw new UsageError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return { ...fromFile, ...env };
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): RunOptions {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: joinNegativeNumbers(argv), options: FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    // parseArgs messages are one clear line; drop its "To specify a positional argument..." tail.
    throw new UsageError(String((e as Error).message).split('\n')[0].replace(/\. To specify.*$/, ''));
  }
  const str = (flag: string, name: string) => (values[flag] as string | undefined) ?? (env[name] || undefined);

  // Set but empty is not "no target": a CI variable that is unset or misspelled would otherwise
  // test the embedded reference and go green.
  if (values['base-url'] === undefined && env.SCHEDULING_BASE_URL !== undefined && env.SCHEDULING_BASE_URL.trim() === '') {
    throw new UsageError('SCHEDULING_BASE_URL is set but empty (is the CI variable behind it defined?): give the target\'s URL, or unset it to test the embedded reference');
  }
  const baseUrl = str('base-url', 'SCHEDULING_BASE_URL');
  if (baseUrl !== undefined) checkBaseUrl(baseUrl, values['base-url'] !== undefined ? '--base-url' : 'SCHEDULING_BASE_URL');
  const apiKey = checkKey(str('api-key', 'SCHEDULING_API_KEY'), values['api-key'] !== undefined ? '--api-key' : 'SCHEDULING_API_KEY');
  const expiredKey = checkKey(str('expired-key', 'SCHEDULING_EXPIRED_KEY'), values['expired-key'] !== undefined ? '--expired-key' : 'SCHEDULING_EXPIRED_KEY');
  // The same key cannot be valid and expired: every expired-key check would fail, wrongly.
  if (expiredKey !== undefined && expiredKey === apiKey) throw new UsageError('the expired key is the same as the valid key: give an expired key, or none (the expired-key checks are then not tested)');

  const timeoutText = (values.timeout as string | undefined) ?? '10000';
  const timeoutMs = Number(timeoutText);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS) {
    throw new UsageError(`--timeout must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got "${timeoutText}"`);
  }
  const runTimeoutText = (values['run-timeout'] as string | undefined) ?? '1800';
  const runTimeoutS = Number(runTimeoutText);
  if (!Number.isFinite(runTimeoutS) || runTimeoutS <= 0 || runTimeoutS * 1000 > MAX_TIMER_MS) {
    throw new UsageError(`--run-timeout must be a number of seconds above 0 and at most ${Math.floor(MAX_TIMER_MS / 1000)}, got "${runTimeoutText}"`);
  }
  const cleanupText = (values['cleanup-timeout'] as string | undefined) ?? '60';
  const cleanupS = Number(cleanupText);
  if (!Number.isFinite(cleanupS) || cleanupS < 0 || cleanupS * 1000 > MAX_TIMER_MS) {
    throw new UsageError(`--cleanup-timeout must be a number of seconds from 0 to ${Math.floor(MAX_TIMER_MS / 1000)}, got "${cleanupText}"`);
  }
  const budgetText = (values['retry-budget'] as string | undefined) ?? String(RETRY_BUDGET_MS / 1000);
  const budgetS = Number(budgetText);
  if (!Number.isFinite(budgetS) || budgetS < 0 || budgetS * 1000 > MAX_TIMER_MS) {
    throw new UsageError(`--retry-budget must be a number of seconds from 0 to ${Math.floor(MAX_TIMER_MS / 1000)}, got "${budgetText}"`);
  }
  const bodyText = (values['max-body-mib'] as string | undefined) ?? String(MAX_BODY_BYTES / 2 ** 20);
  const bodyMiB = Number(bodyText);
  // Bodies are held in memory as a string: V8 caps one at about 512 MiB.
  if (!Number.isFinite(bodyMiB) || bodyMiB <= 0 || bodyMiB > 256) throw new UsageError(`--max-body-mib must be a number of MiB above 0 and at most 256, got "${bodyText}"`);
  if (values.recover !== undefined && (values.sweep || values['read-only'] || values.only !== undefined)) {
    throw new UsageError('--recover only undoes what an earlier run left: it cannot be combined with --sweep, --read-only or --only');
  }
  const rateText = values.rate as string | undefined;
  const rate = rateText === undefined ? undefined : Number(rateText);
  if (rate !== undefined && (!Number.isFinite(rate) || rate <= 0)) {
    throw new UsageError(`--rate must be a positive number of requests per second, got "${rateText}"`);
  }
  if (values.sweep && values['read-only']) throw new UsageError('--sweep deletes records: it cannot be combined with --read-only');
  if (values.sweep && values.only !== undefined) throw new UsageError('--sweep deletes by the run marker, not by check: it cannot be combined with --only');
  const release = values.release as string | undefined;
  if (release !== undefined && (values.sweep || values.recover !== undefined || values['read-only'] || values.only !== undefined)) {
    throw new UsageError('--release only frees the target of one earlier run: it cannot be combined with --sweep, --recover, --read-only or --only');
  }
  if (release !== undefined && !isIssuedRunId(release)) throw new UsageError(`--release needs the id of the run to release, as --sweep names it (scr-YYYYMMDD-xxxxxxxx), got "${release}"`);
  if (values.from !== undefined && release === undefined) throw new UsageError('--from only gives --release the originals to put back');
  if (values.from !== undefined && !existsSync(values.from as string)) throw new UsageError(`--from ${values.from as string}: no such file or directory`);
  if (values.yes && !values.sweep && release === undefined) throw new UsageError('--yes only confirms --sweep or --release');
  const concurrencyText = values.concurrency as string | undefined;
  const concurrency = concurrencyText === undefined ? undefined : Number(concurrencyText);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16)) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 16, got "${concurrencyText}"`);
  }
  const waitText = (values['wait-for-target'] as string | undefined) ?? '0';
  const waitS = Number(waitText);
  if (!Number.isFinite(waitS) || waitS < 0 || waitS * 1000 > MAX_TIMER_MS) {
    throw new UsageError(`--wait-for-target must be a number of seconds from 0 to ${Math.floor(MAX_TIMER_MS / 1000)}, got "${waitText}"`);
  }
  const convergeText = values['converge-window'] as string | undefined;
  const convergeS = convergeText === undefined ? undefined : Number(convergeText);
  if (convergeS !== undefined && (!Number.isFinite(convergeS) || convergeS < 0 || convergeS > 600)) {
    throw new UsageError(`--converge-window must be a number of seconds from 0 to 600, got "${convergeText}"`);
  }
  const pagesText = values['max-pages'] as string | undefined;
  const maxPages = pagesText === undefined ? undefined : Number(pagesText);
  if (maxPages !== undefined && (!Number.isInteger(maxPages) || maxPages < 1)) {
    throw new UsageError(`--max-pages must be a whole number of pages from 1, got "${pagesText}"`);
  }
  const network = tlsFiles(values.ca as string | undefined, values.cert as string | undefined, values.key as string | undefined);
  const headers = ((values.header as string[] | undefined) ?? []).map((h) => extraHeader(h, env));
  const configFile = values.config as string | undefined;
  const vendor = loadVendorConfig(configFile);
  const only = values.only as string | undefined;
  if (only !== undefined) checkPattern(only);
  const expectFile = values.expect as string | undefined;
  if (values.json && !values.list) throw new UsageError('--json goes with --list (a run writes result.json in the report directory)');
  const certify = values.certify && !values.list ? certification(values, vendor, only !== undefined || Boolean(values['read-only'])) : undefined;
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey,
    expiredKey,
    vendor,
    configFile,
    reportDir: (values['report-dir'] as string | undefined) ?? join('reports', timestamp()),
    strict: Boolean(values.strict),
    readOnly: Boolean(values['read-only']),
    timeoutMs,
    runTimeoutMs: runTimeoutS * 1000,
    rate,
    concurrency,
    allowHttp: Boolean(values['allow-http']),
    sweep: Boolean(values.sweep),
    sweepYes: Boolean(values.yes),
    recover: values.recover as string | undefined,
    release,
    releaseFrom: values.from as string | undefined,
    cleanupTimeoutMs: cleanupS * 1000,
    retryBudgetMs: budgetS * 1000,
    maxBodyBytes: Math.floor(bodyMiB * 2 ** 20),
    only,
    expectFile,
    expectations: expectFile && !certify ? loadExpectations(expectFile) : undefined,
    certify,
    list: Boolean(values.list),
    json: Boolean(values.json),
    summaryFile: values.summary as string | undefined,
    stepSummaryFile: env.GITHUB_STEP_SUMMARY || undefined,
    network,
    proxies: proxyEnvironment(env),
    headers,
    waitForTargetMs: waitS * 1000,
    convergeWindowMs: convergeS === undefined ? undefined : convergeS * 1000,
    maxPages,
    relaunch: relaunchWords(argv, env),
  };
}

/** The proxy the run goes through, from the command's environment; undefined: none. */
export const runProxy = (options: RunOptions, baseUrl: string) => proxyFor(baseUrl, options.proxies);

/** PEM files for TLS: each must be readable and hold PEM; a certificate needs its key. */
function tlsFiles(ca: string | undefined, cert: string | undefined, key: string | undefined): Omit<Network, 'proxy'> {
  if (Boolean(cert) !== Boolean(key)) throw new UsageError('--cert and --key go together: a client certificate needs its private key');
  for (const [flag, file] of [['--ca', ca], ['--cert', cert], ['--key', key]] as const) {
    if (!file) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`${flag} ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) throw new UsageError(`${flag} ${file}: not a PEM file (expected a "-----BEGIN ...-----" block)`);
  }
  return { caFile: ca, certFile: cert, keyFile: key };
}

/** Headers the suite sets itself, or that would change how a request travels: --header cannot set them. */
const OWN_HEADERS = ['authorization', 'accept', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'proxy-authorization'];

/**
 * `--header 'NAME: VALUE'`. $VAR and ${VAR} in the value are taken from the environment, and
 * every report shows them as $VAR: a secret header is given through the environment.
 */
function extraHeader(text: string, env: Record<string, string | undefined>): ExtraHeader {
  const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):\s*(.*)$/.exec(text);
  if (!m) throw new UsageError(`--header "${text.split(':')[0]}…" is not "Name: value" (a header name, a colon, the value)`);
  const [, name, raw] = m;
  if (OWN_HEADERS.includes(name.toLowerCase())) throw new UsageError(`--header ${name}: the suite sets this header itself`);
  const secrets: { variable: string; value: string }[] = [];
  const value = raw.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced: string | undefined, bare: string | undefined) => {
    const variable = (braced ?? bare) as string;
    const found = env[variable];
    if (found === undefined || found === '') throw new UsageError(`--header ${name}: the environment variable ${variable} is not set`);
    secrets.push({ variable, value: found });
    return found;
  });
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value holds a line break or NUL, which a header cannot carry`);
  return { name, value, ...(secrets.length && { secrets }) };
}

/** Flags that take a number. */
const NUMERIC_FLAGS = ['--timeout', '--run-timeout', '--rate', '--wait-for-target', '--concurrency', '--cleanup-timeout', '--retry-budget', '--max-body-mib', '--converge-window', '--max-pages'];

/**
 * parseArgs takes "-5" after a flag for an option of its own ("argument is ambiguous"): a
 * negative number is joined to its flag, so that the flag's own check says what is wrong.
 */
function joinNegativeNumbers(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (NUMERIC_FLAGS.includes(argv[i]) && /^-[\d.]/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

/**
 * A warning for a base URL that would carry the key in clear text over a network, or undefined:
 * https, or http to this machine, is fine.
 */
export function plainHttpWarning(baseUrl: string, allowHttp: boolean): string | undefined {
  const url = new URL(baseUrl);
  if (allowHttp || url.protocol !== 'http:') return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) return undefined;
  return `warning: ${url.origin} is plain HTTP: the API key would travel in clear text (use https, or --allow-http to silence this)`;
}

function checkPattern(pattern: string): void {
  try {
    new RegExp(pattern);
  } catch (e) {
    throw new UsageError(`--only "${pattern}" is not a regular expression (${(e as Error).message})`);
  }
}

/** Every MUST check runs in a certification, and the bundle names who is certified. */
function certification(values: Record<string, string | boolean | string[] | undefined>, vendor: VendorConfig, filtered: boolean): Product {
  if (filtered) throw new UsageError('--certify runs every check: it cannot be combined with --only or --read-only');
  const from = (flag: string, key: keyof Product) => (values[flag] as string | undefined) ?? vendor.product?.[key];
  const product = { vendor: from('vendor', 'vendor'), product: from('product', 'product'), version: from('product-version', 'version'), contact: from('contact', 'contact') };
  const missing = (['vendor', 'product', 'version'] as const).filter((k) => !product[k]);
  if (missing.length) {
    throw new UsageError(`--certify needs ${missing.join(', ')} of the product: give --vendor, --product, --product-version or "product" in the config file`);
  }
  return Object.fromEntries(Object.entries(product).filter(([, v]) => v)) as unknown as Product;
}

/** Node's timers hold at most 2^31-1 ms; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A key must be something an Authorization header can carry: visible ASCII, no spaces. The
 * message never repeats the key.
 */
function checkKey(key: string | undefined, source: string): string | undefined {
  if (key === undefined) return undefined;
  const trimmed = key.trim();
  if (trimmed === '' || !/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new UsageError(`${source} is empty or holds characters an Authorization header cannot carry (spaces, control or non-ASCII characters)`);
  }
  return trimmed;
}

function checkBaseUrl(text: string, source: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} "${text}" is not a URL (expected e.g. https://staging.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must be http:// or https://, got ${url.protocol}`);
  }
  if (url.username || url.password) throw new UsageError(`${source} must not carry credentials; use SCHEDULING_API_KEY`);
  if (url.search || url.hash) throw new UsageError(`${source} must not have a query or fragment`);
  if (/\/api\/v1\/?$/.test(url.pathname)) {
    throw new UsageError(`${source} ends in /api/v1: give the address before it (e.g. ${url.origin}); the suite appends /api/v1/… itself`);
  }
}

/**
 * Suite files at once when --concurrency is not given. On loopback a run is CPU-bound: more
 * workers cost more than they save. Against anything further, round trips dominate, and two
 * workers (the business lane in one, customers then team members in the other) come within a few
 * percent of three, with one worker's memory less (npm run bench).
 */
export function defaultConcurrency(baseUrl: string): number {
  return isLoopback(new URL(baseUrl).hostname.replace(/^\[|\]$/g, '')) ? 1 : 2;
}
