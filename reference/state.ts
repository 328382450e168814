import { randomUUID } from 'node:crypto';
import { seedBusiness, seedCustomers, seedTeamMembers } from './seed.ts';

export type IdStyle = 'uuid' | 'integer' | 'prefixed';

type Row = Record<string, unknown>;

/** The reference implementation's data, in memory. Collections keep insertion order. */
export class State {
  business: Row;
  readonly customers = new Map<string, Row>();
  readonly teamMembers = new Map<string, Row>();
  private counter = 0;

  constructor(
    readonly idStyle: IdStyle,
    readonly emailField: string,
    seedCustomerCount: number,
  ) {
    this.business = seedBusiness(emailField);
    for (const c of seedCustomers(seedCustomerCount)) this.insert(this.customers, c, 'cus');
    for (const m of seedTeamMembers()) this.insert(this.teamMembers, m, 'tm');
  }

  insert(table: Map<string, Row>, fields: Row, prefix: string): Row {
    const id = this.newId(prefix);
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

  /** A deep copy of everything, for tests that compare before and after. */
  snapshot(): { business: Row; customers: Row[]; teamMembers: Row[] } {
    return structuredClone({
      business: this.business,
      customers: [...this.customers.values()],
      teamMembers: [...this.teamMembers.values()],
    });
  }
}
