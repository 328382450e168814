// The exploration's model and commands: each command is one documented operation with generated
// inputs, sent through the lanes the checks use (their journal, their reads that wait for the
// run's own writes), and judged against the model by the promise it touches, nothing more.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { Answer, ApiClient, Auth } from '../http/client.ts';
import { is2xx } from '../http/client.ts';
import { withExchangeLog, type Exchange } from '../http/exchanges.ts';
import type { Operation } from '../contract/spec.ts';
import { isRecord, type Row } from '../contract/record.ts';
import type { TargetConfig } from '../config/target.ts';
import { changedFieldNames, mismatches, sameId } from '../records/compare.ts';
import { sameValue } from '../records/equivalence.ts';
import { movedByWrite, type Rewrite } from '../records/server-fields.ts';
import { showsValue } from '../records/record-history.ts';
import { writableFields, pick } from '../records/record-shapes.ts';
import { customerFixture, customerPatchOf, markerField } from '../records/fixtures.ts';
import { fixtureFields } from '../records/marker-field.ts';
import { markedValue } from '../records/run-marker.ts';
import { echoesKey, recordValuesShown } from '../checks/disclosure.ts';
import { converge, windowOf } from '../core/converge.ts';
import type { BusinessLane } from '../resources/business-lane.ts';
import type { CustomerLane, Made } from '../resources/customer-lane.ts';
import type { TeamMemberLane } from '../resources/team-member-lane.ts';
import { candidateValues, markerKind, type NamedField } from '../resources/business-values.ts';
import { fieldPlan, valueFor, type FieldPlan } from './values.ts';
import { DECLARED_FORM, headerForms, type HeaderForm } from '../http/media-types.ts';
import { ID_NEAR_MISSES } from '../contract/id-near-misses.ts';
import { wrongRecordFound } from '../checks/id-near-miss.ts';
import { serverFields } from '../records/server-fields.ts';

/**
 * Whether a read shows a write as the run knows the record: what was sent, and every other field
 * as last read (but those the target moves by itself). Reads may lag or go back in time: an update
 * is judged on a read that is not older than what the run knows, within the window, never on one
 * that shows an older copy (an empty PATCH judged on a replica behind the last write).
 */
const showsWrite = (known: Row, sent: Row, resource: string) => (row: Row) =>
  Object.keys(sent).every((f) => showsValue(row, f, sent[f])) &&
  Object.keys(known).every((f) => f in sent || serverFields().has(resource, f) || showsValue(row, f, known[f]));

/** The promises exploration holds the target to: one check each (spec/requirements.yaml). */
export const PROPERTIES = ['EXPLORE-UPDATE-APPLIES', 'EXPLORE-REFUSED', 'EXPLORE-REFUSED-NO-RECORD', 'EXPLORE-CUSTOMER-LIFECYCLE', 'EXPLORE-TEAM-FIXED'] as const;
export type Property = (typeof PROPERTIES)[number];

/** An answer that breaks a promise: the property, and what was seen. */
export class Broken extends Error {
  constructor(readonly property: Property, message: string) {
    super(message);
  }
}

/** What the run touches on the target: the lanes the checks use, and what a command needs of the spec. */
export interface World {
  client: ApiClient;
  target: TargetConfig;
  business: BusinessLane;
  customers: CustomerLane;
  members: TeamMemberLane;
  fields: NamedField[];
  retrieveOp: Operation;
  updateOp: Operation;
  /** Requests without a valid key (the Authorization near misses, none, expired), when the business operations are secured. */
  refusals: { name: string; auth: Auth; keys: string[] }[];
  /** Member fields an update of exploration's was seen to take: from then on, one not taken is a broken promise. */
  memberFieldsTaken: Set<string>;
  /** Each member exploration changed, as a find showed it before its first change: what a restore puts back. */
  memberOriginals: Map<string, Row>;
}

/** A customer exploration created: what it sent, what the target showed, and whether a delete of it was answered 2xx. */
interface Customer extends Made {
  gone: boolean;
}

/** What the run knows of the target: the business as last shown, exploration's customers, the members as read. */
export interface Model {
  business: Row;
  snapshot: Row;
  customers: Customer[];
  members: Row[];
  /** Whether this sequence sent the business an update (with a key or without): what a later read is held to. */
  businessWritten?: boolean;
  /** Each member as this walk last found it (a find, not a list: the form an update is judged on). */
  membersFound: Record<string, Row>;
  /** The member ids as listed when exploration began: none may come or go. */
  memberIds: string[];
  /** Each command as it went, numbered: the story a failure tells. */
  steps: Step[];
}

