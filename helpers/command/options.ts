import { parseArgs, type ParseArgsConfig } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { UsageError } from '../core/errors.ts';
import { loadVendorConfig, type VendorConfig } from '../config/vendor-config.ts';
import { loadExpectations, type Expectations } from '../config/expectations.ts';
import type { Product } from '../config/product.ts';
import { isLoopback, proxyEnvironment, proxyFor } from '../http/network.ts';
import type { ExtraHeader, Network } from '../config/target.ts';
import { relaunchOf } from './relaunch.ts';
import { numberOf } from './option-checks.ts';
import { OPTIONS, type Flag, type Given, type OptionRow, type TableOptions } from './option-table.ts';

export { HELP } from './help.ts';

/**
 * Everything a run needs to know, resolved from flags (or the typed API), then environment, then
 * `.env`: the field of each option of the table that names one, and what is read from several.
 */
export type RunOptions = TableOptions & {
  vendor: VendorConfig;
  /** Known deviations from --expect; undefined in a certification run, which ignores them. */
  expectations?: Expectations;
  /** Set for a certification run (--certify): who and what is certified. */
  certify?: Product;
  /** The CA, client certificate and key files; the proxy is decided with the target's URL. */
  network: Omit<Network, 'proxy'>;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY of the command's environment. */
  proxies: ReturnType<typeof proxyEnvironment>;
  /** --header, repeatable. */
  headers: ExtraHeader[];
  /** $GITHUB_STEP_SUMMARY: the Markdown summary is appended there too. */
  stepSummaryFile?: string;
  /** How to start the command again against this target (relaunch.ts): for the printed --recover line. */
  relaunch: string[];
};

const ROWS: readonly OptionRow[] = OPTIONS;

/** parseArgs' options, from the table. */
const PARSED: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  ROWS.map((r) => [r.flag, { type: r.arg ? 'string' : 'boolean', ...(r.repeatable && { multiple: true }), ...(r.short && { short: r.short }) }]),
);

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

/** The flags of a command line, as given; a flag it does not know is a usage error. */
export function readArgv(argv: string[]): Given {
  try {
    return parseArgs({ args: bareValues(joinNegativeNumbers(argv)), options: PARSED, strict: true, allowPositionals: false }).values as Given;
  } catch (e) {
    // parseArgs messages are one clear line; drop its "To specify a positional argument..." tail.
    throw new UsageError(String((e as Error).message).split('\n')[0].replace(/\. To specify.*$/, ''));
  }
}

/** The flags of a command line that could not be read, as far as they can be: what its error report still honours (see Fallback). */
export function readArgvLeniently(argv: string[]): Given {
  try {
    return parseArgs({ args: argv, options: PARSED, strict: false, allowPositionals: true }).values as Given;
  } catch {
    return {};
  }
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): RunOptions {
  return resolveOptions(readArgv(argv), env);
}

/** What a run needs from the options given (by flag or by the typed API) and the environment, or the usage error. */
export function resolveOptions(given: Given, env: Record<string, string | undefined>): RunOptions {
  // Set but empty is not "no target": a CI variable that is unset or misspelled would otherwise
  // test the embedded reference and go green.
  if (given['base-url'] === undefined && env.SCHEDULING_BASE_URL !== undefined && env.SCHEDULING_BASE_URL.trim() === '') {
    throw new UsageError('SCHEDULING_BASE_URL is set but empty (is the CI variable behind it defined?): give the target\'s URL, or unset it to test the embedded reference');
  }
  refuseCombinations(given);
  const table = Object.fromEntries(ROWS.filter((r) => r.field).map((r) => [r.field, valueOf(r, given, env)])) as TableOptions;
  if (table.rerunOnly !== undefined) table.only = table.rerunOnly;
  // The same key cannot be valid and expired: every expired-key check would fail, wrongly.
  if (table.expiredKey !== undefined && table.expiredKey === table.apiKey) throw new UsageError('the expired key is the same as the valid key: give an expired key, or none (the expired-key checks are then not tested)');
  const network = tlsFiles(text(given.ca), text(given.cert), text(given.key));
  const headers = [given.header ?? []].flat().map((h) => extraHeader(String(h), env));
  const vendor = loadVendorConfig(table.configFile);
  const certify = given.certify && !table.list ? certification(given, vendor, table.only !== undefined || table.readOnly) : undefined;
  return {
    ...table,
    vendor,
    expectations: table.expectFile && !certify ? loadExpectations(table.expectFile) : undefined,
    certify,
    stepSummaryFile: env.GITHUB_STEP_SUMMARY || undefined,
    network,
    proxies: proxyEnvironment(env),
    headers,
    relaunch: relaunchOf(given, env),
  };
}

