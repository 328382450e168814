import { existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ApiClient, is2xx } from '../http/client.ts';
import { readSharedRecords, type EachRecord } from './shared-records.ts';
import { Journal, outstanding, type FrameDifference, type JournalEntry } from './journal.ts';
import { changedFieldNames, fingerprint, samePrint } from '../records/compare.ts';
import { PrintFile } from '../records/print-buckets.ts';
import { serverFields } from '../records/server-fields.ts';
import { resourceAt } from '../contract/resource-ops.ts';
import { perRun } from '../core/run-scope.ts';
import { carriesRun, runIdsIn } from '../records/run-marker.ts';
import { recordReader } from '../records/record-shapes.ts';
import { foreignRunId } from './interference.ts';
import { converge, Lag, learnedLag, quiesce, windowOf } from '../core/converge.ts';
import { selects } from '../core/selection.ts';
import type { Row } from '../contract/record.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

/**
 * Frame: a write changes only what it addresses (contract section 4: a delete deletes "that
 * customer", an update answers "the updated customer", "business updated"). The run reads the
 * whole target before its first write (the baseline: the business record, every customer, every
 * team member, as one fingerprint each), again at each lane's end and at the run's end, and
 * compares what it reads with what the journal says the run wrote: a record no write of the run
 * addressed that vanished, appeared or changed is a difference, named with the writes the journal
 * holds since the reading before (those that may have made it); with none, another writer made it.
 */
export const FRAME_CHECK = { id: 'WRITE-FRAME', title: 'every write changes only the record it addresses: no record the run did not address vanished, appeared or changed' } as const;

/** Where the baseline's fingerprints are kept, beside the journal: a line per record, for lists too long to hold (see PrintFile); the last line names the roots read. */
const FRAME_FILE = 'frame-baseline.jsonl';
const baselineFile = (journalFile: string) => join(dirname(journalFile), FRAME_FILE);

/** What a reading of the whole target keeps: a fingerprint per record (in a file), the rows of records the run may put back. */
interface Reading {
  /** The lists (and the singleton) read whole: only records under these are compared. */
  roots: string[];
  prints: PrintFile;
  rows: Map<string, Row>;
  /** Records carrying this run's marker: its own when they were not there before (a create whose answer was lost). */
  ours: Set<string>;
  /** Records carrying another run's marker, and which. */
  foreign: Map<string, string>;
  problems: string[];
}

async function readWhole(client: ApiClient, spec: Spec, target: TargetConfig, also?: EachRecord): Promise<Reading> {
  const prints = new PrintFile(target);
  const ours = new Set<string>();
  const foreign = new Map<string, string>();
  try {
    const { records, problems, roots } = await readSharedRecords(client, spec, target, (root, path, row) => {
      if (Object.values(row).some((v) => runIdsIn(v).includes(target.runId))) ours.add(path);
      const other = foreignRunId(row, target.runId);
      if (other) foreign.set(path, other);
      prints.add(path, fingerprint(row), root);
      also?.(root, path, row);
    });
    return { roots, prints: prints.close(), rows: new Map(records.map((r) => [r.path, r.record])), ours, foreign, problems };
  } catch (e) {
    prints.remove();
    throw e;
  }
}

/**
 * The baseline, in the reads the run takes anyway before its first write (readSharedRecords):
 * the shared records go to the journal as snapshots (by the caller), every record's fingerprint
 * to the frame's file, and every record to `also` (what else reads the target whole at that
 * moment: one read of a long list, not two). Returns the shared records, the lists read whole,
 * and what could not be read.
 */
export async function readBaseline(client: ApiClient, spec: Spec, target: TargetConfig, journalFile: string, also?: EachRecord): Promise<Awaited<ReturnType<typeof readSharedRecords>>> {
  // Written as it is read, and named only once whole: a baseline file is a whole reading.
  const file = baselineFile(journalFile);
  const prints = new PrintFile(`${file}.part`);
  try {
    const read = await readSharedRecords(client, spec, target, (root, path, row) => {
      prints.add(path, fingerprint(row), root);
      also?.(root, path, row);
    });
    prints.line(JSON.stringify({ roots: read.roots }));
    prints.close();
    renameSync(prints.file, file);
    return read;
  } catch (e) {
    prints.remove();
    throw e;
  }
}

interface Baseline {
  roots: string[];
  prints: PrintFile;
}

