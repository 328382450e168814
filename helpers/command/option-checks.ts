import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { onlyIds } from '../core/selection.ts';
import { isIssuedRunId } from '../records/run-marker.ts';

/** Node's timers hold at most 2^31-1 ms; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a number option accepts; its usage message is said from the same rule. */
export interface NumberRule {
  whole?: boolean;
  /** "milliseconds", "seconds": how --help and the message name what is counted. */
  unit?: string;
  min: number;
  /** The minimum itself is refused ("above 0"). */
  above?: boolean;
  max?: number;
}

/** "a whole number of milliseconds from 1 to 2147483647", "a positive number of requests per second". */
export function ruleText(rule: NumberRule): string {
  const positive = rule.above && rule.min === 0 && rule.max === undefined;
  const number = `${positive ? 'a positive' : rule.whole ? 'a whole' : 'a'} number${rule.unit ? ` of ${rule.unit}` : ''}`;
  if (positive) return number;
  const max = rule.max === undefined ? '' : rule.above ? ` and at most ${Math.floor(rule.max)}` : ` to ${Math.floor(rule.max)}`;
  return `${number} ${rule.above ? 'above' : 'from'} ${rule.min}${max}`;
}

/** The number given (a flag's text, or the typed API's number), or the usage error its rule says. */
export function numberOf(given: string | number, rule: NumberRule, source: string): number {
  const n = Number(given);
  const fits = (rule.whole ? Number.isInteger(n) : Number.isFinite(n)) && (rule.above ? n > rule.min : n >= rule.min) && (rule.max === undefined || n <= rule.max);
  if (!fits) throw new UsageError(`${source} must be ${ruleText(rule)}, got "${String(given)}"`);
  return n;
}

/** A base URL the suite can append /api/v1/… to; trailing slashes go. */
export function baseUrl(text: string, source: string): string {
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
  return text.replace(/\/+$/, '');
}

/**
 * A key must be something an Authorization header can carry: visible ASCII, no spaces. The
 * message never repeats the key.
 */
export function apiKey(key: string, source: string): string {
  const trimmed = key.trim();
  if (trimmed === '' || !/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new UsageError(`${source} is empty or holds characters an Authorization header cannot carry (spaces, control or non-ASCII characters)`);
  }
  return trimmed;
}

export function pattern(text: string, source: string): string {
  try {
    new RegExp(text);
  } catch (e) {
    throw new UsageError(`${source} "${text}" is not a regular expression (${(e as Error).message})`);
  }
  return text;
}

export function runId(text: string, source: string): string {
  if (!isIssuedRunId(text)) throw new UsageError(`${source} needs the id of the run to release, as --sweep names it (scr-YYYYMMDD-xxxxxxxx), got "${text}"`);
  return text;
}

export function existing(path: string, source: string): string {
  if (!existsSync(path)) throw new UsageError(`${source} ${path}: no such file or directory`);
  return path;
}

/** A run's result.json in DIR, or in the newest of DIR's folders that holds one (a folder of runs, as reports/ is). */
function lastResult(dir: string, source: string): { file: string; checks: { id: string; outcome: string }[] } {
  const own = join(dir, 'result.json');
  let candidates: string[];
  try {
    candidates = existsSync(own) ? [own] : readdirSync(dir).map((d) => join(dir, d, 'result.json')).filter((f) => existsSync(f));
  } catch (e) {
    throw new UsageError(`${source} ${dir}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const file = candidates.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!file) throw new UsageError(`${source} ${dir}: no run's result.json there, nor in a folder of it`);
  try {
    const result = JSON.parse(readFileSync(file, 'utf8')) as { checks?: unknown };
    if (!Array.isArray(result.checks)) throw new Error('no checks');
    return { file, checks: result.checks as { id: string; outcome: string }[] };
  } catch (e) {
    throw new UsageError(`${source} ${file}: not a run's result.json (${(e as Error).message})`);
  }
}

/**
 * --rerun-failed DIR: the checks of the last run there that failed, warned or were blocked, as an
 * --only pattern (which then takes what they need with it).
 */
export function rerunOf(dir: string, source: string): string {
  const { file, checks } = lastResult(dir, source);
  const ids = checks.filter((c) => c.outcome === 'failed' || c.outcome === 'warning' || c.outcome === 'blocked').map((c) => c.id);
  if (!ids.length) throw new UsageError(`${source}: no check failed, warned or was blocked in ${file}: nothing to run again`);
  return onlyIds(ids);
}
