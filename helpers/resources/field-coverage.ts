import { isDeepStrictEqual } from 'node:util';
import { changedFields, comparableFields, described, mismatches } from '../records/compare.ts';
import { otherForm } from '../records/equivalence.ts';
import { ensure, said } from '../checks/assertions.ts';
import { is2xx, type Answer } from '../http/client.ts';
import { writableFields } from '../records/record-shapes.ts';
import type { CheckRun } from '../checks/definition.ts';
import { converge } from '../core/converge.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { changedNotDerived, type TwinPatch } from '../records/derived.ts';
import { movedByWrite, serverFields } from '../records/server-fields.ts';

/**
 * Cover what the target shows: the fields of customers and team members are not shown, so the
 * suite changes each writable field a record shows, alone, to a value already valid on the
 * target (one another record holds, or a boolean flipped), and reads it back through find and
 * through the list. A refusal proves nothing: the field is not applicable, with the answer.
 * Reads after a change are read again until they show it, within the convergence window (a read
 * replica may lag): a target that shows its writes at once pays no extra request. The list is read
 * once, after every field was changed.
 */

/** How one record is changed and read: a resource lane's operations for it. */
export interface FieldAccess {
  /** The resource: the fields the target moves by itself on it are neither changed nor judged (see ServerFields). */
  resource: string;
  idField: string;
  id: unknown;
  read(why: string): Promise<Row>;
  /** The record as it stands before a change: the lane's last read when nothing was written since (default: read). */
  current?(why: string): Promise<Row>;
  /** The record as the list names it now (searching until found), or undefined when the whole list does not name it. */
  listed(why: string): Promise<Row | undefined>;
  update(body: Row): Promise<Answer>;
  /** The same patch applied to a twin: tells the fields the target derives (see derivedFields). */
  twin?: TwinPatch;
  /** How long a read waits for the run's own write to show (--converge-window). */
  windowMs: number;
  /** A last write before the list is read, judged on that read too (the team members' isolation): the record as it then reads. */
  lastWrite?(known: Row): Promise<Row>;
}

export interface FieldOutcome {
  field: string;
  value?: unknown;
  /** Why the field was not changed, when it was not. */
  notApplicable?: string;
  /** What a find after the change showed wrong: the value not applied, other fields changed. */
  found: string[];
  /** What the list after the change showed wrong: the record missing, or another value than found. */
  listed: string[];
  /** The target's own form of the value, when a find showed it so (see equivalence.ts). */
  form?: string;
}

/** A value of `field` already valid on the target and other than `record`'s: a boolean flipped, else another record's. */
export function otherValue(field: string, record: Row, others: Row[]): { value: unknown } | undefined {
  const own = record[field];
  if (typeof own === 'boolean') return { value: !own };
  const held = others.map((o) => o[field]).find((v) => v !== undefined && v !== null && !isDeepStrictEqual(v, own) && typeof v === typeof own);
  return held === undefined ? undefined : { value: held };
}

