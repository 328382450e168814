import { randomInt, randomUUID } from 'node:crypto';
import { isRecord, type Row } from '../contract/record.ts';
import { holdersIn, recordIn } from '../contract/record-in.ts';
import { serverFields } from './server-fields.ts';
import { fixtureFields } from './marker-field.ts';
import type { Operation, Spec } from '../contract/spec.ts';
import { businessOps } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

/** The fields of `row` named in `names`, in the row's order; a name the row lacks is left out. */
export function pick(row: Row, names: string[]): Row {
  return Object.fromEntries(Object.entries(row).filter(([k]) => names.includes(k)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const otherDigit = (d: string) => String((Number(d) + 1 + randomInt(9)) % 10);

/**
 * An id of the same form as `id` but another value (the id format is not shown: it is learned
 * from the target's own ids): a number larger than any of `ids`, another UUID, or the text with
 * each digit changed (with no digit, its last letter changed). The caller checks it names nothing.
 */
export function idLike(id: unknown, ids: unknown[]): unknown {
  if (typeof id === 'number') return Math.max(...ids.filter((i): i is number => typeof i === 'number')) + 1 + randomInt(1000);
  const text = String(id);
  if (UUID.test(text)) return text === text.toUpperCase() ? randomUUID().toUpperCase() : randomUUID();
  if (/\d/.test(text)) return text.replace(/\d/g, otherDigit);
  return text.replace(/[a-z](?=[^a-z]*$)/i, (c) => (c.toLowerCase() === 'z' ? 'q' : String.fromCharCode(c.charCodeAt(0) + 1)));
}

/** The business field names as the target uses them: the email field's name comes from the vendor. */
export function businessFieldName(specName: string, vendorConfigKey: string | undefined, target: TargetConfig): string {
  if (vendorConfigKey === 'businessEmailField') return target.vendor.businessEmailField;
  return specName;
}

/**
 * The fields of a read record of `resource` a client may write back (the one opinion of the
 * project): never the id, nor a field the target was measured to move by itself (a stamp, a
 * version) or to keep whatever is sent (see ServerFields): they are not the run's to put back.
 */
export function writableFields(record: Row, idField: string, resource?: string): string[] {
  const server = resource === undefined ? new Set<string>() : serverFields().notWritable(resource);
  return Object.keys(record).filter((k) => k !== idField && !server.has(k) && record[k] !== undefined);
}


/** A record holding nothing a client can send back: its fields are not shown, so the suite cannot, and the target did nothing wrong. */
export class NothingToWriteBack extends Error {}

/**
 * A PATCH body that writes back one field of a customer or team member as read (their fields
 * are not shown; the business has its own write-back in business-lane.ts). The field is, in
 * this order: one the vendor's patch (customerPatch, teamMemberPatch) names, one the customer
 * fixture names (fields the vendor says a client sends; the marked one first), any other string field. Never the id,
 * nor a field the target moves by itself (see writableFields).
 */
export function writeBackBody(read: unknown, target: TargetConfig, op: Operation): Row {
  if (!isRecord(read)) throw new Error(`${op.method} ${op.path}: the record read back is not a JSON object`);
  const fields = writableFields(read, target.vendor.idField, op.resource);
  const writable = (k: string) => fields.includes(k);
  const patch = op.resource === 'team-members' ? target.vendor.teamMemberPatch : target.vendor.customerPatch;
  const field =
    [...Object.keys(patch ?? {}), ...fixtureFields(target)].find((k) => k in read && writable(k) && typeof read[k] === typeof (patch?.[k] ?? target.vendor.customerFixture[k])) ??
    Object.keys(read).find((k) => writable(k) && typeof read[k] === 'string');
  if (!field) throw new NothingToWriteBack(`${op.method} ${op.path}: the record has no field to write back (no string field besides the id and the fields the target moves by itself)`);
  return { [field]: read[field] };
}

/**
 * The elements of a list answer, or undefined when it is no list. The contract does not show a
 * list's envelope: a bare JSON array, or an object holding exactly one array property (such as
 * {"data": [...]}, whatever the property is called). The one list reader of the project.
 */
export function listItems(json: unknown): unknown[] | undefined {
  if (Array.isArray(json)) return json;
  if (isRecord(json)) {
    const arrays = Object.values(json).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  return undefined;
}

/** The rows (JSON objects) of a list answer: see listItems. */
export function rowsOf(json: unknown): Row[] | undefined {
  return listItems(json)?.filter(isRecord);
}

/** The business record in a retrieval's answer, the property it was read from, or why it cannot be told. */
export type BusinessRead = { record: Row; from?: string } | { problem: string };

/**
 * The business record in the retrieval's answer (the one reader of it). The answer's body is not
 * shown: the record itself (an object carrying documented field names), or an envelope such as
 * {"data": {...}}: the one property whose value is an object carrying them. `envelope` (the
 * vendor's businessEnvelope) names the property; when two could hold the record, no guess.
 */
export function businessRecordIn(json: unknown, names: string[], envelope?: string): BusinessRead {
  if (!isRecord(json)) return { problem: 'the answer is not a JSON object' };
  if (envelope !== undefined) {
    const inner = json[envelope];
    return isRecord(inner) ? { record: inner, from: envelope } : { problem: `the answer holds no object under "${envelope}" (businessEnvelope in the vendor config)` };
  }
  const carries = (row: Row) => names.some((n) => n in row);
  if (carries(json)) return { record: json };
  const holders = holdersIn(json, carries);
  if (holders.length === 1) return { record: json[holders[0]] as Row, from: holders[0] };
  if (holders.length > 1) {
    return { problem: `the answer could hold the business record under ${holders.map((h) => `"${h}"`).join(' or ')}; name the property in the vendor config (businessEnvelope)` };
  }
  return { record: json };
}

/** A record as the GET of its path answers it, or undefined when the answer holds none. */
export type RecordReader = (path: string, json: unknown) => Row | undefined;

/** Reads the business record out of its retrieval's answer (businessRecordIn), any other record with recordIn. */
export function recordReader(spec: Spec, target: TargetConfig): RecordReader {
  const businessPath = businessOps(spec).retrieve.path;
  const names = spec.businessFields.map((f) => businessFieldName(f.specName, f.vendorConfigKey, target));
  return (path, json) => {
    if (path !== businessPath) return recordIn(json, target.vendor.idField);
    const read = businessRecordIn(json, names, target.vendor.businessEnvelope);
    return 'record' in read ? read.record : undefined;
  };
}
