import { isDeepStrictEqual } from 'node:util';
import type { Row } from '../contract/record.ts';
import { serverFields } from './server-fields.ts';

/** Ids compare as text: 42 and "42" name the same record in a path. */
export const sameId = (a: unknown, b: unknown): boolean => a !== undefined && a !== null && String(a) === String(b);

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

/** The fields of `expected` that `actual` does not carry with the same value, described for a message. */
export function mismatches(expected: Row, actual: Row): string[] {
  return Object.keys(expected)
    .filter((k) => !isDeepStrictEqual(expected[k], actual[k]))
    .map((k) => `${k}: expected ${show(expected[k])}, got ${show(actual[k])}`);
}

/** The fields (either side) that differ between two readings of a record of `resource`, besides `except` and those the target moves by itself, described for a message. */
export function changedFields(before: Row, after: Row, except: string[] = [], resource?: string): string[] {
  return changedFieldNames(before, after, undefined, resource)
    .filter((k) => !except.includes(k))
    .map((k) => `${k}: was ${show(before[k])}, now ${show(after[k])}`);
}

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
