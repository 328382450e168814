import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { SERVER_MAINTAINED, type Row } from '../contract/record.ts';

/** Ids compare as text: 42 and "42" name the same record in a path. */
export const sameId = (a: unknown, b: unknown): boolean => a !== undefined && a !== null && String(a) === String(b);

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

/** The fields of `expected` that `actual` does not carry with the same value, described for a message. */
export function mismatches(expected: Row, actual: Row): string[] {
  return Object.keys(expected)
    .filter((k) => !isDeepStrictEqual(expected[k], actual[k]))
    .map((k) => `${k}: expected ${show(expected[k])}, got ${show(actual[k])}`);
}

/** The fields (either side) that differ between two readings of a record, besides `except` and server-stamped ones, described for a message. */
export function changedFields(before: Row, after: Row, except: string[] = []): string[] {
  return changedFieldNames(before, after)
    .filter((k) => !except.includes(k))
    .map((k) => `${k}: was ${show(before[k])}, now ${show(after[k])}`);
}

/**
 * The one field diff: the names of the fields that differ between two readings of a record,
 * presence included, besides server-stamped ones; among `names` (in their order) when given,
 * else among the fields of either reading.
 */
export function changedFieldNames(before: Row, after: Row, names?: string[]): string[] {
  const among = names ?? [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return among.filter((k) => !SERVER_MAINTAINED.test(k) && (k in before !== k in after || !isDeepStrictEqual(before[k], after[k])));
}

/** A record without the given fields (a copy to send back without its id, say). */
export function without(row: Row, fields: (k: string) => boolean): Row {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !fields(k)));
}

/** The fields of a row but those the server stamps, in a fixed order, as a short digest: what a long list keeps of each record. */
export function fingerprint(row: Row): string {
  const fields = Object.keys(row).filter((k) => !SERVER_MAINTAINED.test(k)).sort().map((k) => [k, row[k]]);
  return createHash('sha1').update(JSON.stringify(fields)).digest('base64');
}
