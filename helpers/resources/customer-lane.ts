import { Blocked, check, type CheckDefinition, type CheckRun } from '../checks/check.ts';
import { ensure, foundRecord, listElements, said } from '../checks/assertions.ts';
import { customerFixture, markerBase, markerField } from '../records/fixtures.ts';
import { markedRows, runIdOf } from '../records/run-marker.ts';
import { anotherRunAt } from '../safety/interference.ts';
import { currentJournal } from '../checks/current-journal.ts';
import type { LeasePlace } from '../safety/lease.ts';
import { is2xx, type Answer, type ApiClient } from '../http/client.ts';
import type { CreatedRecords } from '../safety/created-records.ts';
import { rowsOf } from '../records/record-shapes.ts';
import { isRecord, type Row } from '../contract/record.ts';
import type { ResourceOps } from '../contract/resource-ops.ts';
import type { TargetConfig } from '../config/target.ts';

type CustomerOps = Required<ResourceOps>;

/** A customer a check created and may change: what it sent, its id, and what the create answered. */
export interface Made {
  id: unknown;
  sent: Row;
  record: Row;
}

/** The customers one check owns: created by it, cleaned up when it ends. */
export interface Scope {
  create(label: string): Promise<{ answer: Answer; sent: Row; id: unknown }>;
  make(label: string): Promise<Made>;
  cleanUp(): Promise<string[]>;
}

/**
 * Works with customers the way the checks need to: every customer it creates is noted in the
 * createdRecords the moment the target answers, and belongs to one scope (a check, or the suite) that
 * deletes it. Customers this run did not create are only ever read.
 */
export class CustomerLane {
  /** Ids this run created (as text): every other customer is pre-existing and never changed. */
  private readonly ours = new Set<string>();
  readonly idField: string;

  constructor(
    private readonly client: ApiClient,
    readonly ops: CustomerOps,
    private readonly target: TargetConfig,
    private readonly createdRecords: CreatedRecords,
  ) {
    this.idField = target.vendor.idField;
  }

  isOurs(id: unknown): boolean {
    return this.ours.has(String(id));
  }

  scope(): Scope {
    const owned: unknown[] = [];
    return {
      create: (label) => this.create(label, owned),
      make: (label) => this.make(label, owned),
      cleanUp: () => this.createdRecords.cleanUp(this.client, owned),
    };
  }

  /** POSTs the fixture, marked with the run id and `label`; checks with the same label create identical customers. */
  private async create(label: string, owned: unknown[]) {
    const sent = customerFixture(this.target, label);
    const answer = await this.client.call(this.ops.create, { body: sent });
    const id = isRecord(answer.json) ? answer.json[this.idField] : undefined;
    if (is2xx(answer) && id !== undefined && id !== null) this.keep(id, owned);
    else if (is2xx(answer)) await this.recoverByMarker(sent, owned);
    return { answer, sent, id };
  }

  private async make(label: string, owned: unknown[]): Promise<Made> {
    const { answer, sent, id } = await this.create(label, owned);
    // The customer to work on is the check's precondition: CUS-CREATE judges the create itself.
    const doing = `creating a customer to work on: POST ${this.ops.create.path}`;
    if (!is2xx(answer)) throw new Blocked('CUS-CREATE', `${doing} ${said(answer)}`);
    if (!isRecord(answer.json) || id === undefined || id === null) {
      throw new Blocked('CUS-CREATE', `${doing} ${said(answer)}, which carries no "${this.idField}" (set idField in the vendor config if the id has another name)`);
    }
    return { id, sent, record: answer.json };
  }

  /** `journalled`: the client journalled its create (answered with the id); else it is journalled here. */
  private keep(id: unknown, owned: unknown[], journalled = true): void {
    if (journalled) this.createdRecords.record(this.ops.remove, id);
    else this.createdRecords.adopt(this.ops.remove, id);
    this.ours.add(String(id));
    owned.push(id);
  }

  /** A create that answered without an id still created a customer: find it by the run marker, so that it is deleted. */
  private async recoverByMarker(sent: Row, owned: unknown[]): Promise<void> {
    const field = markerField(this.target);
    if (!field) return;
    const answer = await this.client.call(this.ops.list);
    const rows = (is2xx(answer) ? rowsOf(answer.json) : undefined) ?? [];
    for (const { id, value } of markedRows(rows, this.ops.list.path, field, markerBase(this.target), this.idField)) {
      if (value === sent[field] && !this.isOurs(id)) this.keep(id, owned, false);
    }
  }