/** Changes each writable field of `record` but those in `skip` (field → why), alone, and says what each read back showed. */
export async function coverFields(access: FieldAccess, record: Row, others: Row[], skip: Record<string, string>): Promise<FieldOutcome[]> {
  const outcomes: FieldOutcome[] = [];
  /** The fields changed and found: the list is judged on them. */
  const changes: FieldOutcome[] = [];
  const derived = new Set<string>();
  let known = record;
  for (const field of writableFields(record, access.idField, access.resource)) {
    const outcome: FieldOutcome = { field, found: [], listed: [] };
    outcomes.push(outcome);
    const other = skip[field] ? undefined : otherValue(field, record, others);
    if (!other) {
      outcome.notApplicable = skip[field] ?? 'no other record holds another value of it, and it is no boolean';
      continue;
    }
    outcome.value = other.value;
    // The record as the last change (or its undoing) left it: a read that does not show that yet is stale.
    const reading = `reading the record before changing ${field}`;
    // The first read may be the lane's last (see FieldAccess.current); a wait for the record to settle reads anew.
    let reads = 0;
    const read = () => (reads++ === 0 && access.current ? access.current(reading) : access.read(reading));
    const before = (await converge(read, (row) => changedFields(known, row, [], access.resource).length === 0, access.windowMs)).value;
    const body = { [field]: other.value };
    const answer = await access.update(body);
    if (!is2xx(answer)) {
      outcome.notApplicable = `PATCH with ${JSON.stringify(body)} (a value another record holds) ${said(answer)}`;
      continue;
    }
    const after = (await converge(() => access.read(`reading the record after changing ${field}`), (row) => mismatches(body, row).length === 0, access.windowMs)).value;
    outcome.form = otherForm(field, other.value, after[field]);
    // The update answered the target's own value, and a find shows it: the field is the target's to keep (see ServerFields.keeps).
    const own = isRecord(answer.json) && field in answer.json ? answer.json[field] : undefined;
    if (own !== undefined && !isDeepStrictEqual(own, other.value) && isDeepStrictEqual(after[field], own)) {
      serverFields().keeps(access.resource, field);
      outcome.notApplicable = `the target keeps its own value of it: the update answered ${JSON.stringify(own)} for ${JSON.stringify(other.value)}, and a find shows that`;
      known = after;
      continue;
    }
    // An update that answered no record of it, and a find that shows the field just as before:
    // a field the target keeps itself and one it ignored look alike (fields are not shown), so
    // nothing is judged of it; an answer that carries the field (the default) tells them apart.
    if (!(isRecord(answer.json) && field in answer.json) && field in before && isDeepStrictEqual(after[field], before[field])) {
      outcome.notApplicable = `the update answered no record to tell by, and a find shows ${field} as it was: whether the target keeps it itself or ignored it cannot be told (fields are not shown)`;
      known = after;
      continue;
    }
    const again = { write: () => access.update(body), read: () => access.read(`reading the record after changing ${field} again`).catch(() => undefined), windowMs: access.windowMs };
    // The value sent does not show, and the field moved all the same: one that takes a new value on
    // every write (a timestamp) is the target's own, whatever a write of it says; measured as for a
    // field not sent (see movedByWrite), so no check needs to have learned it first.
    if (mismatches(body, after).length && field in before && field in after && !isDeepStrictEqual(after[field], before[field])) {
      await movedByWrite(access.resource, before, after, {}, again);
      if (serverFields().has(access.resource, field)) {
        outcome.notApplicable = 'the target moves it on every write: it is the target\'s own, not a client\'s to write';
        known = after;
        continue;
      }
    }
    // A field not sent that moved: sent again, what moves on every write is the target's own (see movedByWrite).
    if (!mismatches(body, after).length) await movedByWrite(access.resource, before, after, body, again);
    const changed = await changedNotDerived(body, { before, after }, access.twin, derived, access.resource);
    outcome.found.push(...mismatches(body, after).map((m) => `a find does not show it (${m})`), ...described(before, after, changed).map((c) => `another field changed (${c})`));
    changes.push(outcome);
    known = after;
  }
  if (changes.length) {
    if (access.lastWrite) known = await access.lastWrite(known);
    // What the list shows of the record once every field was changed (issue 35: one list read,
    // however many fields; each field was changed once, and none put back meanwhile): each
    // changed field, where a find showed it changed, with the value the last find shows, where
    // the two show it in one form (comparableFields). Read again until it does (a list that lags).
    const agrees = (o: FieldOutcome, row: Row) => o.found.length > 0 || !comparableFields(row, known).includes(o.field) || isDeepStrictEqual(row[o.field], known[o.field]);
    const listing = `listing after changing ${changes.map((o) => o.field).join(', ')}`;
    const row = (await converge(() => access.listed(listing), (r) => r !== undefined && changes.every((o) => agrees(o, r)), access.windowMs)).value;
    for (const o of changes) {
      if (!row) o.listed.push(`the record ${String(access.id)} is no longer listed`);
      else if (!agrees(o, row)) o.listed.push(`listed with ${o.field} ${JSON.stringify(row[o.field])}, found with ${JSON.stringify(known[o.field])}`);
    }
  }
  // A field the target derives is not written, whatever a write of it answers.
  for (const o of outcomes.filter((x) => derived.has(x.field))) Object.assign(o, { notApplicable: 'the target derives it from other fields (a change of another changed it alike on a twin)', found: [], listed: [] });
  return outcomes;
}

/** Judges one side of the outcomes (`found` or `listed`): fields not applicable are noted; none covered is not applicable. */
export function judgeFields(run: CheckRun, outcomes: FieldOutcome[], side: 'found' | 'listed'): void {
  const skipped = outcomes.filter((o) => o.notApplicable);
  for (const o of skipped) run.note(`${o.field}: not applicable: ${o.notApplicable}`);
  if (side === 'found') for (const o of outcomes) if (o.form) run.note(o.form);
  if (skipped.length === outcomes.length) run.notApplicable(outcomes.length ? `no field could be changed (${skipped.map((o) => `${o.field}: ${o.notApplicable}`).join('; ')})` : 'the record shows no writable field');
  const wrong = outcomes.flatMap((o) => o[side].map((p) => `${o.field} set to ${JSON.stringify(o.value)}: ${p}`));
  ensure(wrong.length === 0, () => wrong.join('; '));
}

/** The fields a vendor keeps out of these changes (fieldsNotToChange), each with the reason. */
export function keptOut(fields: string[] | undefined): Record<string, string> {
  return Object.fromEntries((fields ?? []).map((f) => [f, 'left out by the vendor configuration (fieldsNotToChange)']));
}