function loadBaseline(journalFile: string): Baseline | undefined {
  const file = baselineFile(journalFile);
  if (!existsSync(file)) return undefined;
  let roots: string[] = [];
  const prints = PrintFile.load(file, (other) => void (roots = (other as { roots: string[] }).roots));
  return { roots, prints };
}

/** The run's writes as the journal names them, the record or list each addressed. */
const writeOf = (e: JournalEntry): string | undefined =>
  e.kind === 'wrote' ? `PATCH ${e.path}` : e.kind === 'creating' ? `POST ${e.listPath}` : e.kind === 'deleting' ? `DELETE ${e.path}` : undefined;

/** Records the run addressed: open while a write of it may still show, restored once a lane put it back (then its written fields are compared); `ways`, how the writes addressed it. */
function addressed(entries: JournalEntry[]): Map<string, { restored: boolean; fields: Set<string>; values: Map<string, unknown[]>; ways: Set<Way> }> {
  const of = new Map<string, { restored: boolean; fields: Set<string>; values: Map<string, unknown[]>; ways: Set<Way> }>();
  const touch = (path: string, way: Way, fields: string[] = [], values: Row = {}) => {
    const a = of.get(path) ?? { restored: false, fields: new Set<string>(), values: new Map<string, unknown[]>(), ways: new Set<Way>() };
    a.restored = false;
    a.ways.add(way);
    for (const f of fields) a.fields.add(f);
    for (const [f, v] of Object.entries(values)) a.values.set(f, [...(a.values.get(f) ?? []), v]);
    of.set(path, a);
  };
  for (const e of entries) {
    if (e.kind === 'wrote') touch(e.path, 'update', e.fields, e.values);
    else if (e.kind === 'deleting' || e.kind === 'deleted') touch(e.path, 'delete');
    else if (e.kind === 'created' || e.kind === 'kept') touch(e.path, 'create');
    else if (e.kind === 'lost') touch(e.path, 'any');
    else if (e.kind === 'restored' && of.has(e.path)) of.get(e.path)!.restored = true;
  }
  return of;
}

/** How a write addressed a record; `any`: a record the run could not put back, by whatever write. */
type Way = 'update' | 'delete' | 'create' | 'any';

/**
 * Whether a write that addressed a record the way it did can be what made it so: only a delete
 * takes a record away, only a create makes one appear; any write may change one. An update that
 * addressed a member does not explain the member gone (another write's doing: a delete elsewhere).
 */
const explains = (ways: Set<Way>, how: 'appeared' | 'vanished' | 'changed') =>
  ways.has('any') || (how === 'vanished' ? ways.has('delete') : how === 'appeared' ? ways.has('create') : ways.size > 0);

/** Every difference the journal holds from the readings so far, the latest per record. */
export function frameFindings(entries: JournalEntry[]): { differences: FrameDifference[]; known: Map<string, string | null>; problems: string[]; compared: string[] } {
  const latest = new Map<string, FrameDifference>();
  const known = new Map<string, string | null>();
  let last: { problems: string[]; compared: string[] } = { problems: [], compared: [] };
  for (const e of entries) {
    if (e.kind !== 'frame') continue;
    last = e;
    for (const d of e.differences) {
      latest.set(d.path, d);
      known.set(d.path, d.now);
    }
    for (const [path, print] of e.accepted) known.set(path, print);
  }
  return { differences: [...latest.values()], known, problems: last.problems, compared: last.compared };
}

/** A difference as a person reads it, with the writes that may have made it. */
export function describeDifference(d: FrameDifference, where?: string): string {
  const what = `${d.path} ${d.how}${d.fields?.length ? ` (${d.fields.join(', ')})` : ''}${where ? ` (read at ${where})` : ''}`;
  if (d.by) return `${what}: ${d.by === 'another writer' ? 'no write of the run since it was last read' : `it holds a value written by run ${d.by}`}`;
  const last = d.writes.at(-1);
  return d.writes.length === 1 ? `${what}, by ${last}` : `${what}, by one of the ${d.writes.length} writes since it was last read as the run left it (the last: ${last}): ${d.writes.join(', ')}`;
}

/** Where the frame reads at a lane's end (helpers/vitest/check.ts), and the lane's closing verification with it. */
export const laneEnd = (resource: string) => `the end of the ${resource} lane`;

