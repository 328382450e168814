// What the business checks share in one run: the record's lane, and what each step did for the
// checks that judge it (a field's update step, the refused requests). Opened in the suite worker only.
import { isDeepStrictEqual } from 'node:util';
import { Blocked, type CheckRun } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { sharedStep } from '../checks/shared-step.ts';
import type { Answer, ApiClient, Auth } from '../http/client.ts';
import type { MustRequirementId } from '../contract/catalog.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { Interference } from '../safety/interference.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import type { Row } from '../contract/record.ts';
import type { BusinessLane } from '../resources/business-lane.ts';
import { showsValue as edgeShows } from '../records/record-history.ts';
import type { LeasePlace } from '../safety/lease.ts';
import { candidateValues, jsonType, type NamedField } from '../resources/business-values.ts';

export const show = (v: unknown) => JSON.stringify(v) ?? 'nothing';
export const patchText = (updateOp: Operation, body: Row) => `${updateOp.method} ${updateOp.path} ${show(body)}`;
export { edgeShows };

/** What the update step of a field did, for the checks that judge it. */
export type DoneStep = { before: Row; value: unknown; after?: Row; wrote?: Exchange[]; read?: Exchange; status?: number; refused?: boolean; nulled?: NullStep };
/** The null a field's step put back after its value, when no field had yet shown null round-tripping (see BusinessRun.nullRoundTrip). */
export type NullStep = { status?: number; read?: Row; failure?: unknown; exchanges: Exchange[] };
type Step = DoneStep | { notApplicable: string } | { blocked: Blocked };

/**
 * What one field's edge showed: null for a nullable field holding a string (BUS-UPDATE-NULLABLE),
 * the empty string or the empty list (BUS-UPDATE-BOUNDARY). The empty ones go out first, in one
 * body, before any field's update step: each step then turns its field from the edge to its new
 * value. A field whose edge that body did not show (refused, or not read back) is sent alone, so
 * that its verdict is its own. A null goes alone, right before its field's step (see nullAlone),
 * with the read before it (`before`): the step is NULLABLE's "then a string".
 */
export interface EdgeStep { value: unknown; status?: number; read?: Row; failure?: unknown; exchanges: Exchange[]; together?: string; before?: Row }

/**
 * What the multi-field update (the restore) found, sent and read: it puts back the fields null
 * before the run, and a boolean's value, which BUS-UPDATE-NULLABLE and BUS-UPDATE-BOOLEAN judge.
 */
export interface MultiStep { before: Row; body: Row; status: number; after?: Row; exchanges: Exchange[] }

/**
 * One way a request of the 401 matrix goes out besides its key: the headers the spec fixes, as
 * declared or not, a query string, and the connection (see business-auth.ts).
 */
export interface Crossing {
  /** Each header the spec fixes, as sent (undefined: left out). */
  headers: Record<string, string | undefined>;
  /** A query string ("?" included), or ''. */
  query: string;
  connection: 'fresh' | 'after-valid-key';
  /** The request as the contract writes it (its declared headers, no query): only then is the answer 401 exactly. */
  contractual: boolean;
  /** How a reason names it: "with Accept: text/html, on a fresh connection". */
  description: string;
}

/** A request of the 401 matrix, as it was sent, and its answer. */
export type Sent = { crossing: Crossing; answer: Answer };

/** A case's answers, one per crossing, and the record as it stood before the refusals (`beforeRead`: the read that showed it). */
export type Refusal = { sent: Sent[]; before?: Row; beforeRead?: Exchange };

/** A request of the 401 matrix: what it lacks or gets wrong of "Bearer <key>". */
export interface AuthCase {
  name: string;
  /** The contract states the 401 (5.2, 7): a MUST, which the type holds to. */
  requirement: MustRequirementId;
  description: string;
  auth?: Auth;
  /** Why the case cannot be tried on this target. */
  unavailable?: string;
  /** Keys the request carries, which a 401 answer must not echo (none for the missing and empty cases). */
  keys: string[];
}

/** The refused requests of one operation's 401 matrix, sent together, and the read after them. */
export interface Matrix<K> {
  refused: ((key: K) => Promise<Refusal>) & { settled(): Promise<unknown> };
  afterRefusals: () => Promise<Row>;
}