/** Options named as the typed API names them (the table's `api`), as the flags would hold them. */
export function givenByApiName(named: object): Given {
  const values = named as Record<string, Given[Flag]>;
  return Object.fromEntries(ROWS.filter((r) => r.api && values[r.api] !== undefined).map((r) => [r.flag, values[r.api!]]));
}

const text = (value: Given[Flag]) => (value === undefined ? undefined : String(value));
const isGiven = (given: Given, flag: string) => given[flag as Flag] !== undefined && given[flag as Flag] !== false;

/** A flag given with one it refuses, or without one it needs. */
function refuseCombinations(given: Given): void {
  for (const row of ROWS.filter((r) => isGiven(given, r.flag))) {
    for (const refusal of row.refuses ?? []) if (refusal.flags.some((f) => isGiven(given, f))) throw new UsageError(refusal.why);
    if (row.needs && !row.needs.flags.some((f) => isGiven(given, f))) throw new UsageError(row.needs.why);
  }
}

/** An option's value: the flag, else its environment variable (unless empty), else its default; checked, and scaled to RunOptions' unit. */
function valueOf(row: OptionRow, given: Given, env: Record<string, string | undefined>): unknown {
  const flagged = given[row.flag as Flag];
  const value = flagged ?? (row.env ? env[row.env] || undefined : undefined);
  const scaled = (n: number) => (row.scale ? row.scale(n) : n);
  if (value === undefined) {
    const fallback = typeof row.default === 'function' ? row.default() : row.default;
    if (fallback !== undefined) return typeof fallback === 'number' ? scaled(fallback) : fallback;
    return row.arg ? (row.repeatable ? [] : undefined) : false;
  }
  if (!row.arg) return Boolean(value);
  // The typed API's caller without types: a switch's true where a value belongs, as parseArgs says it.
  if (typeof value === 'boolean') throw new UsageError(`Option '--${row.flag} <value>' argument missing`);
  const source = flagged !== undefined ? `--${row.flag}` : row.env!;
  if (row.number) return scaled(numberOf(value as string | number, row.number, source));
  if (row.repeatable) return [value].flat().map(String);
  return row.check ? row.check(String(value), source) : String(value);
}

/** The proxy the run goes through, from the command's environment; undefined: none. */
export const runProxy = (options: RunOptions, baseUrl: string) => proxyFor(baseUrl, options.proxies);

/** PEM files for TLS: each must be readable and hold PEM; a certificate needs its key. */
function tlsFiles(ca: string | undefined, cert: string | undefined, key: string | undefined): Omit<Network, 'proxy'> {
  // The table's rule sees a flag given; an empty file name is no certificate or key either.
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

/** A flag whose value may be left out (--rerun-failed), given bare: its value is the table's. */
function bareValues(argv: string[]): string[] {
  return argv.flatMap((a, i) => {
    const row = ROWS.find((r) => r.bare !== undefined && a === `--${r.flag}`);
    return row && (argv[i + 1] === undefined || argv[i + 1].startsWith('-')) ? [a, row.bare!] : [a];
  });
}

/** Flags that take a number. */
const NUMERIC_FLAGS = ROWS.filter((r) => r.number).map((r) => `--${r.flag}`);

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

/** Every MUST check runs in a certification, and the bundle names who is certified. */
function certification(given: Given, vendor: VendorConfig, filtered: boolean): Product {
  if (filtered) throw new UsageError('--certify runs every check: it cannot be combined with --only or --read-only');
  const from = (flag: Flag, key: keyof Product) => text(given[flag]) ?? vendor.product?.[key];
  const product = { vendor: from('vendor', 'vendor'), product: from('product', 'product'), version: from('product-version', 'version'), contact: from('contact', 'contact') };
  const missing = (['vendor', 'product', 'version'] as const).filter((k) => !product[k]);
  if (missing.length) {
    throw new UsageError(`--certify needs ${missing.join(', ')} of the product: give --vendor, --product, --product-version or "product" in the config file`);
  }
  return Object.fromEntries(Object.entries(product).filter(([, v]) => v)) as unknown as Product;
}

/**
 * Lanes at once when --concurrency is not given. On loopback a run is CPU-bound: one after
 * another. Against anything further, round trips dominate: every resource's lane at once (the
 * business, customers, team members), in the one suite worker, so at no cost in memory.
 */
export function defaultConcurrency(baseUrl: string): number {
  return isLoopback(new URL(baseUrl).hostname.replace(/^\[|\]$/g, '')) ? 1 : LANES;
}

/** The resources' lanes (suites/resources.test.ts). */
const LANES = 3;