/** The suite worker's frame: one per run (its journal), read at each lane's end and by the WRITE-FRAME check at the run's end. */
export class Frame {
  /** The run's frame, by journal: a worker kept for the next run (run-suites.ts) lets go of the run before's (its client, its baseline). */
  private static readonly byJournal = perRun(() => new Map<string, Frame>());
  private readonly journal: Journal;
  readonly client: ApiClient;
  private readonly baseline: Baseline;
  /** What the reading after the clean-up found listed of the records the run deleted, though a find answers them gone (see listedAfterDelete). */
  listedGone: string[] = [];

  private constructor(private readonly spec: Spec, private readonly target: TargetConfig, journalFile: string, baseline: Baseline) {
    this.journal = new Journal(journalFile);
    // Only reads: nothing it sends goes to the journal.
    this.client = new ApiClient(target);
    this.baseline = baseline;
  }

  /** The records under `root` (a list's path) the baseline holds: those there before the run's first write. */
  under(root: string): Set<string> {
    const found = new Set<string>();
    this.baseline.prints.each((key) => void (key.startsWith(`${root}/`) && !key.slice(root.length + 1).includes('/') && found.add(key)));
    return found;
  }

  /** The suite worker's frame of the run, when the run took a baseline (not --read-only) and selected the WRITE-FRAME check. */
  static of(spec: Spec, target: TargetConfig): Frame | undefined {
    const key = `${target.journalFile} ${target.runId}`;
    const frames = Frame.byJournal();
    if (!frames.has(key)) {
      const frame = Frame.open(spec, target);
      if (!frame) return undefined;
      frames.set(key, frame);
    }
    return frames.get(key);
  }

  /** A frame of its own (the main process reads once more after the clean-up): close it after. */
  static open(spec: Spec, target: TargetConfig, phase?: string): Frame | undefined {
    if (!target.journalFile || target.readOnly || !selects(target.only, FRAME_CHECK)) return undefined;
    const baseline = loadBaseline(target.journalFile);
    const frame = baseline && new Frame(spec, target, target.journalFile, baseline);
    if (frame && phase) frame.client.phase = phase;
    return frame;
  }

  /**
   * Reads the whole target and journals what differs from what the run knows it wrote (see
   * FRAME_CHECK); `final`, after the clean-up: from the baseline. Nothing is read again when no write of the run went out since the last reading.
   */
  async read(where: string, final = false): Promise<FrameDifference[]> {
    return (await this.reading(where, final))?.differences ?? [];
  }

  /**
   * Like read, handing every record listed under `root` to `visit` as the reading goes: a lane's
   * closing verification of its list, taken in the frame's reading at the lane's end (one read of
   * a long list, not two). Whether that list was read whole; undefined when no reading went
   * (nothing written since the last one): the caller reads the list itself then.
   */
  async readAlso(where: string, root: string, visit: (row: Row) => void): Promise<boolean | undefined> {
    const read = await this.reading(where, false, (r, _path, row) => void (r === root && visit(row)));
    return read && read.roots.includes(root);
  }

  private async reading(where: string, final: boolean, also?: EachRecord): Promise<{ differences: FrameDifference[]; roots: string[] } | undefined> {
    const before = this.journal.read();
    const lastStart = before.findLastIndex((e) => e.kind === 'frame-start');
    const lastRead = before.findLastIndex((e) => e.kind === 'frame');
    if (lastRead > lastStart && lastStart >= 0 && !before.slice(lastStart).some(writeOf)) return undefined;
    // The writes a difference may be due to: since the start of the last reading that ended (one in flight then may show only now).
    const since = before.slice(0, lastRead + 1).findLastIndex((e) => e.kind === 'frame-start');
    this.journal.append({ kind: 'frame-start' });
    // A record the run put back may still read as the run's write on a target whose reads lag.
    await quiesce(Date.now(), this.lag(), windowOf(this.target));
    const now = await readWhole(this.client, this.spec, this.target, also);
    try {
      return { differences: await this.compare(where, now, since, final), roots: now.roots };
    } finally {
      now.prints.remove();
    }
  }