export class BusinessRun {
  /** What each field's update step did, by field. */
  readonly steps = new Map<string, Step>();
  readonly edgeSteps = new Map<string, EdgeStep>();
  private edgesSent?: Promise<void>;
  /** The field whose update step went before the edges (see updateStep). */
  firstStep?: string;
  multi?: MultiStep;
  /** The value of each field the target accepted in its update step: known to be valid. */
  readonly accepted = new Map<string, unknown>();
  /** Set when a BUS-UPDATE-NULLABLE check passes. */
  nullShown = false;
  /** The field whose step showed whether null round-trips, when no edge could (see nullRoundTrip), and why not if it did not. */
  private roundTrip?: { name: string; failed?: string };
  /** What each request of the 401 matrix was answered, by operation and case. */
  readonly refusals = new Map<string, Refusal | { notApplicable: string } | { blocked: Blocked }>();
  /** Each secured operation's 401 matrix, made when its first check asks. */
  readonly matrices = new Map<string, Matrix<AuthCase>>();
  /** The one retrieval the retrieval checks judge: each shows its exchanges in its report. */
  private readonly retrieval = sharedStep(() => this.client.call(this.retrieveOp));

  constructor(
    readonly client: ApiClient,
    readonly record: BusinessLane,
    private readonly retrieveOp: Operation,
    private readonly updateOp: Operation,
    private readonly target: TargetConfig,
    /** Where another run's lease would be found (see BusinessLane.settle). */
    private readonly place?: LeasePlace,
  ) {}

  retrieved(): Promise<Answer> {
    return this.retrieval();
  }

  /**
   * The record in the retrieval's answer, and the envelope property it is read from, if any. BUS-GET-200
   * (no run given) fails when there is none; the checks that read it are blocked by BUS-GET-200 instead.
   */
  async retrievedRecord(run?: CheckRun): Promise<{ record: Row; from?: string }> {
    const stop = (reason: string): never => {
      if (run) run.blocked('BUS-GET-200', reason);
      throw new Error(reason);
    };
    const answer = await this.retrieved();
    if (answer.status !== 200) stop(`the retrieval answered ${answer.status}, not 200`);
    if (answer.jsonError) stop(`the retrieval answered 200 with a body that is not JSON (${answer.jsonError})`);
    const read = this.record.unwrap(answer.json);
    if ('problem' in read) return stop(`the retrieval answered 200, but ${read.problem}${answer.json === null || typeof answer.json !== 'object' || Array.isArray(answer.json) ? ` (${jsonType(answer.json)})` : ''}`);
    return read;
  }

  /**
   * Sends one update and confirms it with a read: status 200, and the field reads back as sent.
   * The retrieval's fields are not shown, so a field sent as null may also read back absent.
   */
  async setAndConfirm(name: string, value: unknown): Promise<void> {
    const body = { [name]: value };
    const answer = await this.record.update(body);
    ensure(answer.status === 200, `${patchText(this.updateOp, body)} answered ${answer.status}`);
    const after = await this.record.read();
    ensure(edgeShows(after, name, value), `after ${patchText(this.updateOp, body)}, ${name} reads back ${show(after[name])}`);
  }

  /**
   * Sends the edges `plan` names (field to edge value), once, before any field changes: all in
   * one update and one read, then alone each one that did not show. Whoever asks first plans.
   */
  edges(plan: () => Map<string, unknown>): Promise<void> {
    this.edgesSent ??= this.sendEdges(plan());
    return this.edgesSent;
  }

  private readonly nullsSent = new Map<string, Promise<void>>();

  /**
   * Null for a field holding a string, sent alone (once), between two reads: a body of one field,
   * so that what else changed (BUS-UPDATE-PARTIAL:<name>:null) is the null's own doing. Its step
   * sends it right before its value, when every other field holds a value of this run or of
   * before it, so a null that spills into a field holding a string shows.
   */
  nullAlone(name: string): Promise<void> {
    let sent = this.nullsSent.get(name);
    if (!sent) {
      sent = (async () => {
        const before = await this.record.current();
        this.edgeSteps.set(name, { value: null, before, ...(await this.sendEdge({ [name]: null })) });
      })();
      this.nullsSent.set(name, sent);
    }
    return sent;
  }

