/**
 * Section 2: each documented field of the business, updated alone (a partial update): accepted,
 * read back, the others left as they were; null, both booleans and the edges of its type.
 */
import { isDeepStrictEqual } from 'node:util';
import { asBlocked, Blocked, type Check, type CheckRun, type Group } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { selects } from '../core/selection.ts';
import { TurnedAway } from '../http/client.ts';
import { recordExchange } from '../http/exchanges.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import type { CheckId } from '../contract/catalog.ts';
import { changedFieldNames } from '../records/compare.ts';
import { otherForm, sameValue } from '../records/equivalence.ts';
import { candidateValues, typeBoundaries, vendorElements, type Boundary, type NamedField } from '../resources/business-values.ts';
import { edgeShows, patchText as patchOf, show, type BusinessRun, type DoneStep, type EdgeStep, type NullStep } from './business-run.ts';

const nullableTitle = (name: string) => `${name} accepts null, reads back null, then accepts a string`;
const boundaryTitle = (name: string, edge: Boundary) => `${name} set to ${edge.description}, when answered 200, reads back so`;
const nullPartialTitle = (name: string) => `updating ${name} to null leaves every other field as it was`;
/** Whether this run sends a null of the field (--only may leave both checks that judge one out). */
const nullChosen = (target: TargetConfig, name: string) =>
  selects(target.only, { id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name) }) || selects(target.only, { id: `BUS-UPDATE-PARTIAL:${name}:null`, title: nullPartialTitle(name) });

/** The value sent reads back as sent or in a form equivalent to it (equivalence.ts), which is noted. */
function readsBack(run: CheckRun, name: string, sent: unknown, read: unknown, message: string): void {
  ensure(sameValue(sent, read), message);
  const form = otherForm(name, sent, read);
  if (form) run.note(form);
}

/**
 * The edges that go out together after the first update step (see EdgeStep): the empty string or
 * list for each field that takes one, of the checks this run holds the target to (--only may
 * leave some out). A null goes alone (BusinessRun.nullAlone).
 */
function edgePlan(target: TargetConfig, b: BusinessRun): Map<string, unknown> {
  const plan = new Map<string, unknown>();
  const chosen = (id: CheckId, title: string) => selects(target.only, { id, title });
  for (const nf of b.record.exposed().filter((f) => !b.record.unchangeable(f))) {
    const { name } = nf;
    const original = b.record.before()[name];
    const empty = typeBoundaries(nf).find((e) => e.name === 'empty');
    const value = empty?.valueFrom(original);
    if (empty && value !== undefined && chosen(`BUS-UPDATE-BOUNDARY:${name}:empty`, boundaryTitle(name, empty))) plan.set(name, value);
  }
  return plan;
}

/**
 * One field's checks, in the order the lane runs them: its update step first, which the others
 * judge. Its edge went out before (edgePlan; the first field's after its step, see updateStep),
 * the step turns it into the field's new value, and the field stays so until the multi-field
 * update puts every field back (the restore).
 */
export function fieldChecks(target: TargetConfig, updateOp: Operation, nf: NamedField): Group<BusinessRun> {
  const { name } = nf;
  const step = `BUS-UPDATE-200:${name}` as const;
  const entries: Check<BusinessRun>[] = [
    updateStep(target, updateOp, nf),
    { id: `BUS-UPDATE-APPLIES:${name}`, title: `${name} reads back with the value sent`, changesData: true, needs: [step], async run(b, run) {
      const done = b.stepOf(name, run);
      // A step that put null back after its value (see BusinessRun.nullRoundTrip) read it already.
      if (!done.after) {
        done.after = await b.record.read();
        done.read = b.record.lastReadExchange;
      } else if (done.read) recordExchange(done.read);
      readsBack(run, name, done.value, done.after[name], `${name} reads back ${show(done.after[name])} after an update to ${show(done.value)}`);
    } },
    { id: `BUS-UPDATE-PARTIAL:${name}`, title: `updating ${name} leaves every other field as it was`, changesData: true, needs: [step], async run(b, run) {
      const done = b.stepOf(name, run);
      const after = done.after ?? (await b.record.read());
      const others = b.record.exposed().map((f) => f.name).filter((n) => n !== name);
      const changed = changedFieldNames(done.before, after, others);
      ensure(changed.length === 0, `updating only ${name} also changed ${changed.join(', ')}`);
    } },
    ...(nf.field.nullable ? [partialNull(updateOp, nf)] : []),
    ...typeBoundaries(nf).map((edge) => boundary(target, updateOp, nf, edge)),
  ];
  return { group: name, entries };
}