  find(id: unknown): Promise<Answer> {
    return this.client.call(this.ops.find, { id });
  }

  /** The customer with that id, as a find answers it; anything else fails the check. */
  async read(id: unknown, why: string): Promise<Row> {
    return foundRecord(await this.find(id), `${why}: GET ${this.ops.find.path} with id ${String(id)}`, this.idField, id, 'customer');
  }

  list(): Promise<Answer> {
    return this.client.call(this.ops.list);
  }

  /** Every customer the list shows; anything but a 2xx list (see listElements) fails the check. */
  async readList(why: string): Promise<Row[]> {
    return listElements(await this.list(), `${why}: GET ${this.ops.list.path}`).filter(isRecord);
  }

  /**
   * The customers of a list this run did not create, by id: not those a run of this suite marked
   * (this run's lease, another run's customers), which are the suite's, not the implementation's.
   */
  preExisting(rows: Row[]): Map<string, Row> {
    const field = markerField(this.target);
    const suites = (r: Row) => field !== undefined && runIdOf(r[field], markerBase(this.target)) !== undefined;
    return new Map(rows.filter((r) => !this.isOurs(r[this.idField]) && !suites(r)).map((r) => [String(r[this.idField]), r]));
  }

  /**
   * Before a difference is recorded as the target's failure: another run going on the target (its
   * live lease) stops the check instead, and the run ends with interference. Writes nothing.
   */
  async settle(place: LeasePlace | undefined): Promise<void> {
    const found = await anotherRunAt(this.client, place, this.target.runId, [], 'the customers');
    if (!found) return;
    currentJournal()?.append({ kind: 'interference', path: this.ops.list.path, by: found.by });
    throw found;
  }

  update(id: unknown, body: Row): Promise<Answer> {
    return this.client.call(this.ops.update, { id, body });
  }

  async remove(id: unknown): Promise<Answer> {
    const answer = await this.client.call(this.ops.remove, { id });
    if (is2xx(answer)) this.createdRecords.forget(this.ops.remove, id);
    return answer;
  }

  /** A customer that exists though no create of this run answered with it (revived after its delete, or a twin found by the run marker): clean-up deletes it. */
  adopt(id: unknown): void {
    if (id !== undefined && id !== null) this.keep(id, [], false);
  }

  /** A customer created by a request outside this lane (an observation's create without a key), which the client journalled when the target answered with its id: clean-up deletes it. */
  claim(id: unknown): void {
    if (id !== undefined && id !== null) this.keep(id, []);
  }

  /**
   * Deletes everything the run created and still holds, then verifies with a final list (or, if
   * the list cannot be read, a find of each) that none of it is left. Returns what is left.
   */
  async finish(): Promise<string[]> {
    const failed = await this.createdRecords.cleanUp(this.client);
    const answer = await this.list();
    const listed = is2xx(answer) ? rowsOf(answer.json)?.map((r) => r[this.idField]) : undefined;
    const suspects = listed ? listed.filter((id) => this.isOurs(id)) : [...this.ours];
    const left: string[] = [];
    for (const id of suspects) {
      // A list may show what is gone (that is a failed check, not a leftover): a find settles it.
      if (!is2xx(await this.find(id))) continue;
      const why = failed.find((f) => f.startsWith(`${this.ops.remove.path} ${String(id)}:`))?.replace(/^\S+ \S+: /, '');
      left.push(`customer ${String(id)} (${why ?? 'still found after its delete answered 2xx'})`);
    }
    return left;
  }
}

/**
 * A customer check: changes data (it creates customers), owns a scope, and deletes what it
 * created when it ends, whatever happened; what cannot be deleted is noted and left to the suite's
 * final clean-up.
 */
export function customerCheck(lab: CustomerLane, def: Omit<CheckDefinition, 'changesData'>, body: (scope: Scope, run: CheckRun) => Promise<void>): void {
  check({ ...def, changesData: true }, async (run) => {
    const scope = lab.scope();
    try {
      await body(scope, run);
    } finally {
      const left = await scope.cleanUp();
      if (left.length) run.note(`not deleted yet (the suite retries at its end): ${left.join('; ')}`);
    }
  });
}