  edgesStarted(): boolean {
    return this.edgesSent !== undefined;
  }

  private async sendEdges(plan: Map<string, unknown>): Promise<void> {
    if (!plan.size) return;
    const together = await this.sendEdge(Object.fromEntries(plan));
    // An edge answered 200 and not read back may be another writer's doing: asked once, writing nothing, before it is sent again.
    if (plan.size > 1 && together.read && [...plan].some(([name, value]) => !edgeShows(together.read!, name, value))) {
      await this.record.settle(this.place);
      this.record.stopIfInterfered();
    }
    for (const [name, value] of plan) {
      // Without an answer, none would be had alone either: each check reports the failure.
      if (plan.size === 1 || together.status === undefined || (together.status === 200 && together.read && edgeShows(together.read, name, value))) {
        this.edgeSteps.set(name, { value, ...together });
        continue;
      }
      const why = together.status !== 200 ? `answered ${together.status}` : together.read ? `answered 200, and ${name} read back ${show(together.read[name])}` : 'answered 200, and could not be read back';
      this.edgeSteps.set(name, { value, ...(await this.sendEdge({ [name]: value })), together: `sent first with the other fields' edges (${[...plan.keys()].join(', ')}), which ${why}: sent again alone` });
    }
  }

  private async sendEdge(body: Row): Promise<Omit<EdgeStep, 'value'>> {
    const step: Omit<EdgeStep, 'value'> = { exchanges: [] };
    await withExchangeLog(step.exchanges, async () => {
      try {
        step.status = (await this.record.update(body)).status;
        if (step.status === 200) step.read = await this.record.read();
      } catch (e) {
        if (e instanceof Interference) throw e;
        // The check judging the edge throws it: a refusal to the end (TurnedAway) blocks it, as its own request would.
        step.failure = e;
      }
    });
    return step;
  }

  /**
   * Whether some field has shown that null is accepted and read back, and a string after it: until
   * then, a field that is null on the target is not changed, since putting null back might not work.
   * Known from a field's null edge and its update step's read-back before NULLABLE judges them.
   */
  get nullProven(): boolean {
    if (this.roundTrip && !this.roundTrip.failed) return true;
    return this.nullShown || [...this.edgeSteps].some(([name, edge]) => edge.value === null && edge.status === 200 && edge.read !== undefined && edgeShows(edge.read, name, null) && this.readBack(name));
  }

  /** Whether the field's update step answered 200 and read back the value sent. */
  private readBack(name: string): boolean {
    const step = this.steps.get(name);
    return step !== undefined && 'before' in step && step.status === 200 && step.after !== undefined && edgeShows(step.after, name, step.value);
  }

  /**
   * Why a field null before the run is not changed yet: null has not been shown to round-trip.
   * Null is a documented value of the field (section 2, "string or null"), so a record whose
   * nullable fields are all null is tested too: with `mayLead`, the first such field goes ahead
   * while nothing has shown null failing, and its step shows the round trip (nullRoundTrip).
   */
  nullGate(nf: NamedField, mayLead = false): string | undefined {
    const { field, name } = nf;
    if (!field.nullable || this.record.before()[name] !== null || this.nullProven || this.roundTrip?.name === name) return undefined;
    if (mayLead && this.leadsNull(nf)) return undefined;
    if (this.roundTrip?.failed) return `${name} is null on the target and null did not round-trip on ${this.roundTrip.name} (${this.roundTrip.failed}): changing it might not be undoable`;
    return `${name} is null on the target and no field has yet shown that null is accepted and read back (BUS-UPDATE-NULLABLE): changing it might not be undoable`;
  }

  /** Whether this field's step is the one to show null round-tripping: nothing has shown it yet, nor shown it failing. */
  leadsNull({ field, name }: NamedField): boolean {
    if (!field.nullable || this.record.before()[name] !== null || this.nullProven || this.roundTrip) return false;
    const failed = [...this.edgeSteps].some(([n, edge]) => edge.value === null && edge.status !== undefined && (edge.status !== 200 || (edge.read !== undefined && !edgeShows(edge.read, n, null))));
    return !failed;
  }

