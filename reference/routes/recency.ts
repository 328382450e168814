import type { State } from '../state.ts';
import type { Row } from '../../helpers/contract/record.ts';

/**
 * Variation list-recently-updated-first: the order of each record's last write (create or
 * update), per reference and table. Keyed by the State a write and a read both see (this
 * variation is not meant to be combined with the read-replica ones, whose reads see a copy).
 */
const writes = new WeakMap<State, { seq: number; order: Map<string, number> }>();

function of(state: State, table: 'customers' | 'teamMembers') {
  let book = writes.get(state);
  if (!book) writes.set(state, (book = { seq: 0, order: new Map() }));
  return { book, key: (id: unknown) => `${table}:${String(id)}` };
}

/** Records that the record with this id was just written. */
export function wroteRecord(state: State, table: 'customers' | 'teamMembers', id: unknown): void {
  const { book, key } = of(state, table);
  book.order.set(key(id), ++book.seq);
}

/** The rows, the most recently written first; rows never written keep their order, after those. */
export function byRecentWrite(state: State, table: 'customers' | 'teamMembers', rows: readonly Row[]): Row[] {
  const { book, key } = of(state, table);
  const at = (r: Row) => book.order.get(key(r.id)) ?? 0;
  return rows.toSorted((a, b) => at(b) - at(a));
}