/**
 * BUS-UPDATE-BOOLEAN of every boolean field, both directions (an implementation that treats the
 * value as truthy passes one of them), after the multi-field update: the field's update step
 * made one move, the restore the other.
 */
export function booleanChecks(updateOp: Operation, fields: NamedField[]): Group<BusinessRun> {
  return { group: 'booleans', entries: fields.filter((nf) => nf.field.types.includes('boolean')).flatMap((nf) => [boolean(updateOp, nf, true, false), boolean(updateOp, nf, false, true)]) };
}

/**
 * BUS-UPDATE-NULLABLE of every nullable field, after the multi-field update: a field null before
 * the run is judged on the null that update put back (its string came first, in its update step).
 */
export function nullableChecks(target: TargetConfig, updateOp: Operation, fields: NamedField[]): Group<BusinessRun> {
  return { group: 'null', entries: fields.filter((nf) => nf.field.nullable).map((nf) => nullable(target, updateOp, nf)) };
}

function updateStep(target: TargetConfig, updateOp: Operation, nf: NamedField): Check<BusinessRun> {
  const { name } = nf;
  const patchText = (body: Record<string, unknown>) => patchOf(updateOp, body);
  return { id: `BUS-UPDATE-200:${name}`, title: `a body with only ${name} answers 200`, changesData: true, async run(b, run) {
    const { record, steps } = b;
    try {
      const why = record.unchangeable(nf) ?? b.nullGate(nf, true);
      if (why) {
        steps.set(name, { notApplicable: why });
        run.notApplicable(why);
      }
      // The first step goes before the edges, from the record as found (unless its field's null
      // is an edge its step must follow): a target that resets what a body leaves out to the very
      // values of the edges (the empty list, the empty string, null) shows in its PARTIAL.
      if (b.firstStep === undefined && !b.edgesStarted() && !(nf.field.nullable && typeof record.before()[name] === 'string')) b.firstStep = name;
      if (b.firstStep !== name) await b.edges(() => edgePlan(target, b));
      if (holdsString(nf, record.before()) && nullChosen(target, name)) await b.nullAlone(name);
      // This update follows its field's edge: its own report shows that too.
      for (const e of b.edgeSteps.get(name)?.exchanges ?? []) recordExchange(e);
      // Judged against the previous read, which holds the earlier fields' changes and the edges.
      const before = await record.current();
      const original = record.before()[name];
      const candidates = candidateValues(nf, target.vendor.businessValues, b.currentValue(before, name), original, target.runId);
      if ('unavailable' in candidates) {
        steps.set(name, { notApplicable: candidates.unavailable });
        return run.notApplicable(candidates.unavailable);
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
          // A field null before the run goes back to null at once, alone (its null, judged as a string's is).
          if (b.leadsNull(nf) || (nf.field.nullable && original === null && nullChosen(target, name))) await b.nullRoundTrip(name, steps.get(name) as DoneStep);
          return;
        }
        refused.push(`${show(value)} (${source}) answered ${answer.status}`);
        if (!ownAccepted) {
          const own = { [name]: original };
          const back = await record.update(own);
          ensure(back.status === 200, `${patchText(body)} answered ${answer.status}, and so did writing back its value from before the run: ${patchText(own)} answered ${back.status}`);
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

const holdsString = ({ field, name }: NamedField, before: Record<string, unknown>) => field.nullable && typeof before[name] === 'string';

/**
 * BUS-UPDATE-PARTIAL of a field's null, sent alone: the read before it and the read after it
 * differ in that field only. A field holding a string is judged on its null edge (sent alone
 * before its step), one null before the run on the null its step put back after its value.
 */
function partialNull(updateOp: Operation, nf: NamedField): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-PARTIAL:${name}:null`, title: nullPartialTitle(name), changesData: true, needs: [`BUS-UPDATE-200:${name}`], async run(b, run) {
    const why = b.record.unchangeable(nf);
    if (why) run.notApplicable(why);
    const nullBody = patchOf(updateOp, { [name]: null });
    let before: Record<string, unknown> | undefined;
    let sent: NullStep | undefined;
    if (holdsString(nf, b.record.before())) {
      await b.nullAlone(name);
      const edge = b.edgeSteps.get(name);
      sent = edge;
      before = edge?.before;
    } else {
      const done = b.stepOf(name, run);
      sent = done.nulled;
      before = done.after;
      if (!sent) run.notApplicable(`${name} was null before the run and its update step did not put null back alone (its value ${done.after ? 'did not read back' : 'was not read back'}: BUS-UPDATE-APPLIES:${name})`);
    }
    if (!sent || !before) throw new Blocked(`BUS-UPDATE-NULLABLE:${name}`, `${nullBody} was not sent alone`);
    for (const e of sent.exchanges) recordExchange(e);
    if (sent.status === undefined) throw sent.failure;
    // Whether null is accepted and read back is BUS-UPDATE-NULLABLE's verdict.
    if (sent.status !== 200 || !sent.read) run.notApplicable(`${nullBody} answered ${sent.status} (BUS-UPDATE-NULLABLE:${name} judges that)`);
    const others = b.record.exposed().map((f) => f.name).filter((n) => n !== name);
    const changed = changedFieldNames(before, sent.read!, others);
    ensure(changed.length === 0, `${nullBody} also changed ${changed.map((n) => `${n} (was ${show(before![n])}, now ${show(sent!.read![n])})`).join(', ')}`);
  } };
}

function nullable(target: TargetConfig, updateOp: Operation, nf: NamedField): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name), changesData: true, async run(b, run) {
    const why = b.record.unchangeable(nf) ?? b.nullGate(nf);
    if (why) run.notApplicable(why);
    const original = b.record.before()[name];
    await (typeof original === 'string' ? nullThenString(target, b, updateOp, name, original, run) : stringThenNull(b, updateOp, name, run));
    b.nullShown = true;
  } };
}

/**
 * The field's edge, as the edges update (or its own, after it) was answered, shown in the
 * judging check's report; the edges go out now if no step has sent them (--only may have left
 * every step out). Throws what kept it from being answered.
 */
async function takeEdge(target: TargetConfig, b: BusinessRun, name: string, checkId: CheckId, what: string, run: CheckRun): Promise<EdgeStep & { status: number }> {
  await (checkId.startsWith('BUS-UPDATE-BOUNDARY') ? b.edges(() => edgePlan(target, b)) : b.nullAlone(name));
  const edge = b.edgeSteps.get(name);
  if (!edge) throw new Blocked(checkId, `${what} was not sent with the edges`);
  for (const e of edge.exchanges) recordExchange(e);
  if (edge.together) run.note(edge.together);
  if (edge.status === undefined) throw edge.failure;
  return { ...edge, status: edge.status };
}

/**
 * A field that held a string: its edge, null, answered 200 and read back null (or absent: the
 * retrieval's fields are not shown); then a string: its update step's, when that was the next
 * write and read back, else its value from before the run, after a null sent here.
 */
async function nullThenString(target: TargetConfig, b: BusinessRun, updateOp: Operation, name: string, original: string, run: CheckRun): Promise<void> {
  const edge = await takeEdge(target, b, name, `BUS-UPDATE-NULLABLE:${name}`, `the null of ${name}`, run);
  const nullBody = { [name]: null };
  ensure(edge.status === 200, `${patchOf(updateOp, nullBody)} answered ${edge.status}`);
  if (!edge.read) throw edge.failure;
  ensure(edgeShows(edge.read, name, null), `after ${patchOf(updateOp, nullBody)}, ${name} reads back ${show(edge.read[name])}`);
  const step = b.steps.get(name);
  if (step && 'before' in step && step.status === 200 && !step.refused && step.after) {
    const { value, after } = b.stepOf(name, run);
    if (step.read) recordExchange(step.read);
    readsBack(run, name, value, after?.[name], `after null, ${patchOf(updateOp, { [name]: value })} answered 200 and ${name} reads back ${show(after?.[name])}`);
    return;
  }
  // Its value from before the run: a string the target holds, so valid on it.
  if ((await b.record.current())[name] !== null) await b.setAndConfirm(name, null);
  await b.setAndConfirm(name, original);
}

/**
 * A field null before the run: its update step's string, accepted and read back (the field was
 * null), then null: the multi-field update's, which put it back, when that read back null, else
 * sent alone here.
 */
async function stringThenNull(b: BusinessRun, updateOp: Operation, name: string, run: CheckRun): Promise<void> {
  const value = b.accepted.get(name);
  if (typeof value !== 'string') run.notApplicable(`${name} was null before the run and no string value of it was accepted (BUS-UPDATE-200:${name})`);
  const step = b.steps.get(name);
  if (step && 'before' in step && step.status === 200 && step.after) {
    const { after } = b.stepOf(name, run);
    if (step.read) recordExchange(step.read);
    readsBack(run, name, value, after?.[name], `after ${patchOf(updateOp, { [name]: value })} answered 200, ${name} reads back ${show(after?.[name])}`);
    // The step put null back at once (the run's first null, see BusinessRun.nullRoundTrip): judged on that.
    if (step.nulled) {
      const { status, read, exchanges, failure } = step.nulled;
      for (const e of exchanges) recordExchange(e);
      if (status === undefined) throw failure;
      const nullBody = patchOf(updateOp, { [name]: null });
      const left = `${name} is left holding ${show(value)}, this run's value: ${nullBody} frees it once the target takes null (\`--recover <report directory>\` sends it)`;
      ensure(status === 200, `${nullBody} answered ${status ?? 'nothing'}; ${left}`);
      ensure(read !== undefined && edgeShows(read, name, null), `after ${nullBody}, ${name} reads back ${show(read?.[name])}; ${left}`);
      return;
    }
  } else if ((await b.record.current())[name] === null) {
    await b.setAndConfirm(name, value);
  }
  const multi = b.multi;
  if (multi && multi.body[name] === null && multi.status === 200 && multi.after && edgeShows(multi.after, name, null)) {
    for (const e of multi.exchanges) recordExchange(e);
    return;
  }
  if (multi && name in multi.body) run.note(`the multi-field update sent its null with the other fields (it answered ${multi.status}${multi.after ? `, ${name} read back ${show(multi.after[name])}` : ''}): sent again alone`);
  await b.setAndConfirm(name, null);
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
      readsBack(run, name, to, step.after[name], `after ${patchOf(updateOp, { [name]: to })}, ${name} reads back ${show(step.after[name])}`);
      return;
    }
    // The multi-field update may have: judged on its read-back when it shows, else sent again alone.
    const multi = b.multi;
    if (multi && multi.body[name] === to && b.currentValue(multi.before, name) === from && multi.status === 200 && multi.after) {
      if (multi.after[name] === to) {
        for (const e of multi.exchanges) recordExchange(e);
        return;
      }
      run.note(`the multi-field update sent it with the other fields (${name} read back ${show(multi.after[name])}): sent again alone`);
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
// update answered 200 must be applied, there as anywhere. The empty string and list went out
// with the edges after the first update step (edgePlan); a longer list goes after its field's step.
// The field stays at the edge until its step, or the multi-field update, changes it again.
function boundary(target: TargetConfig, updateOp: Operation, nf: NamedField, edge: Boundary): Check<BusinessRun> {
  const { name } = nf;
  return { id: `BUS-UPDATE-BOUNDARY:${name}:${edge.name}`, title: boundaryTitle(name, edge), changesData: true, async run(b, run) {
    const { record } = b;
    const why = record.unchangeable(nf);
    if (why) run.notApplicable(why);
    const value = edge.valueFrom(record.before()[name], vendorElements(target.vendor.businessValues?.[name]));
    if (value === undefined) run.notApplicable(`${name} read ${show(record.before()[name])} before the run: ${edge.description} cannot be made from it${edge.name === 'more' ? ' (the element structure is not shown; a copy of an element it holds is not one more, and no element it lacks can be made from its own values: give a list in the vendor config, businessValues.' + name + ')' : ''}`);
    const body = { [name]: value };
    const refused = (status: number) => run.notApplicable(`${patchOf(updateOp, body)} answered ${status}: the bounds of ${name} are not shown (section 2)`);
    if (edge.name === 'empty') {
      const sent = await takeEdge(target, b, name, `BUS-UPDATE-BOUNDARY:${name}:empty`, edge.description, run);
      if (sent.status >= 400 && sent.status < 500) refused(sent.status);
      ensure(sent.status === 200, `${patchOf(updateOp, body)} answered ${sent.status}`);
      if (!sent.read) throw sent.failure;
      readsBack(run, name, value, sent.read[name], `after ${patchOf(updateOp, body)}, ${name} reads back ${show(sent.read[name])}`);
      return;
    }
    // The field's update step may have sent this very value (a list of one element has no
    // shorter one that differs from the empty edge): its read-back is judged, not sent again.
    const step = b.steps.get(name);
    if (step && 'before' in step && step.status === 200 && step.after && isDeepStrictEqual(step.value, value)) {
      for (const e of [...(step.wrote ?? []), ...(step.read ? [step.read] : [])]) recordExchange(e);
      return readsBack(run, name, value, step.after[name], `after ${patchOf(updateOp, body)}, ${name} reads back ${show(step.after[name])}`);
    }
    await record.current();
    const answer = await record.update(body);
    if (answer.status >= 400 && answer.status < 500) refused(answer.status);
    ensure(answer.status === 200, `${patchOf(updateOp, body)} answered ${answer.status}`);
    const after = await record.read();
    readsBack(run, name, value, after[name], `after ${patchOf(updateOp, body)}, ${name} reads back ${show(after[name])}`);
  } };
}