  /**
   * The round trip of a field null before the run, right after its step was answered 200: its
   * value read back, then null put back alone and read back (BUS-UPDATE-NULLABLE and
   * BUS-UPDATE-PARTIAL:<name>:null judge it). The first one shows whether null round-trips: once
   * it did, the other fields null before the run can be changed and restored; if null is refused,
   * that one field is left changed, and BUS-UPDATE-NULLABLE of it fails naming the request that frees it.
   */
  async nullRoundTrip(name: string, step: DoneStep): Promise<void> {
    step.after = await this.record.read();
    step.read = this.record.lastReadExchange;
    // Only the first round trip gates the others (see nullGate); each later one is its field's null alone.
    const gates = this.roundTrip === undefined;
    if (!edgeShows(step.after, name, step.value)) {
      if (gates) this.roundTrip = { name, failed: `its value did not read back, BUS-UPDATE-APPLIES:${name}` };
      return;
    }
    const nulled: NullStep = { exchanges: [] };
    step.nulled = nulled;
    await withExchangeLog(nulled.exchanges, async () => {
      try {
        nulled.status = (await this.record.update({ [name]: null })).status;
        if (nulled.status === 200) nulled.read = await this.record.read();
      } catch (e) {
        if (e instanceof Interference) throw e;
        nulled.failure = e;
      }
    });
    const shown = nulled.read !== undefined && edgeShows(nulled.read, name, null);
    if (gates) this.roundTrip = shown ? { name } : { name, failed: `BUS-UPDATE-NULLABLE:${name}` };
  }

  stepOf(name: string, run: CheckRun): DoneStep {
    this.record.stopIfInterfered();
    const step = this.steps.get(name);
    // The step check records what it did, whatever happened; one --only left out is the check's `needs` (helpers/vitest/check.ts).
    if (!step) throw new Blocked(`BUS-UPDATE-200:${name}`, `the update of ${name} recorded nothing`);
    if ('notApplicable' in step) run.notApplicable(step.notApplicable);
    if ('blocked' in step) run.blocked(step.blocked.by, `the update of ${name} could not be sent: ${step.blocked.reason}`);
    // The write is what a read-back judges: its report and cURL reproduction show it first.
    for (const e of step.wrote ?? []) recordExchange(e);
    return step;
  }

  refusalOf(key: string, checkId: string, run: CheckRun): Refusal {
    this.record.stopIfInterfered();
    const refusal = this.refusals.get(key);
    // The request's check records what it did, whatever happened; one --only left out is the check's `needs`.
    if (!refusal) throw new Blocked(checkId, 'the request recorded nothing');
    if ('notApplicable' in refusal) run.notApplicable(refusal.notApplicable);
    if ('blocked' in refusal) run.blocked(refusal.blocked.by, `the request could not be sent: ${refusal.blocked.reason}`);
    return refusal;
  }

  /** A field's current value: from the last read, or the snapshot when the target dropped it. */
  currentValue(row: Row, name: string): unknown {
    return name in row ? row[name] : this.record.before()[name];
  }

  /**
   * An update that would show if applied: for the first field that can be changed and restored, a
   * value the target accepted in its update step (or, if none did, the first value to try).
   */
  probeBody(before: Row): Row {
    const changeable = this.record.exposed().filter((nf) => !this.record.unchangeable(nf) && !this.nullGate(nf));
    for (const nf of changeable) {
      if (this.accepted.has(nf.name) && !isDeepStrictEqual(this.accepted.get(nf.name), this.currentValue(before, nf.name))) return { [nf.name]: this.accepted.get(nf.name) };
    }
    for (const nf of changeable) {
      const candidates = candidateValues(nf, this.target.vendor.businessValues, this.currentValue(before, nf.name), this.record.before()[nf.name], this.target.runId);
      if (!('unavailable' in candidates)) return { [nf.name]: candidates[0].value };
    }
    throw new Blocked('BUS-UPDATE-200', 'no field of the record can be changed and restored (the retrieval exposes none of the documented fields with its documented type)');
  }
}