export interface Step {
  text: string;
  exchanges: Exchange[];
  /** What the target chose where the contract is silent (a 4xx for a generated value): recorded, never failed. */
  recorded?: string;
}

const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? 'nothing';
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** One command: `label` says what it sends once it has run; `act` sends it and judges. */
abstract class Command implements fc.AsyncCommand<Model, World> {
  protected label = '';
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  async run(m: Model, w: World): Promise<void> {
    const step: Step = { text: '', exchanges: [] };
    m.steps.push(step);
    try {
      await withExchangeLog(step.exchanges, () => this.act(m, w, step));
    } finally {
      step.text = this.label;
    }
  }
  protected abstract act(m: Model, w: World, step: Step): Promise<void>;
  toString(): string {
    return this.label || this.constructor.name;
  }
}

/** The business fields exploration may change: shown, of their documented type, not null before the run (putting null back may not work). */
const changeable = (w: World, m: Model) => w.fields.filter((nf) => !w.business.unchangeable(nf) && m.snapshot[nf.name] !== null);

/**
 * A business update's body, against the business as `current` holds it. A refused one may carry
 * null in any field: a request without a valid key is refused whatever its body, and changes nothing.
 */
function businessBody(w: World, m: Model, plan: FieldPlan, refused = false, current = m.business): Row {
  const fields = changeable(w, m);
  const body: Row = {};
  for (const i of plan.picks) {
    const nf = fields[i % Math.max(fields.length, 1)];
    if (!nf || nf.name in body) continue;
    const candidates = candidateValues(nf, w.target.vendor.businessValues, current[nf.name], m.snapshot[nf.name], w.target.runId);
    body[nf.name] = valueFor(plan.sources[i], {
      current: current[nf.name], original: m.snapshot[nf.name], others: 'unavailable' in candidates ? [] : candidates.map((c) => c.value),
      nullable: refused || Boolean(nf.field.nullable), length: plan.lengths[i], marker: markerKind(nf), runId: w.target.runId,
    });
  }
  return body;
}

/**
 * A record's fields exploration may write: those the target shows and a client is known to send
 * (`sendable`: the vendor's fixture and patch, or a field an update was seen to take), the
 * vendor's kept out. A field the target keeps itself may take a write it never shows, which no
 * restore could see to undo: one not known to be a client's is not written.
 */
function writable(w: World, row: Row, sendable: Iterable<string>, keptOut: string[] = []): string[] {
  const known = new Set(sendable);
  return writableFields(row, w.target.vendor.idField).filter((f) => known.has(f) && !keptOut.includes(f) && row[f] !== null && typeof row[f] !== 'object');
}

/** The fields a client sends a customer: the vendor's fixture and patch (the run marker's among them). */
const customerFields = (w: World) => [...Object.keys(w.target.vendor.customerFixture), ...Object.keys(customerPatchOf(w.target))];

/**
 * A customer's or member's update body. `marked`: the record carries the run marker, so its
 * marker field is written like any other, but with a value that keeps the marker (another label).
 */
function recordBody(w: World, row: Row, others: Row[], plan: FieldPlan, sendable: Iterable<string>, keptOut?: string[], marked = false): Row {
  const names = writable(w, row, sendable, keptOut);
  const marker = marked ? markerField(w.target) : undefined;
  const body: Row = {};
  for (const i of plan.picks) {
    const name = names[i % Math.max(names.length, 1)];
    if (!name || name in body) continue;
    const s = plan.sources[i];
    if (name === marker) {
      body[name] = s.kind === 'own' ? row[name] : markedValue(String(w.target.vendor.customerFixture[name] ?? ''), w.target.runId, `explore-${i}-${plan.lengths[i]}`);
      continue;
    }
    const held = others.map((o) => o[name]).filter((v) => v !== undefined && v !== null && typeof v === typeof row[name]);
    body[name] = valueFor(s, { current: row[name], original: row[name], others: held, nullable: false, length: plan.lengths[i], marker: 'text', runId: w.target.runId });
  }
  return body;
}

/**
 * An update answered 2xx: every field sent reads back as sent, and no other field moved. Customers'
 * and members' fields are not shown: one the target never showed it takes from a client (not in
 * `takes`) may be one it keeps itself, so its value not taken is recorded, not failed. Returns those.
 */
