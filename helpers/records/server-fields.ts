import { sentByRun } from '../http/write-activity.ts';
import { isDeepStrictEqual } from 'node:util';
import type { Row } from '../contract/record.ts';
import { converge } from '../core/converge.ts';
import { perRun } from '../core/run-scope.ts';

/**
 * What the target does by itself: the fields of a resource's records that move with no client
 * asking (a timestamp, a version, an etag, a last-seen stamp). The contract shows no fields, so
 * no name tells them: they are measured on the target, and kept here, once per worker and per
 * resource, for every check, restore and watch to leave alone. A field named like a stamp that
 * does not move is judged like any other.
 */
export class ServerFields {
  private readonly learned = new Map<string, Set<string>>();
  /** Fields the target keeps its own value of whatever a client sends (see keeps). */
  private readonly kept = new Map<string, Set<string>>();

  /**
   * A field the target answered an update of with its own value, not the one sent, and a read
   * shows that value too: the target says it keeps the field itself (a creation time). It is
   * still judged (it must not change by itself), but never written, nor restored.
   */
  keeps(resource: string, field: string): void {
    this.kept.set(resource, new Set([...(this.kept.get(resource) ?? []), field]));
  }

  /** Fields no client writes on `resource`: those that move by themselves and those the target keeps. */
  notWritable(resource: string): ReadonlySet<string> {
    return new Set([...this.of(resource), ...(this.kept.get(resource) ?? [])]);
  }

  /** The fields of `resource` learned to move by themselves. */
  of(resource: string): ReadonlySet<string> {
    return this.learned.get(resource) ?? new Set();
  }

  has(resource: string, field: string): boolean {
    return this.of(resource).has(field);
  }

  /**
   * Readings of one record, in order, with nothing written between them: a field whose value
   * differs between every two in a row moves on every read (another writer would have to write
   * between each pair of reads to look like it).
   */
  fromReads(resource: string, readings: Row[]): string[] {
    return this.fromWrites(resource, movingIn(readings));
  }

  /** Whether any resource's records move this field by themselves (a put-back that knows no resource). */
  movesAnywhere(field: string): boolean {
    return [...this.learned.values()].some((fields) => fields.has(field));
  }

  /** Hears each field learned (the suites' worker journals them for the frame, read in the main process). */
  onLearned?: (resource: string, fields: string[]) => void;

  /** Fields seen to take a new value on every write (measured by movedByWrite). */
  fromWrites(resource: string, fields: string[]): string[] {
    const fresh = fields.filter((f) => !this.has(resource, f));
    if (!fresh.length) return fields;
    this.learned.set(resource, new Set([...this.of(resource), ...fresh]));
    this.onLearned?.(resource, fresh);
    return fields;
  }
}

/** The fields that every reading carries with a value unlike the reading before's. */
function movingIn(readings: Row[]): string[] {
  if (readings.length < 3) return [];
  const [first, ...rest] = readings;
  return Object.keys(first).filter((f) => rest.every((r, i) => f in r && !isDeepStrictEqual(r[f], readings[i][f])));
}

/** What this worker learned in this run of the fields the target moves by itself (see ServerFields). */
export const serverFields: () => ServerFields = perRun(() => new ServerFields());

/** How a record is written again and read (for movedByWrite). */
export interface Rewrite {
  /** Sends the same write once more. */
  write(): Promise<unknown>;
  /** The record as it reads now; undefined when it cannot be read. */
  read(): Promise<Row | undefined>;
  /** How long a read after the write waits for it to show (reads may lag: see converge). */
  windowMs: number;
}

/**
 * The fields not sent that a write moved, less those the target moves by itself. A field it moved
 * that is not known yet is measured here, once: the same write is sent again and the record read
 * until it shows (within the window); a field that moved again moves with every write and is
 * learned; the rest stand as the write's doing.
 */
export async function movedByWrite(resource: string, before: Row, after: Row, sent: Row, again: Rewrite): Promise<string[]> {
  const learned = serverFields();
  const server = learned.of(resource);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const moved = keys.filter((k) => !(k in sent) && !server.has(k) && (k in before !== k in after || !isDeepStrictEqual(before[k], after[k])));
  // Only a field both readings carry can move on every write: one that came or went is the write's.
  if (!moved.some((k) => k in before && k in after)) return moved;
  await again.write();
  // A value neither reading held: an older copy (reads may lag, even go back in time) shows one of theirs.
  // A value the run sent (to any record) is a write of the run leaking, not the target's own (see sentByRun).
  const fresh = (r: Row, k: string) => k in before && k in after && k in r && !isDeepStrictEqual(r[k], before[k]) && !isDeepStrictEqual(r[k], after[k]) && !sentByRun(k, r[k]);
  const third = (await converge(() => again.read(), (r) => r !== undefined && moved.some((k) => fresh(r, k)), again.windowMs)).value;
  if (third) learned.fromWrites(resource, moved.filter((k) => fresh(third, k)));
  return moved.filter((k) => !learned.has(resource, k));
}