  /** The reading compared with what the run knows (see read): only the records where it and the baseline differ, or a reading before found a difference, are looked at one by one. */
  private async compare(where: string, now: Reading, since: number, final: boolean): Promise<FrameDifference[]> {
    const entries = this.journal.read();
    const state = outstanding(entries);
    // The lease's beats go every LEASE_BEAT_MS whatever the checks do: a window holding nothing but
    // beats does not make a change the run's (another writer's would be blamed on the target). Its
    // create and delete are writes like any other.
    const sent = [...new Set(entries.slice(since + 1).map(writeOf).filter((w): w is string => w !== undefined))];
    const writes = sent.filter((w) => w !== `PATCH ${state.lease}`);
    // What each record was last known as: the baseline, else as a reading found it changed or took it after a write of the run addressed it.
    const known = new Map(frameFindings(entries).known);
    const written = addressed(entries);
    const inWindow = addressed(entries.slice(since + 1));
    const roots = this.baseline.roots.filter((r) => now.roots.includes(r));
    const under = (path: string) => roots.some((r) => path === r || path.startsWith(`${r}/`));
    const differences: FrameDifference[] = [];
    const accepted: [string, string | null][] = [];
    const recheck: { difference: FrameDifference; was: string }[] = [];
    // Elsewhere every record reads as in the baseline, and no reading since found it otherwise: nothing to look at.
    const [before, after] = PrintFile.differing(this.baseline.prints, now.prints, roots, known.keys());
    /** After the clean-up, records the run created that are listed still (see listedGone). */
    const created: string[] = [];
    for (const path of new Set([...before.keys(), ...after.keys(), ...known.keys()])) {
      if (final && under(path) && state.everCreated.has(path) && after.has(path) && !before.has(path)) created.push(path);
      if (!under(path) || state.everCreated.has(path) || (now.ours.has(path) && !before.has(path))) continue;
      const is = after.get(path) ?? null;
      // After the clean-up (final), every record is held to the baseline: what the clean-up's writes
      // put back, a later write of it may have changed again, and no check judges those writes.
      const was = !final && known.has(path) ? known.get(path)! : (before.get(path) ?? null);
      // A record a write of the window addressed is as the run left it, whatever it holds, if that
      // write can have made it so: that write's checks judge it.
      const way = final ? undefined : inWindow.get(path);
      if (way && (is === was || explains(way.ways, was === null ? 'appeared' : is === null ? 'vanished' : 'changed'))) {
        if (is !== was) accepted.push([path, is]);
        continue;
      }
      if (samePrint(was, is, this.moving(path, entries))) continue;
      // A list may leave out what is there (absence is proof only of a list proven whole): what is missing is looked up by its path.
      if (is === null && was !== null && (await this.found(path, was, this.moving(path, entries)))) continue;
      const mark = written.get(path);
      const snapshot = state.snapshots.get(path);
      const row = now.rows.get(path);
      // A field holding a value the run sent to this record is its own write showing late (or not
      // undone: the clean-up's to put back); after the clean-up (final), nothing is left to put it back.
      const own = (f: string) => !final && Boolean(mark?.values.get(f)?.some((v) => isDeepStrictEqual(v, row?.[f])));
      const fields = snapshot && row ? changedFieldNames(snapshot, row).filter((f) => !own(f) && !this.moving(path, entries).has(f)) : undefined;
      const how = was === null ? 'appeared' : is === null ? 'vanished' : 'changed';
      // A field changed to a value carrying this run's marker, with no write of the run to that
      // record, took it from a write of the run, the beats too (a target copying the lease's name
      // elsewhere): no other writer has the marker.
      const marked = !writes.length && Boolean(fields?.some((f) => carriesRun(row?.[f], this.target.runId)));
      const by = now.foreign.get(path) ?? (writes.length || marked ? undefined : 'another writer');
      const difference: FrameDifference = { path, how, ...(fields?.length && how === 'changed' ? { fields } : {}), now: is, writes: marked ? sent : writes, ...(by ? { by } : {}) };
      if (mark && is !== null && was !== null && (fields?.length === 0 || (await this.shows(path, was, this.moving(path, entries))))) {
        // After the clean-up, a find showing the record as before does not outweigh a list that does
        // not: the list is read again, once reads no longer lag (a find may be the stale one).
        if (final) recheck.push({ difference, was });
        continue;
      }
      differences.push(difference);
    }
    if (recheck.length) {
      await quiesce(Date.now(), this.lag(), windowOf(this.target));
      const again = await readWhole(this.client, this.spec, this.target);
      const paths = new Set(recheck.map((r) => r.difference.path));
      const prints = new Map<string, string>();
      try {
        again.prints.each((key, print) => void (paths.has(key) && prints.set(key, print)));
      } finally {
        again.prints.remove();
      }
      for (const { difference, was } of recheck) if (!samePrint(was, prints.get(difference.path) ?? null, this.moving(difference.path, entries))) differences.push(difference);
    }
    if (created.length) this.listedGone = await this.listedAfterDelete(created);
    this.journal.append({ kind: 'frame', where, differences, accepted, problems: now.problems, compared: roots });
    for (const d of differences) if (d.by) this.journal.append({ kind: 'interference', path: d.path, by: d.by });
    return differences;
  }

