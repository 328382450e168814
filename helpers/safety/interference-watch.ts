import { isDeepStrictEqual } from 'node:util';
import { changedFieldNames } from '../records/compare.ts';
import { carriesRun } from '../records/run-marker.ts';
import { foreignRunId, Interference } from './interference.ts';
import type { Journal } from './journal.ts';
import type { Row } from '../contract/record.ts';

/** One record as a lane read it: where it is (what the journal names on interference), what a message calls it, and what it held. */
export interface Reading {
  path: string;
  what: string;
  row: Row;
}

/**
 * Watches the records a lane reads (the business record, the team members) for another writer:
 * another run's marker in a record, or a record changed between two reads of the same kind (a
 * list and a find may represent it differently) with no update sent between them. Any update may
 * change any record on a broken target (TM-ISOLATION judges that), so only reads with no update
 * at all between them are compared. A field that moves to a value carrying this run's marker,
 * though not one it wrote (its text escaped, cut or rewritten at a read), is the target's doing
 * with the run's write, as the frame takes it (carriesRun): no other writer holds the marker, and
 * the checks judge the value read against the value sent. On interference every record seen is journalled as
 * interfered with, so that the after-run clean-up puts back only the fields holding this run's
 * marker, and the lane stops.
 */
export class InterferenceWatch {
  interference?: Interference;
  private generation = 0;
  private readonly seen = new Map<string, { row: Row; generation: number }>();
  private readonly paths = new Set<string>();
  /**
   * Every value this run wrote, per record and field. A field that moves to one of them is the
   * run's own write showing late, not another writer: any of them, not only the latest, since the
   * contract promises neither read-your-writes nor monotonic reads (a replica further behind may
   * show an earlier write after a later one showed). Another writer that writes a value this run
   * wrote to the same field goes unseen, and changes nothing the clean-up would not put back.
   */
  private readonly written = new Map<string, unknown[]>();

  constructor(
    private readonly runId: string,
    private readonly journal: Journal | undefined,
    /** The resource read: the fields the target moves by itself on it are no other writer's (see ServerFields). */
    private readonly resource?: string,
  ) {}

  /** An update went out (of the record at `path`, with `body`): what is read next may differ because of it. */
  sent(path?: string, body: Row = {}): void {
    this.generation += 1;
    for (const [field, value] of Object.entries(body)) {
      const key = `${path} ${field}`;
      this.written.set(key, [...(this.written.get(key) ?? []), value]);
    }
  }

  /** Records read by one kind of read (`list`, `find`…): throws the Interference one of them shows, the lane stopped. */
  read(kind: string, readings: Reading[]): void {
    let found: Interference | undefined;
    for (const { path, what, row } of readings) {
      const other = foreignRunId(row, this.runId);
      const last = this.seen.get(`${kind} ${path}`);
      const changed = last && last.generation === this.generation ? changedFieldNames(last.row, row, undefined, this.resource).filter((f) => !this.wrote(path, f, row[f]) && !carriesRun(row[f], this.runId)) : [];
      this.seen.set(`${kind} ${path}`, { row, generation: this.generation });
      this.paths.add(path);
      if (found) continue;
      if (other) found = new Interference(other, `${what} holds a value written by run ${other}`);
      else if (changed.length) found = new Interference('another writer', `${changed.join(', ')} of ${what} changed between two reads with no update sent`);
    }
    if (found) this.stop(found);
  }

  interfered(): boolean {
    return this.interference !== undefined;
  }

  /** Throws the Interference met, if any: every step after it stops too. */
  stopIfInterfered(): void {
    if (this.interference) throw this.interference;
  }

  /** Another writer found: the records (by default every one seen) are journalled as interfered with, and the lane stops. */
  stop(found: Interference, paths: Iterable<string> = this.paths): never {
    this.interference = found;
    for (const path of paths) this.journal?.append({ kind: 'interference', path, by: found.by });
    throw found;
  }

  private wrote(path: string, field: string, value: unknown): boolean {
    return (this.written.get(`${path} ${field}`) ?? []).some((v) => isDeepStrictEqual(v, value));
  }
}