async function judgeUpdate(what: string, request: string, body: Row, before: Row, after: Row, names: string[], resource: string, again: Rewrite, takes?: string[]): Promise<string[]> {
  const notTaken = Object.keys(body).filter((f) => !showsValue(after, f, body[f]));
  const kept = takes ? notTaken.filter((f) => !takes.includes(f)) : [];
  const unapplied = notTaken.filter((f) => !kept.includes(f));
  if (unapplied.length) throw new Broken('EXPLORE-UPDATE-APPLIES', `after ${request}, ${unapplied.map((f) => `${what}'s ${f} reads ${show(after[f])}, not ${show(body[f])}`).join('; ')}`);
  // What the target moves on every write (a version, a stamp) is its own, as the other checks measure it (see movedByWrite).
  const moved = (await movedByWrite(resource, before, after, body, again)).filter((n) => names.includes(n));
  if (moved.length) throw new Broken('EXPLORE-UPDATE-APPLIES', `${request} sent ${Object.keys(body).join(', ') || 'no field'}, and ${what}'s ${moved.map((f) => `${f} moved from ${show(before[f])} to ${show(after[f])}`).join('; ')}`);
  return kept;
}

/**
 * The fields an update showed the target takes from a client: those it changed to the value sent.
 * A value sent that the record already held shows nothing taken (a field the server keeps reads
 * the same whatever is sent).
 */
const takenBy = (body: Row, before: Row, kept: string[]) => Object.keys(body).filter((f) => !kept.includes(f) && !showsValue(before, f, body[f]));

const keptNote = (kept: string[]) => `answered with success and kept its own ${kept.join(', ')} (a field the target never showed it takes from a client: recorded, not judged)`;

const said = (a: Answer) => `${a.status}`;

/** The headers a command sends: the declared ones (null), or the n-th other form (media-types.ts). */
const formOf = (update: boolean, n: number | null): HeaderForm => (n === null ? DECLARED_FORM : headerForms(update)[n % headerForms(update).length]);
const headersOf = (f: HeaderForm) => ({ headers: f.headers });
const withForm = (f: HeaderForm) => (f.name ? ` ${f.name}` : '');

/**
 * An update of the business, or two in a row with the read only after both (`then`): each update
 * changes the fields it sends and leaves the others as they are, so the model knows what both
 * leave, each field as the last update that sent it.
 */
class UpdateBusiness extends Command {
  constructor(private readonly plan: FieldPlan, private readonly form: number | null, private readonly then?: FieldPlan) {
    super();
  }
  protected async act(m: Model, w: World, step: Step) {
    const form = formOf(true, this.form);
    m.businessWritten = true;
    this.label = '';
    let sent: Row = {};
    let answered: Answer[] = [];
    for (const plan of this.then ? [this.plan, this.then] : [this.plan]) {
      const body = businessBody(w, m, plan, false, { ...m.business, ...sent });
      this.label += `${this.label ? ', then ' : `${w.updateOp.method} ${w.updateOp.path} `}${show(body)}${withForm(form)}`;
      const answer = await w.business.update(body, undefined, headersOf(form));
      this.label += ` → ${said(answer)}`;
      answered = [...answered, answer];
      sent = { ...sent, ...body };
    }
    if (this.then) this.label += ', no read between';
    // Reads may lag (converge): read until what was sent shows, within the window, as the customers' and members' updates do.
    const after = (await converge(() => w.business.read(), showsWrite(m.business, sent, w.updateOp.resource), windowOf(w.target))).value;
    // Whatever the headers, a success is "business updated" (section 4); a refusal of a header form or a value is the target's choice.
    const again = { write: () => w.business.update(sent, undefined, headersOf(form)), read: () => w.business.read(), windowMs: windowOf(w.target) };
    if (answered.every(is2xx)) await judgeUpdate('the business', this.label, sent, m.business, after, w.fields.map((f) => f.name), w.updateOp.resource, again);
    else step.recorded = `answered ${answered.map(said).join(', ')}${withForm(form)} (the contract shows no formats, validation errors or answers to other media types: recorded, not judged)`;
    m.business = after;
  }
}

class RefusedBusiness extends Command {
  constructor(private readonly update: boolean, private readonly refusals: number[], private readonly plan: FieldPlan, private readonly form: number | null) {
    super();
  }
  protected async act(m: Model, w: World) {
    if (!this.update && this.refusals.length > 1) return this.several(m, w);
    const r = w.refusals[this.refusals[0] % w.refusals.length];
    const op = this.update ? w.updateOp : w.retrieveOp;
    const body = this.update ? businessBody(w, m, this.plan, true) : undefined;
    const form = formOf(this.update, this.form);
    this.label = `${op.method} ${op.path}${body ? ` ${show(body)}` : ''} ${r.name}${withForm(form)}`;
    if (this.update) m.businessWritten = true;
    const answer = this.update ? await w.business.update(body!, r.auth, headersOf(form)) : await w.client.call(op, { auth: r.auth, ...headersOf(form) });
    this.label += ` → ${said(answer)}`;
    this.judge(m, w, r, form, answer, body);
    if (!this.update) return;
    const after = await w.business.read();
    const moved = changedFieldNames(m.business, after, w.fields.map((f) => f.name));
    if (moved.length) throw new Broken('EXPLORE-REFUSED', `${this.label}, and then ${moved.map((f) => `${f} reads ${show(after[f])}, not ${show(m.business[f])}`).join('; ')}`);
  }

  /**
   * Retrievals refused for several keys at once, each judged as one alone: a retrieval changes
   * nothing, so they may go side by side, one round trip for many of the key's near misses.
   */
  private async several(m: Model, w: World) {
    const form = formOf(false, this.form);
    const chosen = [...new Set(this.refusals.map((n) => n % w.refusals.length))].map((n) => w.refusals[n]);
    const answers = await Promise.all(chosen.map((r) => w.client.call(w.retrieveOp, { auth: r.auth, ...headersOf(form) })));
    const each = chosen.map((r, i) => `${r.name} → ${said(answers[i])}`);
    this.label = `${w.retrieveOp.method} ${w.retrieveOp.path}${withForm(form)}, side by side: ${each.join('; ')}`;
    chosen.forEach((r, i) => this.judge(m, w, r, form, answers[i], undefined, `${w.retrieveOp.method} ${w.retrieveOp.path} ${each[i]}`));
  }

  private judge(m: Model, w: World, r: World['refusals'][number], form: HeaderForm, answer: Answer, body: Row | undefined, label = this.label) {
    // With the declared headers the refusal is 401 (section 5.2); with another form the target may refuse that first, but never succeed.
    if (form.declared ? answer.status !== 401 : is2xx(answer)) throw new Broken('EXPLORE-REFUSED', `${label}: a request ${r.name}${withForm(form)} answered ${answer.status}, not ${form.declared ? '401' : 'a refusal'}`);
    const shown = recordValuesShown(answer, m.business, w.fields.map((f) => f.name), body ? JSON.stringify(body) : '');
    if (shown.length) throw new Broken('EXPLORE-REFUSED-NO-RECORD', `${label}: the refusal carries the record's ${shown.join(', ')}`);
    if (echoesKey(answer, r.keys)) throw new Broken('EXPLORE-REFUSED-NO-RECORD', `${label}: the refusal quotes the key it refused`);
  }
}

/** A later read of the business, after an update of this sequence: nothing wrote it since the last reading, so no field moved. */
class ReadBusiness extends Command {
  override check(m: Readonly<Model>) {
    return Boolean(m.businessWritten);
  }
  protected async act(m: Model, w: World) {
    this.label = `${w.retrieveOp.method} ${w.retrieveOp.path}`;
    const now = await w.business.read();
    this.label += ' → 200';
    // A field shown since in an equivalent form (another Unicode normalization, trimmed, lower case: a
    // target that normalizes late) holds the same value; one escaped, cut or replaced does not.
    const moved = changedFieldNames(m.business, now, w.fields.map((f) => f.name)).filter((f) => !sameValue(m.business[f], now[f]));
    if (moved.length) throw new Broken('EXPLORE-UPDATE-APPLIES', `${this.label}, with no write since the last reading: ${moved.map((f) => `${f} reads ${show(now[f])}, not ${show(m.business[f])}`).join('; ')}`);
    m.business = now;
  }
}

class CreateCustomer extends Command {
  constructor(private readonly plan: FieldPlan) {
    super();
  }
  protected async act(m: Model, w: World, step: Step) {
    const fixture = customerFixture(w.target, `explore-${m.customers.length}`);
    const shape = m.customers.find((c) => !c.gone)?.record ?? fixture;
    // The marker keeps the create's own label: the fixture's.
    const marker = markerField(w.target);
    const keptOut = [...(w.target.vendor.fieldsNotToChange?.customers ?? []), ...(marker ? [marker] : [])];
    const body = { ...fixture, ...recordBody(w, shape, m.customers.map((c) => c.record), this.plan, customerFields(w), keptOut) };
    const ops = w.customers.ops;
    this.label = `${ops.create.method} ${ops.create.path} ${show(body)}`;
    const answer = await w.customers.creatingOutside(() => w.client.call(ops.create, { body }));
    this.label += ` → ${said(answer)}`;
    const id = isRecord(answer.json) ? answer.json[w.customers.idField] : undefined;
    if (!is2xx(answer) || id === undefined || id === null) {
      step.recorded = `answered ${answer.status}${is2xx(answer) ? ' without an id' : ''} (the contract shows neither customer fields nor status codes: recorded, not judged)`;
      return;
    }
    // The fixture's fields are what a create takes (the vendor gives them); another field the target may keep as its own.
    const made: Customer = { id, sent: pick(body, Object.keys(fixture)), record: answer.json as Row, gone: false };
    const found = await w.customers.findMade(made);
    if (!is2xx(found) || !isRecord(found.json)) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}, and then ${ops.find.method} ${ops.find.path} with id ${String(id)} answered ${found.status}`);
    const wrong = mismatches(made.sent, found.json);
    if (wrong.length) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}, and then the customer ${String(id)} is found with ${wrong.join('; ')}`);
    const kept = Object.keys(body).filter((f) => !(f in made.sent) && !showsValue(found.json as Row, f, body[f]));
    if (kept.length) step.recorded = keptNote(kept);
    made.sent = pick(body, Object.keys(body).filter((f) => !kept.includes(f)));
    made.record = found.json;
    m.customers.push(made);
  }
}

