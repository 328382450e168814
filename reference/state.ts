import { randomUUID } from 'node:crypto';
import { seedBusiness, seedCustomers, seedTeamMembers } from './seed.ts';
import type { Row } from '../helpers/contract/record.ts';

export type IdStyle = 'uuid' | 'integer' | 'prefixed' | 'reused';

/** Server-managed fields the records carry (variations timestamps, business-version, lock-version-etag). */
export interface Stamps {
  /** createdAt, and updatedAt changed on every write of any record. */
  timestamps?: boolean;
  /** The business record's `version`, one more on every update. */
  businessVersion?: boolean;
  /** Customers' and team members' `lock_version`, one more on every write, and an `etag` with it. */
  lockVersion?: boolean;
}

/**
 * A table of records. Every write goes through `stamp`: the server-managed fields the contract
 * does not show (timestamps, versions), added the way many real implementations add them.
 */
class Table extends Map<string, Row> {
  /** The rows in order, kept until the next write: a list of a million answers page after page without copying them each time. */
  private listed?: readonly Row[];
  constructor(private readonly stamp: (row: Row, previous?: Row) => Row) {
    super();
  }
  override set(id: string, row: Row): this {
    this.listed = undefined;
    return super.set(id, this.stamp(row, this.get(id)));
  }
  override delete(id: string): boolean {
    this.listed = undefined;
    return super.delete(id);
  }
  rows(): readonly Row[] {
    return (this.listed ??= [...this.values()]);
  }
}

/** A table's rows in order, not to be changed (a copy where the table is a replica's plain copy). */
export const rowsOf = (table: Map<string, Row>): readonly Row[] => (table instanceof Table ? table.rows() : [...table.values()]);

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
    private readonly stamps: Stamps = {},
  ) {
    const stamp = (row: Row, previous?: Row) => this.stamp(row, previous, 'record');
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
    this.record = this.stamp(row, this.record, 'business');
  }

  private stamp(row: Row, previous: Row | undefined, kind: 'business' | 'record'): Row {
    let stamped = row;
    if (this.stamps.timestamps) {
      // A monotonic fake clock: each write is a distinct, later instant.
      this.clock += 1000;
      const now = new Date(this.clock).toISOString();
      stamped = { ...stamped, createdAt: previous?.createdAt ?? now, updatedAt: now };
    }
    // Whatever a client sent for them, the server's own count stands.
    if (kind === 'business' && this.stamps.businessVersion) stamped = { ...stamped, version: Number(previous?.version ?? 0) + 1 };
    if (kind === 'record' && this.stamps.lockVersion) {
      const version = Number(previous?.lock_version ?? 0) + 1;
      stamped = { ...stamped, lock_version: version, etag: `W/"${String(row.id)}-${version}"` };
    }
    return stamped;
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
