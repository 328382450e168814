/**
 * Sections 1 and 4: customers can be listed, created, found, updated and deleted. The contract
 * shows neither their fields nor status codes: success is any 2xx, a customer is the vendor's
 * fixture (marked with the run id), and each check works only on customers it created itself,
 * so the checks run concurrently and never change a customer that was there before.
 */
import { authObservation, type Probe } from '../checks/auth-observation.ts';
import { changedFields, described, mismatches, sameId } from '../records/compare.ts';
import { changedNotDerived } from '../records/derived.ts';
import { otherForms } from '../records/equivalence.ts';
import { CustomerLane, STILL_FOUND, type Made, type Scope } from '../resources/customer-lane.ts';
import { ensure, said } from '../checks/assertions.ts';
import { needs, needsThat } from '../checks/precondition.ts';
import { customerFixture, customerPatchOf, markerField } from '../records/fixtures.ts';
import { is2xx, type Answer, type ApiClient } from '../http/client.ts';
import { journalledClient } from '../safety/journal.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { CreatedRecords } from '../safety/created-records.ts';
import { Blocked, checksOf, type Check, type CheckRun, type Group, type Registry } from '../checks/definition.ts';
import { afterDeleteSteps, type AfterDelete } from '../resources/after-delete.ts';
import { selects } from '../core/selection.ts';
import { writeBackBody, pick } from '../records/record-shapes.ts';
import type { Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import { converge, windowOf } from '../core/converge.ts';
import { movedByWrite } from '../records/server-fields.ts';
import { PrintFile } from '../records/print-buckets.ts';
import { requireOps, resourceOps } from '../contract/resource-ops.ts';
import { sharedStep, StepBatch } from '../checks/shared-step.ts';
import { atOnce } from '../core/at-once.ts';
import { coverFields, judgeFields, keptOut, type FieldAccess } from '../resources/field-coverage.ts';
import { leasePlace } from '../safety/lease.ts';
import { Frame, laneEnd } from '../safety/frame.ts';
import { ID_NEAR_MISSES, type IdMiss } from '../contract/id-near-misses.ts';
import { madeBy, wrongRecordFound } from '../checks/id-near-miss.ts';
import type { Operation, Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import type { CheckId } from '../contract/catalog.ts';

/** What the customer checks share in one run: the lane, and the steps several checks judge. */
interface Customers {
  client: ApiClient;
  lab: CustomerLane;
  /** Customers the suite's shared steps make: deleted at its end. */
  suiteScope: Scope;
  /** The steps that delete a customer and ask what its id answers then: `deletion`, and an unknown-id probe per operation. */
  afterDelete: (step: string) => Promise<Deleted>;
  /** The customer the observations without a key address, and the scope that deletes it. */
  mine: Scope;
  made: () => Promise<Made>;
}

/** What a step that deleted a customer of its own learned: the delete's answer, what the id answered then, and (the deletion) whether the list still names it. */
interface Deleted {
  made: Made;
  removed: Answer;
  answer: Answer;
  listed?: Promise<boolean>;
}

/** Customers whose values the each-field coverage may take: the first this many listed, not a long list whole. */
const OTHERS_SAMPLE = 100;

/**
 * The checks that judge the list go out as one batch (StepBatch), each a member of the lane's
 * phased list reads (ListPasses.member): one read before the writes and one after the creates and
 * changes answer every one of them, however many run and however long the list (issue 35). Each
 * check says at which phase it reads.
 */
type ListBatch = StepBatch<Customers>;

/** A customer check that reads the list: as customerCheck, its body a step of the batch, its scope deleted once the step stops reading. */
function listCheck(batch: ListBatch, def: { id: CheckId; title: string }, body: (ctx: Customers, scope: Scope, run: CheckRun) => Promise<void>): Check<Customers> {
  return batch.check({ ...def, changesData: true }, async (ctx, run) => {
    const scope = ctx.lab.scope();
    try {
      await ctx.lab.passes.member(() => body(ctx, scope, run));
    } finally {
      const left = await scope.cleanUp();
      if (left.length) run.note(`not deleted yet (the suite retries at its end): ${left.join('; ')}`);
    }
  });
}

/**
 * A customer check: changes data (it creates customers), owns a scope, and deletes what it
 * created when it ends, whatever happened; what cannot be deleted is noted and left to the suite's
 * final clean-up.
 */
function customerCheck(def: { id: CheckId; title: string }, body: (ctx: Customers, scope: Scope, run: CheckRun) => Promise<void>): Check<Customers> {
  return {
    ...def,
    changesData: true,
    async run(ctx, run) {
      const scope = ctx.lab.scope();
      try {
        await body(ctx, scope, run);
      } finally {
        const left = await scope.cleanUp();
        if (left.length) run.note(`not deleted yet (the suite retries at its end): ${left.join('; ')}`);
      }
    },
  };
}

/** The target gave a deleted customer's id to another customer at once (ids may be reused: their format is not shown). */
function reused(id: unknown): Blocked {
  return new Blocked('the target', `the deleted customer's id ${String(id)} already names another customer (the target reuses ids), so what a deleted id answers cannot be judged`);
}

type CustomerOps = ReturnType<typeof requireOps<'list' | 'create' | 'find' | 'update' | 'remove'>>;

export function customerChecks(spec: Spec, target: TargetConfig): Registry<Customers> {
  const ops = requireOps(resourceOps(spec, 'customers'), 'customers', ['list', 'create', 'find', 'update', 'remove']);
  const place = leasePlace(spec, target);
  const batch: ListBatch = new StepBatch();
  const entries = [lifecycle(ops, target, batch), nearMisses(ops, target, batch), authentication(spec, ops, target), staysDeleted(ops, target)];
  const running = new Set(checksOf(entries).filter((c) => selects(target.only, c) && !(c.changesData && target.readOnly)).map((c) => c.id));
  // The after-delete steps of the checks this run holds the target to go out as one batch.
  const expected = [...new Set(checksOf(entries).filter((c) => selects(target.only, c)).flatMap((c) => afterDeleteOf(c.id) ?? []))];
  return {
    entries,
    open() {
      const client = journalledClient(target);
      const lab = new CustomerLane(client, ops, target, new CreatedRecords(currentJournal(target)));
      const suiteScope = lab.scope();
      const mine = lab.scope();
      const ctx: Customers = {
        client, lab, suiteScope, mine,
        afterDelete: afterDeleteSteps(lab, suiteScope, {
          deletion: deletionStep(lab),
          ...Object.fromEntries(unknownIdCases(ops, target).map(([variant, op, body]) => [variant, unknownIdStep(client, lab, ops, variant, op, body)])),
        }, expected),
        made: sharedStep(() => mine.make('auth')),
      };
      batch.open(ctx, (id) => running.has(id));
      return ctx;
    },
    // A difference another run's writes may have made is settled before it is a failure (see JUDGES_DIFFERENCES).
    settle: { prefix: 'CUS-', with: ({ lab }) => lab.settle(place) },
    async close({ client, lab }) {
      try {
        // The lane's last write is its clean-up's: the frame's reading at the lane's end, right after, is the verification's list read too.
        const frame = Frame.of(spec, target);
        // A customer still found after its delete answered 2xx is the target's doing (CUS-DELETE:stays-deleted
        // judges it), not the suite's: the after-run clean-up deletes it again and names what stays.
        const left = (await lab.finish(frame && ((visit) => frame.readAlso(laneEnd('customers'), ops.list.path, visit)))).filter((l) => !l.endsWith(STILL_FOUND));
        if (left.length) throw new Error(`left on the target, could not be deleted: ${left.join('; ')}`);
      } finally {
        await client.close();
      }
    },
  };
}

// Cover what the target shows: each field of a customer of this run, changed alone to a value
// another customer holds (a boolean flipped), read back by find and by list. The run deletes it.
function eachFieldStep(batch: ListBatch, target: TargetConfig) {
  return batch.step('each-field', ['CUS-UPDATE:each-field', 'CUS-LIST:each-field-change'], ({ lab, suiteScope }) => lab.passes.member(async () => {
    const { idField } = lab;
    const made = await suiteScope.make('each-field');
    // Reads only, so at once; a failure is said in this order, as when they went one after the other.
    const [listed, original] = await atOnce([
      needs('CUS-LIST:array', lab.firstListedRows(OTHERS_SAMPLE, 'listing customers for values to take', 'before')),
      needs('CUS-FIND', lab.readMade(made, 'reading the customer before changing its fields')),
    ] as const);
    const others = listed.filter((r) => !sameId(r[idField], made.id));
    const marker = markerField(target);
    const skip = { ...keptOut(target.vendor.fieldsNotToChange?.customers), ...(marker && { [marker]: "it carries the run's marker, by which a crashed run's customers are found" }) };
    // The customer is this step's alone: its last find, with no write to it since, is where the next change starts.
    let last: Row | undefined = original;
    const access: FieldAccess = {
      resource: lab.ops.update.resource, idField, id: made.id,
      read: async (why) => (last = await lab.read(made.id, why)),
      current: async (why) => last ?? access.read(why),
      listed: (why) => lab.listedRow(made.id, why, 'after-changes'),
      update: (body) => {
        last = undefined;
        return lab.update(made.id, body);
      },
      twin: lab.twinPatch(suiteScope, 'each-field'),
      windowMs: windowOf(target),
    };
    return coverFields(access, original, others, skip);
  }));
}

// One deletion, judged by a MUST (no longer found nor listed) and a SHOULD (found answers 404),
// on reads after the delete shows (or the window ends). It goes with the unknown-id probes
// (afterDeleteSteps): no create of this run goes out meanwhile, which a target that reuses ids
// would give the deleted id (see isAnother).
function deletionStep(lab: CustomerLane): AfterDelete<Deleted> {
  return {
    label: 'delete',
    probe: async (made, removed) => ({ made, removed, answer: is2xx(removed) ? await lab.findUntilGone(made) : await lab.find(made.id) }),
    async list(made, probed) {
      if (!is2xx(probed.removed)) return { ...probed, listed: Promise.resolve(true) };
      const listed = lab.stillListed(made, 'listing customers after the delete', true);
      await listed.catch(() => undefined);
      return { ...probed, listed };
    },
  };
}

/** The after-delete step a check judges: the deletion, or the unknown-id probe its variant names. */
const afterDeleteOf = (id: string) => (id.startsWith('CUS-DELETE') ? 'deletion' : id.startsWith('CUS-UNKNOWN-') ? id.split(':')[1] : undefined);

// An id that names no customer, in the target's own format: one this run created and deleted.
// Each operation gets its own, so that a target wrongly reviving one cannot disturb the others.
// Only a find must not succeed (a 2xx would claim a customer that does not exist); the contract
// shows no status codes for customers, so an idempotent delete (2xx for a deleted id) or an
// update of an unknown id is judged by the SHOULD (404) alone.
const unknownIdCases = (ops: CustomerOps, target: TargetConfig): [string, Operation, unknown][] => [
  ['find', ops.find, undefined],
  ['update', ops.update, customerPatchOf(target)],
  ['delete', ops.remove, undefined],
];

function unknownIdStep(client: ApiClient, lab: CustomerLane, ops: CustomerOps, variant: string, op: Operation, body: unknown): AfterDelete<Deleted> {
  return {
    label: `unknown ${variant}`,
    async probe(made, removed) {
      needsThat('CUS-DELETE', is2xx(removed), () => `deleting a customer to get an unknown id: DELETE ${ops.remove.path} ${said(removed)}`);
      // A find is asked once the delete shows; never judged on another customer that now holds the id.
      if (op === ops.find) {
        const gone = await lab.findUntilGone(made);
        if (lab.isAnother(gone.json, made)) throw reused(made.id);
        return { made, removed, answer: gone };
      }
      // A write is sent at once: a refusal is judged as it is. A 2xx may be a write that came
      // before the delete showed: it is asked again once it has, unless what holds the id now is
      // what the write itself sent (an update that creates) or another customer (a reused id).
      const first = await client.call(op, { id: made.id, body });
      if (!is2xx(first)) return { made, removed, answer: first };
      const gone = await lab.findUntilGone(made);
      const now = is2xx(gone) && lab.isAnother(gone.json, made) ? recordIn(gone.json, lab.idField, { id: made.id }) : undefined;
      const madeByWrite = now !== undefined && body !== undefined && mismatches(body as Row, now).length === 0;
      if (now !== undefined && !madeByWrite) throw reused(made.id);
      const answer = madeByWrite ? first : await client.call(op, { id: made.id, body });
      if (is2xx(answer) && op !== ops.remove) lab.adopt(made.id);
      return { made, removed, answer };
    },
  };
}

function lifecycle(ops: CustomerOps, target: TargetConfig, batch: ListBatch): Group<Customers> {
  return {
    group: 'customers',
    concurrent: true,
    entries: [
      ...creation(ops, target, batch), ...listing(ops, target, batch), ...updating(ops, target, batch), ...isolation(target, batch), ...deleting(ops), ...unknownIds(ops, target),
    ],
  };
}

function creation(ops: CustomerOps, target: TargetConfig, batch: ListBatch): Check<Customers>[] {
  const { idField } = target.vendor;
  return [
    customerCheck({ id: 'CUS-CREATE', title: `POST ${ops.create.path} answers 2xx with the created customer: an id and every value sent` }, async (_ctx, scope, run) => {
      const { answer, sent, id, record } = await scope.create('create');
      ensure(is2xx(answer), () => `POST ${ops.create.path} ${said(answer)}`);
      ensure(record, () => `POST ${ops.create.path} ${said(answer)}: not the created customer`);
      ensure(id !== undefined && id !== null, () => `the created customer carries no "${idField}" (set idField in the vendor config if the id has another name): ${said(answer)}`);
      const wrong = mismatches(sent, record);
      ensure(wrong.length === 0, () => `the created customer does not carry the values sent: ${wrong.join('; ')}`);
      for (const form of otherForms(sent, record)) run.note(form);
    }),

    // Its marker is unique to this create: a target that stores a create twice (a retried insert)
    // lists two customers carrying it.
    listCheck(batch, { id: 'CUS-CREATE-ONE', title: `one POST ${ops.create.path} makes one customer: the list then holds exactly one carrying its marker` }, async ({ lab }, scope, run) => {
      const field = markerField(target) ?? run.notApplicable('the customer fixture has no string field (besides emails) to carry the run marker (markerField in the vendor config)');
      const made = await scope.make('create-one');
      const marker = String(made.sent[field]);
      // Counted on a list that shows the new customer: a list read before it shows proves nothing.
      const count = async () => {
        const rows: Row[] = [];
        await lab.scanAll('listing customers after one create', (r) => void (typeof r[field] === 'string' && r[field].includes(marker) && rows.push(r)), false, 'after-changes');
        return rows;
      };
      const { value: carrying } = await converge(count, (rows) => rows.some((r) => lab.isMade(r, made)), windowOf(target));
      // What the create made besides the customer it answered is this run's too: the scope deletes it.
      for (const r of carrying) if (!sameId(r[idField], made.id)) lab.adopt(r[idField]);
      ensure(carrying.length === 1, () => `after one POST ${ops.create.path}, the list holds ${carrying.length} customers carrying its marker "${marker}" (${carrying.map((r) => String(r[idField])).join(', ') || 'none'})`);
    }),

    customerCheck({ id: 'CUS-FIND', title: `GET ${ops.find.path} answers 2xx with the same customer: its id, and the fields sent as the create answered them` }, async ({ lab }, scope) => {
      const made = await scope.make('find');
      const answer = await lab.findMade(made);
      ensure(is2xx(answer), () => `GET ${ops.find.path} with the new customer's id ${said(answer)}`);
      const found = recordIn(answer.json, idField, { id: made.id });
      ensure(found, () => `GET ${ops.find.path} ${said(answer)}: not a customer`);
      ensure(sameId(found[idField], made.id), () => `asked for ${String(made.id)}, found ${idField} ${JSON.stringify(found[idField])}`);
      // Representations are not shown: only the fields sent must be the same in both answers (the id is compared above).
      const sentFields = Object.fromEntries(Object.keys(made.sent).filter((k) => k !== idField).map((k) => [k, made.record[k]]));
      const wrong = mismatches(sentFields, found);
      ensure(wrong.length === 0, () => `the customer found does not carry the values the create answered for the fields sent: ${wrong.join('; ')}`);
    }),
  ];
}

function listing(ops: CustomerOps, target: TargetConfig, batch: ListBatch): Check<Customers>[] {
  const { idField } = target.vendor;
  return [
    batch.check({ id: 'CUS-LIST:array', title: `GET ${ops.list.path} answers 2xx with a list: a JSON array, or an object holding exactly one` }, ({ lab }) => lab.passes.member(() => lab.scanAll('listing customers', () => {}, false, 'before'))),

    listCheck(batch, { id: 'CUS-LIST:new-and-existing', title: `GET ${ops.list.path} lists a new customer and still every customer there before` }, async ({ lab }, scope) => {
      const before = await lab.preExisting('listing customers before creating one', undefined, 'before');
      const made = await scope.make('list');
      // Every page, read again until the new customer shows (within the convergence window).
      const read = async () => {
        let present = false;
        const end = await lab.scan('listing customers after creating one', (r) => void (present ||= lab.isMade(r, made)), false, true, 'after-changes');
        // The read's own ids (ListEnd.ids): a whole read that ended has them.
        return { ids: end.ids!, present };
      };
      const { value: after } = await converge(read, (v) => v.present, windowOf(target));
      ensure(after.present, `the list does not hold the customer just created (${String(made.id)})`);
      const listed = after.ids;
      const unlisted: string[] = [];
      const missing: string[] = [];
      before.each((id) => void (listed.has(id) || missing.push(id)));
      for (const id of missing) {
        // Someone may have deleted it meanwhile: only a customer that is still found must be listed.
        if (is2xx(await lab.find(id))) unlisted.push(id);
      }
      ensure(unlisted.length === 0, () => `the list no longer holds customers that are still found: ${unlisted.join(', ')}`);
    }),
  ];
}

function updating(ops: CustomerOps, target: TargetConfig, batch: ListBatch): Check<Customers>[] {
  const patch = customerPatchOf(target);
  const eachField = eachFieldStep(batch, target);
  return [
    customerCheck({ id: 'CUS-UPDATE', title: `PATCH ${ops.update.path} applies customerPatch; the answer and a later find show it; fields not sent are unchanged` }, async ({ lab }, scope, run) => {
      if (!Object.keys(patch).length) run.notApplicable('the customer fixture has no string field to change besides the marker and emails: configure customerPatch');
      const made = await scope.make('update');
      const before = await lab.readMade(made, 'reading the customer before the update');
      const answer = await lab.update(made.id, patch);
      ensure(is2xx(answer), () => `PATCH ${ops.update.path} with ${JSON.stringify(patch)} ${said(answer)}`);
      // The answer's shape is not shown (a PATCH may answer the changes only, or {}): what it names must be the new value.
      const answered = recordIn(answer.json, lab.idField, { id: made.id });
      if (answered) {
        const stale = mismatches(patch, answered).filter((m) => !m.endsWith('got nothing'));
        ensure(stale.length === 0, () => `the update's answer shows other values than those sent: ${stale.join('; ')}`);
      }
      const after = await lab.readUntil(made.id, 'reading the customer after the update', (row) => mismatches(patch, row).length === 0);
      const unapplied = mismatches(patch, after);
      ensure(unapplied.length === 0, () => `a find after the update does not show the change: ${unapplied.join('; ')}`);
      for (const form of otherForms(patch, after)) run.note(form);
      // A field not sent that moved: sent again, what moves on every write is the target's own (see movedByWrite).
      const read = () => lab.read(made.id, 'reading the customer after the update again').catch(() => undefined);
      await movedByWrite(ops.update.resource, before, after, patch, { write: () => lab.update(made.id, patch), read, windowMs: windowOf(target) });
      const changed = await changedNotDerived(patch, { before, after }, lab.twinPatch(scope, 'update'), undefined, ops.update.resource);
      ensure(changed.length === 0, () => `fields not sent changed: ${described(before, after, changed).join('; ')}`);
    }),

    customerCheck({ id: 'CUS-UPDATE:each-field', title: `PATCH ${ops.update.path} of each field a customer shows, alone, to a value another customer holds (a boolean flipped): a later find shows it and nothing else changed` }, async (ctx, _scope, run) => {
      judgeFields(run, await eachField(ctx, run), 'found');
    }),
    customerCheck({ id: 'CUS-LIST:each-field-change', title: `GET ${ops.list.path} still lists the customer after each change of one of its fields, with the value a find shows` }, async (ctx, _scope, run) => {
      judgeFields(run, await eachField(ctx, run), 'listed');
    }),
  ];
}

function deleting(ops: CustomerOps): Check<Customers>[] {
  return [
    customerCheck({ id: 'CUS-DELETE', title: `DELETE ${ops.remove.path} answers 2xx; the customer is then neither found nor listed` }, async ({ lab, afterDelete }) => {
      const { made, removed, answer: found, listed } = await afterDelete('deletion');
      ensure(is2xx(removed), () => `DELETE ${ops.remove.path} ${said(removed)}`);
      ensure(!is2xx(found) || lab.isAnother(found.json, made), () => `the deleted customer ${String(made.id)} is still found: GET ${ops.find.path} ${said(found)}`);
      ensure(!(await listed!), `the deleted customer ${String(made.id)} is still listed`);
    }),

    customerCheck({ id: 'CUS-DELETE-404', title: `GET ${ops.find.path} of a deleted customer answers 404` }, async ({ lab, afterDelete }) => {
      const { made, removed, answer: found } = await afterDelete('deletion');
      needsThat('CUS-DELETE', is2xx(removed), () => `the delete itself failed: DELETE ${ops.remove.path} ${said(removed)}`);
      if (lab.isAnother(found.json, made)) throw reused(made.id);
      ensure(found.status === 404, () => `finding the deleted customer ${said(found)}, not 404`);
    }),
  ];
}

function unknownIds(ops: CustomerOps, target: TargetConfig): Check<Customers>[] {
  return unknownIdCases(ops, target).flatMap(([variant, op]) => {
    const asked = `${op.method} ${op.path} of a deleted customer's id`;
    const notFound = customerCheck({ id: `CUS-UNKNOWN-404:${variant}`, title: `${asked} answers 404` }, async ({ afterDelete }) => {
      const { made, answer } = await afterDelete(variant);
      ensure(answer.status === 404, () => `${asked} (${String(made.id)}) ${said(answer)}, not 404`);
    });
    if (op !== ops.find) return [notFound];
    const not2xx = customerCheck({ id: `CUS-UNKNOWN-NOT-2XX:${variant}`, title: `${asked} does not answer 2xx` }, async ({ afterDelete }) => {
      const { made, answer } = await afterDelete(variant);
      ensure(!is2xx(answer), () => `${asked} (${String(made.id)}) ${said(answer)}`);
    });
    return [not2xx, notFound];
  });
}

// Two identical customers (same body, same marker): an implementation that addresses records
// by anything but the id hits the twin. Every customer there before must stay exactly as it was.
function isolation(target: TargetConfig, batch: ListBatch): Check<Customers>[] {
  const patch = customerPatchOf(target);
  const cases: [string, string, (lab: CustomerLane, id: unknown) => Promise<Answer>][] = [
    ['update', 'updating', (lab, id) => lab.update(id, patch)],
    ['delete', 'deleting', (lab, id) => lab.remove(id)],
  ];
  return cases.map(([variant, doing, act]) => listCheck(batch, { id: `CUS-ISOLATION:${variant}`, title: `${doing} one customer leaves its identical twin and every pre-existing customer as they were` }, async ({ lab }, scope) => {
    const twin = await scope.make(`isolation ${variant}`);
    const addressed = await scope.make(`isolation ${variant}`);
    const twinBefore = await lab.readMade(twin, 'reading the twin before');
    const before = await lab.preExisting('listing customers before', undefined, 'before');
    const answer = await act(lab, addressed.id);
    needsThat(variant === 'update' ? 'CUS-UPDATE' : 'CUS-DELETE', is2xx(answer), () => `the ${variant} itself failed, so isolation cannot be judged: it ${said(answer)}`);
    // The fence: what follows is judged on reads after the list shows the change itself.
    const shows = variant === 'update' ? (row?: Row) => !row || mismatches(pick(patch, Object.keys(row)), row).length === 0 : (row?: Row) => !row || lab.isAnother(row, addressed);
    const { prints: after, row } = await lab.preExistingUntil('listing customers after', addressed.id, shows, 'after-changes');
    // A list that does not carry the changed fields cannot show the update: a find does.
    if (variant === 'update' && row && Object.keys(patch).some((k) => !(k in row))) await lab.readUntil(addressed.id, 'reading the updated customer', (r) => mismatches(patch, r).length === 0).catch(() => undefined);
    const twinAfter = await lab.read(twin.id, `reading the twin after the ${variant} of ${String(addressed.id)}`);
    const twinChanged = changedFields(twinBefore, twinAfter, [], 'customers');
    ensure(twinChanged.length === 0, () => `the ${variant} of ${String(addressed.id)} changed customer ${String(twin.id)}: ${twinChanged.join('; ')}`);
    const touched: string[] = [];
    // Only where the two readings differ (PrintFile's buckets): every other customer listed the same print before and after.
    const [was, is] = PrintFile.differing(before, after);
    for (const [id, print] of was) {
      const changed = await lab.changedSince(id, print, is.get(id));
      if (changed) touched.push(`${id} (${changed})`);
    }
    ensure(touched.length === 0, () => `the ${variant} of ${String(addressed.id)} changed pre-existing customers: ${touched.join(', ')}`);
  }));
}

// Near misses of a customer's id (helpers/contract/id-near-misses.ts): never another customer, nor
// this one unless the near miss is its id written another way; a write to one creates nothing.
function nearMisses(ops: CustomerOps, target: TargetConfig, batch: ListBatch): Group<Customers> {
  const { idField } = target.vendor;
  const patch = customerPatchOf(target);
  const nearMiss = (miss: IdMiss, variant: 'find' | 'update' | 'delete') => {
    const op = { find: ops.find, update: ops.update, delete: ops.remove }[variant];
    return listCheck(batch, { id: `CUS-ID-NEAR-MISS:${variant}:${miss.name}`, title: `${op.method} ${op.path} with ${miss.description} ${miss.canonical ? 'answers no other customer' : 'neither answers nor changes that customer or another, and creates none'}` }, async ({ client, lab }, scope, run) => {
      // A label of its own: checks with one label make identical customers (one marker), which a broken delete may take together.
      const made = await scope.make(`near miss ${variant} ${miss.name}`);
      const near = miss.of(made.id);
      if ('unavailable' in near) return run.notApplicable(near.unavailable);
      const before = await needs('CUS-LIST:array', lab.listedIds('listing customers before', 'before'));
      if (before.has(near.id)) run.notApplicable(`${near.id} is the id of a listed customer, not a near miss`);
      const asked = `${op.method} ${op.path} with ${near.id} (${miss.description} ${String(made.id)})`;
      if (variant === 'find') {
        const answer = await lab.find(near.id);
        const wrong = wrongRecordFound(answer, miss, near.id, made.record, idField, 'customer');
        ensure(!wrong, () => `${asked} ${wrong}: ${said(answer)}`);
        return;
      }
      const standing = await needs('CUS-FIND', lab.readMade(made, 'reading the customer before'));
      // Sent with no create of the run going: the checks beside it create customers after the list
      // was read, and a target that hands out ids in order may have given the near miss to one of them.
      const answer = await lab.alone(async () => {
        if (lab.isOurs(near.id)) run.notApplicable(`${near.id} is the id of a customer this run created since the list was read, not a near miss`);
        return variant === 'update' ? lab.update(near.id, patch) : client.call(op, { id: near.id });
      });
      const found = await lab.findMade(made);
      ensure(is2xx(found), () => `${asked} ${said(answer)}, and the customer ${String(made.id)} is no longer found: GET ${ops.find.path} ${said(found)}`);
      const now = recordIn(found.json, idField, { id: made.id });
      if (variant === 'update' && now) {
        const changed = changedFields(standing, now, [], 'customers');
        ensure(changed.length === 0, () => `${asked} ${said(answer)}, and changed the customer ${String(made.id)}: ${changed.join('; ')}`);
        // Customers the other checks create meanwhile are this run's own, not made by the write;
        // one under the near miss itself is this write's, even if a check beside it took it for its own.
        const added = madeBy(patch, [near.id], [], await needs('CUS-LIST:array', lab.listedBesides(before, 'listing customers after', 'after-changes')), idField).filter((id) => sameId(id, near.id) || !lab.isOurs(id));
        for (const id of added) lab.adopt(id);
        ensure(added.length === 0, () => `${asked} ${said(answer)}, and created customers ${added.map(String).join(', ')} (deleted again at the end of the run)`);
      }
    });
  };
  return {
    group: 'customers: near misses of an id',
    concurrent: true,
    // A write to a canonical form may rightly change or delete the customer itself: only finds are judged for those.
    entries: ID_NEAR_MISSES.flatMap((miss) => (miss.canonical ? (['find'] as const) : (['find', 'update', 'delete'] as const)).map((variant) => nearMiss(miss, variant))),
  };
}

// Declared last, so it runs after every other customer check of the lane: a deleted customer stays
// so, whatever the run does after its delete (another create, another delete) — not only at once.
function staysDeleted(ops: CustomerOps, target: TargetConfig): Group<Customers> {
  return {
    group: 'after the other customer checks',
    entries: [
      customerCheck({ id: 'CUS-DELETE:stays-deleted', title: `a customer DELETE ${ops.remove.path} answered 2xx for is found no more, for the rest of the run` }, async ({ lab }, _scope, run) => {
        const gone = lab.deletedIds();
        if (!gone.length) run.notApplicable('no delete of this run answered 2xx before it');
        const back = (await Promise.all(gone.map(async (id) => ((await lab.foundAgain(id)) ? [id] : [])))).flat();
        ensure(back.length === 0, () => `customers whose DELETE ${ops.remove.path} answered 2xx are found again later in the run, carrying its marker: ${back.join(', ')} (GET ${ops.find.path} answers 2xx)`);
      }),
    ],
  };
}

function authentication(spec: Spec, ops: CustomerOps, target: TargetConfig): Group<Customers> {
  const { idField } = target.vendor;
  const firstListed = async ({ lab }: Customers): Promise<Probe> => {
    const first = await lab.firstListed('listing customers to find one to ask for');
    return first ? { id: first[idField] } : { cannot: 'the target lists no customer to ask for' };
  };
  const probes: Record<string, (ctx: Customers) => Promise<Probe>> = {
    [ops.list.operationId]: async () => ({}),
    // A body of its own: a target that keeps emails unique would refuse a copy of another customer's.
    [ops.create.operationId]: async () => ({ body: customerFixture(target, 'auth') }),
    // A read-only run creates nothing: it asks for a customer that is there, if there is one.
    [ops.find.operationId]: async (ctx) => (target.readOnly ? firstListed(ctx) : { id: (await ctx.made()).id }),
    [ops.update.operationId]: async ({ made }) => ({ id: (await made()).id, body: writeBackBody((await made()).record, target, ops.update) }),
    // A customer of its own: a delete served without a key then takes nothing the others ask for.
    [ops.remove.operationId]: async ({ mine }) => ({ id: (await mine.make('auth delete')).id }),
  };
  return {
    group: 'customers: authentication (not documented, observed only)',
    // Each asks once, on customers of its own: they go at once, beside the other customer checks.
    concurrent: true,
    afterAll: async ({ mine }) => void (await mine.cleanUp()),
    entries: spec.operations.filter((o) => o.resource === 'customers').map((op) =>
      authObservation<Customers>(target, op, probes[op.operationId] ?? (async () => ({ cannot: 'no way to prepare this operation' })), undefined, ({ lab }, send, { id }) =>
        op === ops.create ? lab.creatingOutside(send) : op === ops.remove ? lab.deletingOutside(id, send) : send(),
      ),
    ),
  };
}