const live = (m: Readonly<Model>) => m.customers.filter((c) => !c.gone);

class UpdateCustomer extends Command {
  constructor(private readonly n: number, private readonly plan: FieldPlan) {
    super();
  }
  override check(m: Readonly<Model>) {
    return live(m).length > 0;
  }
  protected async act(m: Model, w: World, step: Step) {
    const c = live(m)[this.n % live(m).length];
    const body = recordBody(w, c.record, m.customers.filter((o) => o !== c).map((o) => o.record), this.plan, [...Object.keys(c.sent), ...customerFields(w)], w.target.vendor.fieldsNotToChange?.customers, true);
    const ops = w.customers.ops;
    this.label = `${ops.update.method} ${ops.update.path.replace('{id}', String(c.id))} ${show(body)}`;
    const answer = await w.customers.update(c.id, body);
    this.label += ` → ${said(answer)}`;
    const why = 'reading the customer exploration updated';
    if (!is2xx(answer)) {
      step.recorded = `answered ${answer.status} (not shown for customers: recorded, not judged)`;
      c.record = await w.customers.read(c.id, why);
      return;
    }
    const after = await w.customers.readUntil(c.id, why, showsWrite(c.record, body, ops.update.resource));
    const again = { write: () => w.customers.update(c.id, body), read: () => w.customers.read(c.id, why).catch(() => undefined), windowMs: windowOf(w.target) };
    const kept = await judgeUpdate(`customer ${String(c.id)}`, this.label, body, c.record, after, Object.keys(c.record), ops.update.resource, again, [...Object.keys(c.sent), ...Object.keys(customerPatchOf(w.target))]);
    if (kept.length) step.recorded = keptNote(kept);
    Object.assign(c.sent, pick(body, takenBy(body, c.record, kept)));
    c.record = after;
  }
}

