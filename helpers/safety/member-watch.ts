import { isDeepStrictEqual } from 'node:util';
import { changedFieldNames } from '../records/compare.ts';
import { foreignRunId, Interference } from './interference.ts';
import type { Journal } from './journal.ts';
import type { Row } from '../contract/record.ts';

type Seen = Map<string, { row: Row; generation: number }>;

/**
 * Watches the team members the run reads for another writer, as the business lane watches its
 * record: another run's marker in a member, or a member changed between two reads of the same
 * kind (list or find: their representations may differ) with no update sent between them. Any
 * update the lane sends may change any member on a broken target (TM-ISOLATION judges that), so
 * only reads with no update at all between them are compared. On interference every member is
 * journalled as interfered with, so that the after-run clean-up puts back only the fields holding
 * this run's marker, and the lane stops.
 */
export class MemberWatch {
  interference?: Interference;
  private generation = 0;
  private readonly seen: Record<'list' | 'find', Seen> = { list: new Map(), find: new Map() };
  /** Values this run wrote, per member and field: a read moving toward one is the run's own write showing late, not another writer. */
  private readonly written = new Map<string, unknown[]>();

  constructor(
    private readonly runId: string,
    private readonly idField: string,
    private readonly pathOf: (id: string) => string,
    private readonly journal: Journal | undefined,
  ) {}

  /** An update of member `id` went out: what is read next may differ because of it. */
  sent(id?: unknown, body: Row = {}): void {
    this.generation += 1;
    for (const [field, value] of Object.entries(body)) {
      const key = `${String(id)} ${field}`;
      this.written.set(key, [...(this.written.get(key) ?? []), value]);
    }
  }

  private wrote(id: string, field: string, value: unknown): boolean {
    return (this.written.get(`${id} ${field}`) ?? []).some((v) => isDeepStrictEqual(v, value));
  }

  listed(rows: Row[]): void {
    this.check('list', rows);
  }

  found(row: Row): void {
    this.check('find', [row]);
  }

  interfered(): boolean {
    return this.interference !== undefined;
  }

  /** Throws the Interference met, if any: every step after it stops too. */
  stopIfInterfered(): void {
    if (this.interference) throw this.interference;
  }

  private check(kind: 'list' | 'find', rows: Row[]): void {
    let found: Interference | undefined;
    for (const row of rows) {
      const id = String(row[this.idField]);
      const other = foreignRunId(row, this.runId);
      const last = this.seen[kind].get(id);
      const changed = last && last.generation === this.generation ? changedFieldNames(last.row, row).filter((f) => !this.wrote(id, f, row[f])) : [];
      this.seen[kind].set(id, { row, generation: this.generation });
      if (found) continue;
      if (other) found = new Interference(other, `team member ${id} holds a value written by run ${other}`);
      else if (changed.length) found = new Interference('another writer', `${changed.join(', ')} of team member ${id} changed between two reads with no update sent`);
    }
    if (found) this.stop(found);
  }

  /** Another writer found: every member seen is journalled as interfered with, and the lane stops. */
  stop(found: Interference): never {
    this.interference = found;
    for (const id of new Set([...this.seen.list.keys(), ...this.seen.find.keys()])) {
      this.journal?.append({ kind: 'interference', path: this.pathOf(id), by: found.by });
    }
    throw found;
  }
}
