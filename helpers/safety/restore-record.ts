import { sentByRun } from '../http/write-activity.ts';
import { isDeepStrictEqual } from 'node:util';
import { is2xx, NoAnswerError, type ApiClient } from '../http/client.ts';
import { businessRecordIn, pick, type RecordReader } from '../records/record-shapes.ts';
import { type Row } from '../contract/record.ts';
import { converge } from '../core/converge.ts';
import { serverFields } from '../records/server-fields.ts';

/** A record the run could not leave as it found it, and why: the report's last section. */
export interface LeftOnTarget {
  record: string;
  problem: string;
}

/** How one record is read and written: by its path, or through a resource lane's operations. */
export interface RecordAccess {
  /** The record as it stands; throws, saying why, when it cannot be read. */
  read(): Promise<Row>;
  write(body: Row): Promise<{ status: number }>;
  /** How long a read after a write waits for it to show (--converge-window; see converge). */
  windowMs?: number;
}

export interface RestoreOptions {
  /** The update that writes back the named fields (default: their values in `before`). */
  body?: (names: string[]) => Row;
  /** Which fields differ from `before` (default: those of `fields` whose values differ). */
  differing?: (now: Row) => string[];
  /**
   * Waits, before the first read and before each read that verifies, until reads no longer lag the
   * last write (see quiesce): a copy older than the damage holds the values put back as well, and
   * reads may go back in time, so the content of a read alone cannot prove a record put back.
   */
  quiesce?: () => Promise<void>;
  /** The record's resource: a field found to move on every write is learned for it (see ServerFields). */
  resource?: string;
}

export interface Restoration {
  /** Fields written back (empty when the record already held its earlier values). */
  restored: string[];
  /** Fields that still differ after writing back. */
  still: string[];
  /** The last read. */
  now: Row;
}

/**
 * The one way the run puts a record back. Reads it, writes back only the fields that differ
 * (one request; one per field if the target refuses them together), and verifies by reading it
 * back. If that was not enough, all of `fields` are written at once (a target that replaces the
 * record keeps only what it is sent) and verified again; then, if still not, one field per
 * request (a target that applies only part of a body). Throws when the record cannot be read.
 */
export async function restoreFields(access: RecordAccess, before: Row, fields: Iterable<string>, options: RestoreOptions = {}): Promise<Restoration> {
  // A field the target moves by itself is never put back: no write could make it hold its old value.
  let known = [...fields].filter((f) => f in before && !serverFields().movesAnywhere(f));
  const body = options.body ?? ((names: string[]) => pick(before, names));
  const differs = options.differing ?? ((now: Row) => known.filter((f) => !(f in now) || !isDeepStrictEqual(now[f], before[f])));
  /** Fields found below to move on every write. */
  const moves = new Set<string>();
  const differing = (now: Row) => differs(now).filter((f) => !moves.has(f));
  const quiet = options.quiesce ?? (async () => {});
  await quiet();
  let now = await access.read();
  // After a write, read until it shows (a lagging read replica), within the window.
  const settled = async () => {
    await quiet();
    return (await converge(() => access.read(), (r) => differing(r).length === 0, access.windowMs)).value;
  };
  const changed = differing(now);
  let still = changed;
  if (changed.length) {
    const writable = changed.filter((f) => known.includes(f));
    if (writable.length) {
      const damaged = now;
      const all = await access.write(body(writable));
      if (!is2xx(all) && writable.length > 1) for (const f of writable) await access.write(body([f]));
      now = await settled();
      // Written back, a field took a value neither before nor after the damage: it moves on every
      // write (a version, a stamp: the rule of movedByWrite), the target's own, never put back.
      // A value the run sent (to any record) is no such field's: a write of the run leaking into this record.
      const moving = differing(now).filter((f) => f in damaged && f in now && !isDeepStrictEqual(now[f], damaged[f]) && !sentByRun(f, now[f]));
      if (moving.length) {
        if (options.resource) serverFields().fromWrites(options.resource, moving);
        for (const f of moving) moves.add(f);
        known = known.filter((f) => !moves.has(f));
      }
      still = differing(now);
    }
    if (still.length) {
      await access.write(body(known));
      now = await settled();
      still = differing(now);
    }
    if (still.length) {
      for (const f of still.filter((g) => known.includes(g))) await access.write(body([f]));
      now = await settled();
      still = differing(now);
    }
  }
  return { restored: changed.filter((f) => !still.includes(f) && !moves.has(f)), still, now };
}

/**
 * The record in a GET's answer: the object itself, or the one property of it holding `names`
 * (an envelope, see businessRecordIn): for a restore that knows the fields but not the vendor config.
 */
export function holding(names: string[]): RecordReader {
  return (_path, json) => {
    const read = businessRecordIn(json, names);
    return 'record' in read ? read.record : undefined;
  };
}

/** A record addressed by its path: read with GET through `recordOf`, written with PATCH. */
export function byPath(client: ApiClient, path: string, recordOf: RecordReader): RecordAccess {
  return {
    read: async () => {
      const now = await client.send({ method: 'GET', path });
      const record = is2xx(now) ? recordOf(path, now.json) : undefined;
      if (!record) throw new Error(`reading it back answered ${now.status}`);
      return record;
    },
    write: (body) => client.send({ method: 'PATCH', path, body }),
  };
}

/**
 * Puts `fields` of the record at `path` back to their values in `before` (see restoreFields) and
 * says what could not be: for the after-run clean-up and the snapshots of a suite.
 */
export async function restoreRecord(client: ApiClient, path: string, before: Row, fields: Iterable<string>, recordOf: RecordReader = holding([...fields]), options: Pick<RestoreOptions, 'quiesce' | 'resource'> = {}): Promise<{ restored: string[]; still: string[]; problem?: string }> {
  const unknown = [...fields].filter((f) => !(f in before));
  try {
    const { restored, still } = await restoreFields(byPath(client, path, recordOf), before, fields, options);
    const problems = [
      ...(still.length ? [`${still.join(', ')} still differ${still.length === 1 ? 's' : ''} from before the run after writing ${still.length === 1 ? 'it' : 'them'} back`] : []),
      ...(unknown.length ? [`${unknown.join(', ')} written by the run, value before the run unknown`] : []),
    ];
    return { restored, still, problem: problems.join('; ') || undefined };
  } catch (e) {
    return { restored: [], still: [], problem: e instanceof NoAnswerError || e instanceof Error ? e.message : String(e) };
  }
}
