import { is2xx, type Answer } from '../http/client.ts';
import type { Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import type { IdMiss } from '../contract/id-near-misses.ts';
import { mismatches, sameId } from '../records/compare.ts';

/**
 * What is wrong with the answer to a find of a near miss of `base`'s id, or undefined: a refusal
 * proves nothing either way, and a record of the near-miss id is that record. Only a record that
 * is `base` (unless the near miss is a canonical form of its id) or another one is wrong; one
 * without an id label is told by its content.
 */
export function wrongRecordFound(answer: Answer, miss: IdMiss, nearId: string, base: Row, idField: string, noun: string): string | undefined {
  const found = recordIn(answer.json, idField);
  if (!is2xx(answer) || !found) return undefined;
  const named = found[idField];
  const baseId = base[idField];
  if (sameId(named, nearId)) return undefined;
  const isBase = sameId(named, baseId) || (named === undefined && mismatches(without(base, idField), found).length === 0);
  if (isBase) return miss.canonical ? undefined : `answered the ${noun} ${String(baseId)} itself, though ${nearId} is another id`;
  return named === undefined ? undefined : `answered another ${noun}, ${String(named)}`;
}

const without = (row: Row, field: string) => Object.fromEntries(Object.entries(row).filter(([k]) => k !== field));

/**
 * Ids of records listed now, not before, that a write of `sent` made: listed under one of `ids` (the
 * id it was written to, one its answer named), or holding what it sent. Others may be another
 * writer's (a shared target, concurrent checks).
 */
export function madeBy(sent: Row, ids: unknown[], before: Row[], after: Row[], idField: string): unknown[] {
  const added = after.filter((r) => !before.some((b) => sameId(b[idField], r[idField])));
  return added.filter((r) => ids.some((id) => sameId(r[idField], id)) || mismatches(sent, r).length === 0).map((r) => r[idField]);
}