/** Near misses that are other ids: a write to one must leave the customer it was made from alone. */
const OTHER_IDS = ID_NEAR_MISSES.filter((miss) => !miss.canonical);

class DeleteCustomer extends Command {
  constructor(private readonly n: number, private readonly miss: number | null) {
    super();
  }
  override check(m: Readonly<Model>) {
    return live(m).length > 0;
  }
  protected async act(m: Model, w: World, step: Step) {
    const c = live(m)[this.n % live(m).length];
    const ops = w.customers.ops;
    if (this.miss !== null) {
      const miss = OTHER_IDS[this.miss % OTHER_IDS.length];
      const near = miss.of(c.id);
      if ('unavailable' in near) return;
      this.label = `${ops.remove.method} ${ops.remove.path.replace('{id}', near.id)} (${miss.description} ${String(c.id)})`;
      const answer = await w.client.call(ops.remove, { id: near.id });
      this.label += ` → ${said(answer)}`;
      const found = await w.customers.findMade(c);
      if (!is2xx(found) || !w.customers.isMade(found.json, c)) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}, and then the customer ${String(c.id)} is no longer found: ${ops.find.method} ${ops.find.path} answered ${found.status}`);
      return;
    }
    this.label = `${ops.remove.method} ${ops.remove.path.replace('{id}', String(c.id))}`;
    const answer = await w.customers.remove(c.id);
    this.label += ` → ${said(answer)}`;
    if (!is2xx(answer)) {
      step.recorded = `answered ${answer.status} (not shown for customers: recorded, not judged)`;
      return;
    }
    c.gone = true;
    const found = await w.customers.findUntilGone(c);
    if (is2xx(found) && w.customers.isMade(found.json, c)) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}, and then ${ops.find.method} ${ops.find.path} with id ${String(c.id)} still finds it (${found.status})`);
  }
}

