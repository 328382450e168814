import { randomUUID } from 'node:crypto';
import { seedBusiness, seedCustomers, seedTeamMembers } from './seed.ts';
import type { Row } from '../helpers/contract/record.ts';

export type IdStyle = 'uuid' | 'integer' | 'prefixed' | 'reused';

/**
 * A table of records. With timestamps on, every write stamps createdAt / updatedAt, the way
 * many real implementations add server-managed fields the contract does not show.
 */
class Table extends Map<string, Row> {
  constructor(private readonly stamp: (row: Row, previous?: Row) => Row) {
    super();
  }
  override set(id: string, row: Row): this {
    return super.set(id, this.stamp(row, this.get(id)));
  }
}

/** The reference implementation's data, in memory. Collections keep insertion order. */
export class State {
  private record: Row = {};
  readonly customers: Map<string, Row>;
  readonly teamMembers: Map<string, Row>;
  private counter = 0;
  private clock = Date.parse('2026-01-01T00:00:00Z');

  constructor(
    readonly idStyle: IdStyle,
    readonly emailField: string,
    seedCustomerCount: number,
    private readonly timestamps = false,
  ) {
    const stamp = (row: Row, previous?: Row) => this.stamp(row, previous);
    this.customers = new Table(stamp);
    this.teamMembers = new Table(stamp);
    this.business = seedBusiness(emailField);
    for (const c of seedCustomers(seedCustomerCount)) this.insert(this.customers, c, 'cus');
    for (const m of seedTeamMembers()) this.insert(this.teamMembers, m, 'tm');
  }

  get business(): Row {
    return this.record;
  }

  set business(row: Row) {
    this.record = this.stamp(row, this.record);
  }

  private stamp(row: Row, previous?: Row): Row {
    if (!this.timestamps) return row;
    // A monotonic fake clock: each write is a distinct, later instant.
    this.clock += 1000;
    const now = new Date(this.clock).toISOString();
    return { ...row, createdAt: previous?.createdAt ?? now, updatedAt: now };
  }

  insert(table: Map<string, Row>, fields: Row, prefix: string): Row {
    const id = this.idStyle === 'reused' ? Math.max(0, ...[...table.values()].map((r) => Number(r.id))) + 1 : this.newId(prefix);
    const row = { id, ...fields };
    table.set(String(id), row);
    return row;
  }

  private newId(prefix: string): string | number {
    this.counter += 1;
    if (this.idStyle === 'integer') return this.counter;
    if (this.idStyle === 'prefixed') return `${prefix}_${String(this.counter).padStart(6, '0')}`;
    return randomUUID();
  }

  /**
   * A copy of the records as they stand now, for a read replica that lags the writes (variation
   * read-replica-lag): the rows are shared, as every write replaces a row rather than changing it.
   */
  copy(): State {
    const copy = Object.create(State.prototype) as State;
    return Object.assign(copy, this, { customers: new Map(this.customers), teamMembers: new Map(this.teamMembers) });
  }

  /** A deep copy of everything, for tests that compare before and after. */
  snapshot(): { business: Row; customers: Row[]; teamMembers: Row[] } {
    return structuredClone({
      business: this.business,
      customers: [...this.customers.values()],
      teamMembers: [...this.teamMembers.values()],
    });
  }
}
