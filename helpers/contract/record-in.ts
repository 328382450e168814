import { isRecord, type Row } from './record.ts';

/** Ids compare as text: 42 and "42" name the same record in a path. */
export const sameId = (a: unknown, b: unknown): boolean => a !== undefined && a !== null && String(a) === String(b);

/** What the record an answer is about carries: the id asked for, or (a create) a value sent, such as its run marker. */
export type RecordKey = { id: unknown } | { sent: Row };

/** The properties of `json` whose value is an object `carries` holds for: where an envelope may keep the record. */
export function holdersIn(json: Row, carries: (row: Row) => boolean): string[] {
  return Object.keys(json).filter((k) => isRecord(json[k]) && carries(json[k] as Row));
}

/**
 * The customer or team member record in an answer (the one reader of them: their payload shapes
 * are not shown): the object at the top when it carries the id field or `key`, else the one
 * object-valued property whose value carries `key` (without one, the id field), such as
 * {"customer": {...}} or {"data": {...}}; else the top object, for the caller to judge as it is.
 */
export function recordIn(json: unknown, idField: string, key?: RecordKey): Row | undefined {
  if (!isRecord(json)) return undefined;
  const carries = (row: Row): boolean => {
    if (!key) return row[idField] !== undefined && row[idField] !== null;
    if ('id' in key) return sameId(row[idField], key.id);
    return Object.entries(key.sent).some(([k, v]) => typeof v === 'string' && row[k] === v);
  };
  if ((json[idField] !== undefined && json[idField] !== null) || carries(json)) return json;
  const holders = holdersIn(json, carries);
  return holders.length === 1 ? (json[holders[0]] as Row) : json;
}
