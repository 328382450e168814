/**
 * Section 2: each documented field of the business, updated alone (a partial update): accepted,
 * read back, the others left as they were; null, both booleans and the edges of its type.
 */
import { isDeepStrictEqual } from 'node:util';
import { asBlocked, type Check, type CheckRun, type Group } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { selects } from '../core/selection.ts';
import { TurnedAway } from '../http/client.ts';
import { recordExchange } from '../http/exchanges.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { changedFieldNames } from '../records/compare.ts';
import { carriesRun } from '../records/run-marker.ts';
import { candidateValues, typeBoundaries, type NamedField } from '../resources/business-values.ts';
import { patchText as patchOf, show, type BusinessRun, type NullStep } from './business-run.ts';

const nullableTitle = (name: string) => `${name} accepts null, reads back null, then accepts a string`;

/** One field's checks, in the order the lane runs them: its update step first, which the others judge. */
export function fieldChecks(target: TargetConfig, updateOp: Operation, nf: NamedField): Group<BusinessRun> {
  const { name } = nf;
  const step = `BUS-UPDATE-200:${name}` as const;
  const entries: Check<BusinessRun>[] = [
    updateStep(target, updateOp, nf),
    { id: `BUS-UPDATE-APPLIES:${name}`, title: `${name} reads back with the value sent`, changesData: true, needs: [step], async run(b, run) {
      const done = b.stepOf(name, run);
      done.after = await b.record.read();
      done.read = b.record.lastReadExchange;
      ensure(isDeepStrictEqual(done.after[name], done.value), `${name} reads back ${show(done.after[name])} after an update to ${show(done.value)}`);
    } },
    { id: `BUS-UPDATE-PARTIAL:${name}`, title: `updating ${name} leaves every other field as it was`, changesData: true, needs: [step], async run(b, run) {
      const done = b.stepOf(name, run);
      const after = done.after ?? (await b.record.read());
      const others = b.record.exposed().map((f) => f.name).filter((n) => n !== name);
      const changed = changedFieldNames(done.before, after, others);
      ensure(changed.length === 0, `updating only ${name} also changed ${changed.join(', ')}`);
    } },
  ];
  if (nf.field.nullable) entries.push(nullable(updateOp, nf));
  // Both directions: an implementation that treats the value as truthy passes one of them.
  if (nf.field.types.includes('boolean')) entries.push(boolean(updateOp, nf, true, false), boolean(updateOp, nf, false, true));
  entries.push(...typeBoundaries(nf).map((edge) => boundary(target, updateOp, nf, edge)));
  return { group: name, entries };
}

function updateStep(target: TargetConfig, updateOp: Operation, nf: NamedField): Check<BusinessRun> {
  const { name } = nf;
  const patchText = (body: Record<string, unknown>) => patchOf(updateOp, body);
  return { id: `BUS-UPDATE-200:${name}`, title: `a body with only ${name} answers 200`, changesData: true, async run(b, run) {
    const { record, steps } = b;
    try {
      const why = record.unchangeable(nf) ?? b.nullGate(nf);
      if (why) {
        steps.set(name, { notApplicable: why });
        run.notApplicable(why);
      }
      // Judged against the record before the null: both updates sent only this field.
      const before = await record.current();
      const current = b.currentValue(before, name);
      const candidates = candidateValues(nf, target.vendor.businessValues, current, record.before()[name], target.runId);
      if ('unavailable' in candidates) {
        steps.set(name, { notApplicable: candidates.unavailable });
        return run.notApplicable(candidates.unavailable);
      }
      // The null NULLABLE judges goes first, when that check runs (--only may leave it out).
      if (nf.field.nullable && typeof current === 'string' && selects(target.only, { id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name) })) {
        await b.sendNull(name);
        // This update follows a null: its own report shows that too.
        for (const e of b.nullSteps.get(name)?.exchanges ?? []) recordExchange(e);
      }
      // Formats and bounds of values are not shown: a 4xx to a value the suite chose proves
      // nothing, so the next is tried. A 4xx to the target's own value does: it is written
      // back after the first refusal to tell the two apart.
      const refused: string[] = [];
      let ownAccepted = false;
      for (const { value, source } of candidates) {
        const body = { [name]: value };
        steps.set(name, { before, value });
        const answer = await record.update(body);
        if (answer.status < 400 || answer.status >= 500) {
          steps.set(name, { before, value, wrote: [answer.exchange], status: answer.status, refused: refused.length > 0 });
          ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
          b.accepted.set(name, value);
          if (refused.length) run.note(`refused before: ${refused.join('; ')}`);
          return;
        }
        refused.push(`${show(value)} (${source}) answered ${answer.status}`);
        if (!ownAccepted) {
          const own = { [name]: current };
          const back = await record.update(own);
          ensure(back.status === 200, `${patchText(body)} answered ${answer.status}, and so did writing back the value read: ${patchText(own)} answered ${back.status}`);
          ownAccepted = true;
        }
      }
      const none = `the target refused every value tried for ${name} (${refused.join('; ')}) and accepted its own back: the formats it accepts are not shown (section 2). Give values it accepts in the vendor config: businessValues.${name}`;
      steps.set(name, { notApplicable: none });
      run.notApplicable(none);
    } catch (e) {
      // An update the target turned away did not happen: what depends on it is blocked too.
      if (!steps.has(name) || e instanceof TurnedAway) steps.set(name, { blocked: asBlocked(e, `BUS-UPDATE-200:${name}`) });
      throw e;
    }
  } };
}

