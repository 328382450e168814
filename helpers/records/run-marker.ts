import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../http/client.ts';
import { fillId } from '../http/basics.ts';
import { ListReader } from './list-reader.ts';
import { isRecord, type Row } from '../contract/record.ts';
import type { TargetConfig } from '../config/target.ts';

/**
 * The run marker: `scr-YYYYMMDD-xxxxxxxx`, the UTC day the run started and 32 random bits. Every
 * record a run creates, and every string value it writes where the field takes it, carries it,
 * so that what a run wrote can be told apart from everything else on the target.
 */
const MARKER = /^scr-(\d{4})(\d{2})(\d{2})-[0-9a-f]{8}$/;
const MARKER_IN_TEXT = /(?<![\w-])scr-\d{8}-[0-9a-f]{8}(?![\w-])/g;

export function newRunId(now = new Date()): string {
  return `scr-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** A run id this suite could have issued: the format, a real calendar day, not after tomorrow. */
export function isIssuedRunId(text: string, now = new Date()): boolean {
  const m = MARKER.exec(text);
  if (!m) return false;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const real = day.getUTCFullYear() === Number(m[1]) && day.getUTCMonth() === Number(m[2]) - 1 && day.getUTCDate() === Number(m[3]);
  return real && day.getUTCFullYear() >= 2024 && day.getTime() <= now.getTime() + 86_400_000;
}

/** The marker field's value of a record a run creates: the fixture's value, the run id, and a label. */
export function markedValue(base: string, runId: string, label = ''): string {
  return `${base ? `${base} ` : ''}${runId}${label ? ` ${label}` : ''}`;
}

/**
 * The run id a marker field holds when its value is exactly as `markedValue` writes it with this
 * fixture `base` (the same start, the run id in its place, only a label after it); otherwise
 * undefined: a name that merely contains a marker-shaped string is not the suite's.
 */
export function runIdOf(value: unknown, base: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  const prefix = base ? `${base} ` : '';
  if (!value.startsWith(prefix)) return undefined;
  const [runId, ...label] = value.slice(prefix.length).split(' ');
  if (!isIssuedRunId(runId) || label.some((w) => !/^[\w-]+$/.test(w))) return undefined;
  return runId;
}

/** Every issued run id written anywhere in a string (a business value a run wrote): see markValue. */
export function runIdsIn(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [...new Set(value.match(MARKER_IN_TEXT) ?? [])].filter((id) => isIssuedRunId(id));
}

/** Whether a value carries this run's id anywhere in it (see runIdsIn). */
export const carriesRun = (value: unknown, runId: string): boolean => runIdsIn(value).includes(runId);

/**
 * A string value for a field of the business record, carrying the run id where the field takes
 * it: before the '@' of an email, as a query of a URL, after a name or an address. Undefined when
 * the field's values have a fixed form (a currency, a time zone, a phone number) that a marker
 * would break: such a value cannot tell runs apart.
 */
export function markValue(value: string, runId: string, kind: 'email' | 'url' | 'text' | 'fixed'): string | undefined {
  if (kind === 'fixed') return undefined;
  if (kind === 'email') {
    const at = value.lastIndexOf('@');
    return at > 0 ? `${value.slice(0, at)}+${runId}${value.slice(at)}` : undefined;
  }
  if (kind === 'url') {
    try {
      const url = new URL(value);
      url.searchParams.set('run', runId);
      return url.href;
    } catch {
      return undefined;
    }
  }
  return `${value} ${runId}`;
}

export interface MarkedRecord {
  /** The record's path: the list path and its id. */
  path: string;
  id: unknown;
  /** The field holding the marker, and the run it names. */
  field: string;
  runId: string;
  /** The marker field's whole value. */
  value: string;
}

/**
 * The records of a collection that carry a run marker in `field`, as this suite writes it (see
 * runIdOf): the one look-up by marker, for the clean-up after a run, the sweep, and a create
 * whose answer carried no id. Throws, saying why, when the list cannot be read.
 */
export async function markedRecords(client: ApiClient, target: TargetConfig, listPath: string, field: string, base: string): Promise<MarkedRecord[]> {
  const found: MarkedRecord[] = [];
  // Every page is read, keeping only the marked rows: the list may be long.
  await new ListReader(client, target).whole(listPath, `listing ${listPath}`, (row) => void (isRecord(row) && found.push(...markedRows([row], listPath, field, base, target.vendor.idField))));
  return found;
}

/** The marked records among rows already listed: see markedRecords. */
export function markedRows(rows: Row[], listPath: string, field: string, base: string, idField: string): MarkedRecord[] {
  const found: MarkedRecord[] = [];
  for (const row of rows) {
    const id = row[idField];
    const runId = runIdOf(row[field], base);
    if (id === undefined || id === null || !runId) continue;
    found.push({ path: fillId(`${listPath}/{id}`, id), id, field, runId, value: row[field] as string });
  }
  return found;
}
