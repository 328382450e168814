import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { UsageError } from './errors.ts';
import { loadVendorConfig, type VendorConfig } from './vendor-config.ts';

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
  /** No warning for a plain-HTTP base URL that is not loopback. */
  allowHttp: boolean;
  /** Only delete what earlier, crashed runs left behind (by the run marker), then exit. */
  sweep: boolean;
  help: boolean;
  version: boolean;
}

export const HELP = `Usage: scheduling-conformance [options]

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
  --run-timeout S     stop the whole run after S seconds, clean up, exit 2 (default 1800)
  --rate N            at most N requests per second (for rate-limited staging)
  --allow-http        no warning for a plain-HTTP base URL that is not loopback
  --sweep             only delete customers left by earlier, crashed runs (by their run marker)
  -h, --help          this help
  -v, --version       the suite's version

A .env file in the working directory is read too; flags win over the environment.

Exit codes:
  0    conformant: every MUST check passed (and every SHOULD check with --strict)
  1    not conformant: a MUST check failed (or a SHOULD check with --strict)
  2    usage or configuration error, or the target cannot be tested (unreachable, key refused)
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
  'allow-http': { type: 'boolean' },
  sweep: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The environment the command sees: `.env` in the working directory, overridden by the real one. */
export function commandEnvironment(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const file = join(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...env };
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): RunOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    // parseArgs messages are one clear line; drop its "To specify a positional argument..." tail.
    throw new UsageError(String((e as Error).message).split('\n')[0].replace(/\. To specify.*$/, ''));
  }
  const str = (flag: string, name: string) => (values[flag] as string | undefined) ?? (env[name] || undefined);

  const baseUrl = str('base-url', 'SCHEDULING_BASE_URL');
  if (baseUrl !== undefined) checkBaseUrl(baseUrl);

  const timeoutText = (values.timeout as string | undefined) ?? '10000';
  const timeoutMs = Number(timeoutText);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`--timeout must be a positive number of milliseconds, got "${timeoutText}"`);
  }
  const runTimeoutText = (values['run-timeout'] as string | undefined) ?? '1800';
  const runTimeoutS = Number(runTimeoutText);
  if (!Number.isFinite(runTimeoutS) || runTimeoutS <= 0) {
    throw new UsageError(`--run-timeout must be a positive number of seconds, got "${runTimeoutText}"`);
  }
  const rateText = values.rate as string | undefined;
  const rate = rateText === undefined ? undefined : Number(rateText);
  if (rate !== undefined && (!Number.isFinite(rate) || rate <= 0)) {
    throw new UsageError(`--rate must be a positive number of requests per second, got "${rateText}"`);
  }
  const configFile = values.config as string | undefined;
  const help = Boolean(values.help);
  const version = Boolean(values.version);
  return {
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: str('api-key', 'SCHEDULING_API_KEY'),
    expiredKey: str('expired-key', 'SCHEDULING_EXPIRED_KEY'),
    vendor: help || version ? loadVendorConfig(undefined) : loadVendorConfig(configFile),
    configFile,
    reportDir: (values['report-dir'] as string | undefined) ?? join('reports', timestamp()),
    strict: Boolean(values.strict),
    readOnly: Boolean(values['read-only']),
    timeoutMs,
    runTimeoutMs: runTimeoutS * 1000,
    rate,
    allowHttp: Boolean(values['allow-http']),
    sweep: Boolean(values.sweep),
    help,
    version,
  };
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

function checkBaseUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--base-url "${text}" is not a URL (expected e.g. https://staging.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must be http:// or https://, got ${url.protocol}`);
  }
  if (url.username || url.password) throw new UsageError('--base-url must not carry credentials; use SCHEDULING_API_KEY');
  if (url.search || url.hash) throw new UsageError('--base-url must not have a query or fragment');
}
