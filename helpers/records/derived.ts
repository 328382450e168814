import { isDeepStrictEqual } from 'node:util';
import type { Row } from '../contract/record.ts';
import { changedFieldNames } from './compare.ts';
import { serverFields } from './server-fields.ts';

/** A record as read before and after one patch. */
export interface Patched {
  before: Row;
  after: Row;
}

/** Applies a patch to a twin of the record a check patched (another record the check may change) and reads it before and after; undefined when there is none. */
export type TwinPatch = (body: Row) => Promise<Patched | undefined>;

/**
 * Of the fields not sent that a patch changed on a record, those the target derives from the
 * fields sent (fields are not shown: a read-only fullName made of firstName and lastName): the
 * same patch applied to a twin changed each of them too, kept it, and, where the two records held
 * one value before, gives them one value after. A field that appears or vanishes is no derived one,
 * nor one the patch changed on the record alone: that is the target's failure.
 * Fields that change on every write (a version, a stamp) are the server's, another property: the
 * field diff leaves them out before they get here (changedFieldNames, SERVER_MAINTAINED); one it does
 * not know yet would pass this test too, so what tells them apart belongs there, not here.
 */
export function derivedFields(changed: string[], record: Patched, twin: Patched): string[] {
  const kept = (p: Patched, f: string) => f in p.before && f in p.after;
  return changed.filter(
    (f) =>
      kept(record, f) && kept(twin, f) && !isDeepStrictEqual(twin.before[f], twin.after[f]) &&
      (!isDeepStrictEqual(record.before[f], twin.before[f]) || isDeepStrictEqual(record.after[f], twin.after[f])),
  );
}

/**
 * The fields not sent that `body` changed on a record, but those derived (derivedFields): known
 * in `derived` (what one check learned before), or shown by a twin given the same patch, which is
 * patched only when something else changed; `derived` collects what it shows.
 */
export async function changedNotDerived(body: Row, record: Patched, twin: TwinPatch | undefined, derived: Set<string> = new Set(), resource?: string): Promise<string[]> {
  const changed = changedFieldNames(record.before, record.after, undefined, resource).filter((f) => !(f in body) && !derived.has(f));
  if (!changed.length || !twin) return changed;
  const other = await twin(body);
  if (other) for (const f of derivedFields(changed, record, other)) derived.add(f);
  // What the target derives is what it does by itself: learned once, for every later judgement (exploration's too).
  if (resource !== undefined) serverFields().fromWrites(resource, changed.filter((f) => derived.has(f)));
  return changed.filter((f) => !derived.has(f));
}