  /**
   * Of the records the run created that a reading after the clean-up lists, those a find answers
   * gone and a list still names a window later: the run's last write (the clean-up's, the lease's
   * delete among them) went before, so no lag allowed explains them (see CUS-DELETE). Those a find
   * answers are the clean-up's to name as left.
   */
  private async listedAfterDelete(named: string[]): Promise<string[]> {
    const { listed } = await listedThoughGone(this.client, this.target, named, async (gone) => {
      const again = await readWhole(this.client, this.spec, this.target);
      const still = new Set<string>();
      try {
        again.prints.each((key) => void (gone.includes(key) && still.add(key)));
      } finally {
        again.prints.remove();
      }
      return [...still];
    });
    return listed;
  }


  /** The fields of the record at `path` the target moves by itself: as this process and the suites' workers (journalled) learned them. */
  private moving(path: string, entries: JournalEntry[]): ReadonlySet<string> {
    const resource = resourceAt(this.spec, path);
    if (resource === undefined) return new Set();
    return new Set([...serverFields().of(resource), ...entries.flatMap((e) => (e.kind === 'moving' && e.resource === resource ? e.fields : []))]);
  }

  /** Whether the record at `path` is found as `print` says, though the list did not name it. */
  private async found(path: string, print: string, moving: ReadonlySet<string>): Promise<boolean> {
    const answer = await this.client.send({ method: 'GET', path });
    const row = is2xx(answer) ? recordReader(this.spec, this.target)(path, answer.json) : undefined;
    return row !== undefined && samePrint(fingerprint(row), print, moving);
  }

  /** Whether a record the run wrote reads as last known once read again within the window: a reading that lagged the run's own write is not a difference. */
  private async shows(path: string, print: string, moving: ReadonlySet<string>): Promise<boolean> {
    const recordOf = recordReader(this.spec, this.target);
    const read = async () => {
      const answer = await this.client.send({ method: 'GET', path });
      return is2xx(answer) ? recordOf(path, answer.json) : undefined;
    };
    return (await converge(read, (row) => row !== undefined && samePrint(fingerprint(row), print, moving), windowOf(this.target), this.lag())).shown;
  }

  /** The lag the run learned: in the worker as it goes, and as the suites journalled it (the main process reads after them). */
  private lag(): Lag {
    return Object.assign(new Lag(), { longestMs: Math.max(learnedLag().longestMs, outstanding(this.journal.read()).lagMs) });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Whether a record is still found after its delete answered: read until it is not, within the window (a read replica may lag). */
export async function stillFound(client: ApiClient, path: string, target: TargetConfig): Promise<boolean> {
  try {
    // A lag of its own: what earlier runs in this process taught (the typed API, tests) is not this target's.
    return is2xx((await converge(() => client.send({ method: 'GET', path }), (a) => !is2xx(a), windowOf(target), new Lag())).value);
  } catch {
    return false;
  }
}

/**
 * Of records the run deleted that a list named afterwards: those a find answers gone and the list
 * (`listed`: which of `gone` it names now) still names a window later, the target's list failing
 * (a deleted record is not one of "all customers": CUS-DELETE), and those a find still answers
 * (`found`: left on the target). One rule for the clean-up's verification and the frame's reading
 * after it.
 */
export async function listedThoughGone(client: ApiClient, target: TargetConfig, named: string[], listed: (gone: string[]) => Promise<string[]>): Promise<{ found: string[]; listed: string[] }> {
  const answered = await Promise.all(named.map((path) => stillFound(client, path, target)));
  const gone = named.filter((_, i) => !answered[i]);
  const found = named.filter((_, i) => answered[i]);
  if (!gone.length) return { found, listed: [] };
  return { found, listed: (await converge(() => listed(gone), (still) => still.length === 0, windowOf(target), new Lag())).value };
}