class FindCustomer extends Command {
  constructor(private readonly n: number, private readonly miss: number | null) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.customers.length > 0;
  }
  protected async act(m: Model, w: World, step: Step) {
    const c = m.customers[this.n % m.customers.length];
    const ops = w.customers.ops;
    if (this.miss !== null) return this.nearMiss(m, w, c, step);
    this.label = `${ops.find.method} ${ops.find.path.replace('{id}', String(c.id))} (${c.gone ? 'deleted' : 'created'} by exploration)`;
    const answer = await w.customers.find(c.id);
    this.label += ` → ${said(answer)}`;
    if (c.gone && is2xx(answer) && w.customers.isMade(answer.json, c)) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}: the deleted customer is found`);
    if (!c.gone && !(is2xx(answer) && isRecord(answer.json) && mismatches(c.sent, answer.json).length === 0)) {
      throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}: the customer is not found with what was sent${isRecord(answer.json) ? ` (${mismatches(c.sent, answer.json).join('; ')})` : ''}`);
    }
  }

  /** A near miss of the id of a customer exploration created (or deleted) finds no other record, nor that one where the near miss is another id. */
  private async nearMiss(m: Model, w: World, c: Customer, step: Step) {
    const miss = ID_NEAR_MISSES[this.miss! % ID_NEAR_MISSES.length];
    const near = miss.of(c.id);
    const ops = w.customers.ops;
    this.label = `${ops.find.method} ${ops.find.path} with ${miss.description} ${String(c.id)}${'id' in near ? ` (${near.id})` : ''}`;
    if ('unavailable' in near || m.customers.some((o) => sameId(o.id, near.id))) {
      step.recorded = `not sent: ${'unavailable' in near ? near.unavailable : `${near.id} is another customer's id`}`;
      return;
    }
    const answer = await w.customers.find(near.id);
    this.label += ` → ${said(answer)}`;
    const wrong = wrongRecordFound(answer, miss, near.id, c.record, w.customers.idField, `${c.gone ? 'deleted ' : ''}customer`);
    if (wrong) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}: ${wrong}`);
  }
}

class ListCustomers extends Command {
  override check(m: Readonly<Model>) {
    return m.customers.length > 0;
  }
  protected async act(m: Model, w: World, step: Step) {
    const ops = w.customers.ops;
    this.label = `${ops.list.method} ${ops.list.path} (every page)`;
    const problems = (rows: Map<string, Row>) =>
      m.customers.flatMap((c) => {
        const row = rows.get(String(c.id));
        if (c.gone) return row && w.customers.isMade(row, c) ? [`the deleted customer ${String(c.id)} is listed`] : [];
        if (!row) return [`customer ${String(c.id)} is not listed`];
        // A list may show less of a record than a find: the fields it shows are held to what was sent.
        const wrong = mismatches(pick(c.sent, Object.keys(row)), row);
        return wrong.length ? [`customer ${String(c.id)} is listed with ${wrong.join('; ')}`] : [];
      });
    // Only the rows of the customers the walk knows: those are judged, and a list may hold a million.
    const known = new Set(m.customers.map((c) => String(c.id)));
    const read = async () => {
      const rows = new Map<string, Row>();
      await w.customers.scanAll('listing the customers exploration knows', (row) => {
        const id = String(row[w.customers.idField]);
        if (known.has(id)) rows.set(id, row);
      });
      return rows;
    };
    let rows: Map<string, Row>;
    try {
      rows = (await converge(read, (r) => problems(r).length === 0, windowOf(w.target))).value;
    } catch (e) {
      // A list whose end could not be reached proves nothing either way.
      step.recorded = `not judged: ${(e as Error).message.split('\n')[0]}`;
      return;
    }
    const wrong = problems(rows);
    if (wrong.length) throw new Broken('EXPLORE-CUSTOMER-LIFECYCLE', `${this.label}: ${wrong.join('; ')}`);
  }
}

class UpdateMember extends Command {
  constructor(private readonly n: number, private readonly plan: FieldPlan) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.members.length > 0;
  }
  protected async act(m: Model, w: World, step: Step) {
    const i = this.n % m.members.length;
    const member = m.members[i];
    const id = member[w.members.idField];
    // A client's fields: those the customer fixture names (as the hand-written member checks take them), the vendor's patch, those an update was seen to take.
    const sendable = [...fixtureFields(w.target), ...Object.keys(w.target.vendor.teamMemberPatch ?? {}), ...w.memberFieldsTaken];
    const body = recordBody(w, member, m.members.filter((o) => o !== member), this.plan, sendable, w.target.vendor.fieldsNotToChange?.teamMembers);
    const ops = w.members.ops;
    this.label = `${ops.update.method} ${ops.update.path.replace('{id}', String(id))} ${show(body)}`;
    // Judged against a find, as the after is: the model may hold the member as a list showed it, another form the contract does not rule out.
    // A member this walk found before (and has not seen change since): no find again.
    const before = m.membersFound[String(id)] ?? (await w.members.current(id, 'reading the member exploration updates'));
    // Its first change in the walk: this find is the original every restore puts back.
    if (!w.memberOriginals.has(String(id))) w.memberOriginals.set(String(id), before);
    const answer = await w.members.update(id, body);
    this.label += ` → ${said(answer)}`;
    const why = 'reading the member exploration updated';
    if (!is2xx(answer)) {
      step.recorded = `answered ${answer.status} (not shown for team members: recorded, not judged)`;
      m.members[i] = m.membersFound[String(id)] = await w.members.read(id, why);
      return;
    }
    const after = await w.members.readUntil(id, why, showsWrite(before, body, ops.update.resource));
    const again = { write: () => w.members.update(id, body), read: () => w.members.read(id, why).catch(() => undefined), windowMs: windowOf(w.target) };
    const kept = await judgeUpdate(`team member ${String(id)}`, this.label, body, before, after, Object.keys(before), ops.update.resource, again, [...w.memberFieldsTaken, ...Object.keys(w.target.vendor.teamMemberPatch ?? {})]);
    if (kept.length) step.recorded = keptNote(kept);
    for (const f of takenBy(body, before, kept)) w.memberFieldsTaken.add(f);
    m.members[i] = m.membersFound[String(id)] = after;
  }
}

class ListMembers extends Command {
  protected async act(m: Model, w: World) {
    const ops = w.members.ops;
    this.label = `${ops.list.method} ${ops.list.path} (every page)`;
    const rows = await w.members.readList('listing the team members');
    const now = rows.map((r) => String(r[w.members.idField]));
    const added = now.filter((id) => !m.memberIds.includes(id));
    const gone = m.memberIds.filter((id) => !now.includes(id));
    if (added.length || gone.length) throw new Broken('EXPLORE-TEAM-FIXED', `${this.label}: ${[...added.map((id) => `member ${id} was added`), ...gone.map((id) => `member ${id} is gone`)].join('; ')}`);
    for (const row of rows) {
      const at = m.members.findIndex((r) => sameId(r[w.members.idField], row[w.members.idField]));
      if (at >= 0 && !isDeepStrictEqual(m.members[at], row)) m.members[at] = { ...m.members[at], ...row };
    }
  }
}

/**
 * Commands on different resources, sent side by side: one round trip for up to three commands.
 * Each judges only its own resource and its own part of the model, so their order cannot change a
 * verdict on a target that keeps its promises; one that writes another resource (a customer's
 * update that moves the business) shows in the judgement of the command beside it, or of a later one.
 */
export class Together implements fc.AsyncCommand<Model, World> {
  constructor(readonly parts: (fc.AsyncCommand<Model, World> | null)[]) {}
  private runnable(m: Readonly<Model>) {
    return this.parts.filter((p): p is fc.AsyncCommand<Model, World> => p !== null && p.check(m));
  }
  check(m: Readonly<Model>) {
    return this.runnable(m).length > 0;
  }
  /** The commands that run: each counts against the budget. */
  size(m: Readonly<Model>) {
    return this.runnable(m).length;
  }
  async run(m: Model, w: World, limit = Infinity) {
    // Each part pushes its step before its first request: the story keeps the drawn order.
    const settled = await Promise.allSettled(this.runnable(m).slice(0, limit).map((p) => p.run(m, w)));
    const failed = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
    // A broken promise before the suite's own trouble: that is the target's answer.
    if (failed.length) throw failed.find((e) => e instanceof Broken) ?? failed[0];
  }
  toString() {
    return this.parts.filter((p) => p !== null).join(' | ');
  }
}

/** Every refusal of the retrieval at once, one round trip: the walk sends it first, so that every near miss of the key is tried once per walk, not by chance. */
export function everyRefusal(w: Pick<World, 'refusals'>): fc.AsyncCommand<Model, World> | undefined {
  return w.refusals.length ? new RefusedBusiness(false, w.refusals.map((_, i) => i), { picks: [], sources: [], lengths: [] }, null) : undefined;
}

/**
 * The commands exploration draws from, by what the run may do: a --read-only run only reads (and
 * sends no refused update either); refusals only where the business operations are secured.
 * Writing, a command is a round: one on the business, one on the customers, one on the team
 * members, each of them optional, side by side (Together); writes are drawn more often than reads.
 */
export function commandArbitraries(w: Pick<World, 'fields' | 'refusals' | 'target'>): fc.Arbitrary<fc.AsyncCommand<Model, World>>[] {
  const nat = fc.nat(1000);
  const width = Math.max(w.fields.length, 1);
  // The declared headers twice as often as another form; an id itself twice as often as a near miss of it.
  const form = fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: nat });
  const miss = form;
  // Retrievals may be refused for several of the key's near misses at once; an update, for one.
  const keys = fc.array(nat, { minLength: 1, maxLength: Math.max(w.refusals.length, 1) });
  const refusedUpdate = fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
  const refused = w.refusals.length ? [fc.tuple(refusedUpdate, keys, fieldPlan(width), form).map(([update, r, plan, f]) => new RefusedBusiness(update && !w.target.readOnly, r, plan, f))] : [];
  const readBusiness = fc.constant(null).map(() => new ReadBusiness());
  const listMembers = fc.constant(null).map(() => new ListMembers());
  if (w.target.readOnly) return [readBusiness, listMembers, ...refused];
  const record = fieldPlan(8);
  const weighted = (...arbs: [number, fc.Arbitrary<fc.AsyncCommand<Model, World>>][]) => fc.oneof(...arbs.map(([weight, arbitrary]) => ({ weight, arbitrary })));
  // Now and then two updates in a row, read only after both.
  const then = fc.option(fieldPlan(width), { nil: undefined, freq: 2 });
  const business = weighted([4, fc.tuple(fieldPlan(width), form, then).map(([p, f, t]) => new UpdateBusiness(p, f, t))], ...refused.map((r) => [2, r] as [number, typeof r]), [1, readBusiness]);
  const customer = weighted(
    [3, record.map((p) => new CreateCustomer(p))],
    [3, fc.tuple(nat, record).map(([n, p]) => new UpdateCustomer(n, p))],
    [1, fc.tuple(nat, miss).map(([n, x]) => new DeleteCustomer(n, x))],
    [1, fc.tuple(nat, miss).map(([n, x]) => new FindCustomer(n, x))],
    [1, fc.constant(null).map(() => new ListCustomers())],
  );
  const member = weighted([2, fc.tuple(nat, record).map(([n, p]) => new UpdateMember(n, p))], [1, listMembers]);
  // A slot left empty one time in four: shrinking empties slots, down to the command that breaks the promise.
  const slot = (a: fc.Arbitrary<fc.AsyncCommand<Model, World>>) => fc.option(a, { nil: null, freq: 4 });
  return [fc.tuple(slot(business), slot(customer), slot(member)).map((parts) => new Together(parts))];
}
