import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Row } from '../contract/record.ts';
import { sameValue } from './equivalence.ts';
import { serverFields } from './server-fields.ts';

export { sameId } from '../contract/record-in.ts';

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

/** The fields of `expected` (sent) that `actual` (read back) does not carry with the same value or an equivalent form of it (see equivalence.ts), described for a message. */
export function mismatches(expected: Row, actual: Row): string[] {
  return Object.keys(expected)
    .filter((k) => !sameValue(expected[k], actual[k]))
    .map((k) => `${k}: expected ${show(expected[k])}, got ${show(actual[k])}`);
}

/** The fields (either side) that differ between two readings of a record of `resource`, besides `except` and those the target moves by itself, described for a message. */
export function changedFields(before: Row, after: Row, except: string[] = [], resource?: string): string[] {
  return changedFieldNames(before, after, undefined, resource)
    .filter((k) => !except.includes(k))
    .map((k) => `${k}: was ${show(before[k])}, now ${show(after[k])}`);
}

/** How the fields `names` changed between two readings, for a message. */
export const described = (before: Row, after: Row, names: string[]): string[] => names.map((k) => `${k}: was ${show(before[k])}, now ${show(after[k])}`);

/**
 * The one field diff: the names of the fields that differ between two readings of a record,
 * presence included, besides those the target was measured to move by itself on `resource` (see
 * ServerFields); among `names` (in their order) when given, else among the fields of either reading.
 */
export function changedFieldNames(before: Row, after: Row, names?: string[], resource?: string): string[] {
  const among = names ?? [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const server = resource === undefined ? new Set<string>() : serverFields().of(resource);
  return among.filter((k) => !server.has(k) && (k in before !== k in after || !isDeepStrictEqual(before[k], after[k])));
}

/** A record without the given fields (a copy to send back without its id, say). */
export function without(row: Row, fields: (k: string) => boolean): Row {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !fields(k)));
}

const jsonKind = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v);

/**
 * The fields a list row and a find of the same record are compared on (list with list and find
 * with find otherwise: their shapes are not shown): those both show, with values of one JSON type,
 * null being a value of any. A list may show fewer fields, or one in another form: a key where a
 * find shows an object.
 */
export function comparableFields(listed: Row, found: Row): string[] {
  return Object.keys(found).filter((k) => k in listed && (listed[k] === null || found[k] === null || jsonKind(listed[k]) === jsonKind(found[k])));
}

/**
 * A record's print, what a long list keeps of each record: a short digest per field, so that the
 * fields the target moves by itself (ServerFields, learned while the run goes: after a print may
 * have been taken) are left out when two prints are compared (samePrint), not when they are made.
 */
export function fingerprint(row: Row): string {
  const digest = (v: unknown) => createHash('sha1').update(JSON.stringify(v) ?? '').digest('base64').slice(0, 12);
  return JSON.stringify(Object.keys(row).sort().map((k) => [k, digest(row[k])]));
}

/** Whether two prints (null: no record) are of the same record but for the fields in `moving` (the server fields of its resource). */
export function samePrint(a: string | null | undefined, b: string | null | undefined, moving: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a == null || b == null || !moving.size) return false;
  const fields = (p: string) => {
    try {
      return new Map((JSON.parse(p) as [string, string][]).filter(([k]) => !moving.has(k)));
    } catch {
      return undefined;
    }
  };
  const [x, y] = [fields(a), fields(b)];
  return x !== undefined && y !== undefined && isDeepStrictEqual(x, y);
}