function nullable(updateOp: Operation, nf: NamedField): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name), changesData: true, async run(b, run) {
    const why = b.record.unchangeable(nf) ?? b.nullGate(nf);
    if (why) run.notApplicable(why);
    const folded = b.nullSteps.get(name);
    if (folded) return judgeFoldedNull(b, updateOp, name, folded, run);
    const before = await b.record.current();
    const original = b.record.before()[name];
    // A string the target is known to accept: its own, or the one its update step took.
    const string = typeof original === 'string' ? original : b.accepted.get(name);
    if (typeof string !== 'string') run.notApplicable(`${name} was null before the run and no string value of it was accepted (BUS-UPDATE-200:${name})`);
    if (before[name] === null) await b.setAndConfirm(name, string);
    await b.setAndConfirm(name, null);
    await b.setAndConfirm(name, string);
    b.nullProven = true;
  } };
}

/**
 * BUS-UPDATE-NULLABLE from the null its update step sent first: answered 200 and read back null
 * (or absent: the retrieval's fields are not shown); then a string: the step's own, when it was
 * the next write and answered 200 (its read-back is judged), else the field's value from before
 * the run, sent and read back here.
 */
async function judgeFoldedNull(b: BusinessRun, updateOp: Operation, name: string, folded: NullStep, run: CheckRun): Promise<void> {
  for (const e of folded.exchanges) recordExchange(e);
  const nullBody = { [name]: null };
  if (folded.status === undefined) throw folded.failure;
  ensure(folded.status === 200, `${patchOf(updateOp, nullBody)} answered ${folded.status}`);
  if (!folded.read) throw folded.failure;
  const read = name in folded.read ? folded.read[name] : null;
  ensure(isDeepStrictEqual(read, null), `after ${patchOf(updateOp, nullBody)}, ${name} reads back ${show(folded.read[name])}`);
  const step = b.steps.get(name);
  if (step && 'before' in step && step.status === 200 && !step.refused) {
    const { value, after } = b.stepOf(name, run);
    if (step.read) recordExchange(step.read);
    const now = after ?? (await b.record.read());
    ensure(isDeepStrictEqual(now[name], value), `after null, ${patchOf(updateOp, { [name]: value })} answered 200 and ${name} reads back ${show(now[name])}`);
  } else {
    // Its value from before the run: a string the target holds, so valid on it.
    const original = b.record.before()[name];
    if (typeof original !== 'string') run.notApplicable(`${name} was not a string before the run, and its update step took no string after the null`);
    await b.setAndConfirm(name, original);
  }
  b.nullProven = true;
}

function boolean(updateOp: Operation, nf: NamedField, from: boolean, to: boolean): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-BOOLEAN:${name}:${from}-to-${to}`, title: `${name} goes from ${from} to ${to}`, changesData: true, async run(b, run) {
    const { record } = b;
    const why = record.unchangeable(nf);
    if (why) run.notApplicable(why);
    // The update step may have made this very move: its read-back is judged, not sent again.
    const step = b.steps.get(name);
    if (step && 'after' in step && step.after && step.status === 200 && b.currentValue(step.before, name) === from && step.value === to) {
      for (const e of [...(step.wrote ?? []), ...(step.read ? [step.read] : [])]) recordExchange(e);
      ensure(isDeepStrictEqual(step.after[name], to), `after ${patchOf(updateOp, { [name]: to })}, ${name} reads back ${show(step.after[name])}`);
      return;
    }
    if ((await record.current())[name] !== from) {
      const answer = await record.update({ [name]: from });
      const now = (await record.read())[name];
      if (answer.status !== 200 || now !== from) {
        run.notApplicable(`${name} could not be set to ${from} first (the update answered ${answer.status}, it reads ${show(now)}); the check of the other direction reports that`);
      }
    }
    await b.setAndConfirm(name, to);
  } };
}

// The edges of its type: bounds of values are not shown, so a refusal proves nothing; an
// update answered 200 must be applied, there as anywhere. A field whose update step's value
// carries no marker stays at the edge (the next field's step reads the record as it is), and
// the multi-field update puts it back; a marked value is written back at once.
function boundary(target: TargetConfig, updateOp: Operation, nf: NamedField, edge: ReturnType<typeof typeBoundaries>[number]): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-BOUNDARY:${name}:${edge.name}`, title: `${name} set to ${edge.description}, when answered 200, reads back so`, changesData: true, async run(b, run) {
    const { record } = b;
    const why = record.unchangeable(nf);
    if (why) run.notApplicable(why);
    const value = edge.valueFrom(record.before()[name]);
    if (value === undefined) run.notApplicable(`${name} read ${show(record.before()[name])} before the run: ${edge.description} cannot be made from it`);
    const body = { [name]: value };
    await record.current();
    const answer = await record.update(body);
    try {
      if (answer.status >= 400 && answer.status < 500) run.notApplicable(`${patchOf(updateOp, body)} answered ${answer.status}: the bounds of ${name} are not shown (section 2)`);
      ensure(answer.status === 200, `${patchOf(updateOp, body)} answered ${answer.status}`);
      const after = await record.read();
      ensure(isDeepStrictEqual(after[name], value), `after ${patchOf(updateOp, body)}, ${name} reads back ${show(after[name])}`);
    } finally {
      // A value carrying this run's marker goes back at once: the marker tells another run,
      // the sweep and the clean-up after interference that the record is this run's doing.
      const marked = b.accepted.get(name);
      if (typeof marked === 'string' && carriesRun(marked, target.runId)) await record.update({ [name]: marked });
    }
  } };
}
