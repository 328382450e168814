import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import type { Row } from '../contract/record.ts';
import type { TargetConfig } from '../config/target.ts';
import { ApiClient, is2xx, TurnedAway, type Answer, type SendOptions } from '../http/client.ts';
import { isRecord } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import { markedRecords, runIdOf } from '../records/run-marker.ts';
import { markerBase, markerField } from '../records/fixtures.ts';
import { learnedLag } from '../core/converge.ts';
import { serverFields } from '../records/server-fields.ts';

/**
 * One line of the run journal. Paths are concrete (ids filled in), relative to the base URL.
 * - run:      the first line: the target's origin and the run id (`--recover` checks both), and
 *             when the run started (`--recover` undoes runs that overlapped newest first), and
 *             the machine and process that ran it (a later run in the folder tells its own
 *             stopped run from one still going).
 * - creating: a create is about to be sent to `listPath` (its answer may be lost: the run marker finds it).
 * - created:  the target answered a create; `path` deletes it, `listPath` lists its collection.
 * - deleting: a delete of `path` is about to be sent (whatever the answer, it addressed that record).
 * - deleted:  the target answered a delete of `path` with 2xx or 404: it is gone.
 * - snapshot: the record at `path` as it was before the run changed it (first one per path wins).
 * - wrote:    a PATCH of `fields` is about to be sent to `path` (written before sending).
 * - restored: a suite restored `path` itself.
 * - kept:     a record the run created on purpose to stay: it stands in for one a broken target
 *             let the run delete (a team member re-created), so clean-up must not delete it.
 * - interference: another writer (`by`: a run marker, or "another writer") changed `path` while
 *             this run worked on it: only fields holding this run's own marker are put back.
 * - lease:    the record created at `path` is the run's lease (helpers/safety/lease.ts): deleted
 *             last, after everything else is undone, so that no other run starts before.
 * - lag:      the suites learned that a write took `ms` to show in reads (see converge): the
 *             clean-up reads once that long has passed (three times over), so that an older copy
 *             does not answer for a record it restores.
 * - finished: the run's clean-up (or a --recover of it) left nothing on the target: the journal
 *             is no longer needed to undo anything, and the next run in the folder prunes it.
 * - lost:     a suite could not put `path` back by any request the API offers (`problem` says
 *             why): a record a broken target let the run create and not delete, delete and not
 *             re-create under its id, or change through a write to another record. Clean-up
 *             cannot either: it is named as left on the target, unless the run wrote to it
 *             (clean-up then restores it and verifies).
 * - unfound: a create to `listPath` whose answer gave no id the run can use (`what` it got) may
 *             have made a record carrying `marker`, and the list could not be read whole to find
 *             it (`why`): the run creates nothing more (see JournalledClient), and names it as may be left.
 * - frame-start: a reading of the whole target begins (helpers/safety/frame.ts): the writes
 *             journalled after the one before it are those a difference it finds may be due to.
 * - frame:    what that reading found changed that no write of the run addressed (`where`: a
 *             lane's end, the run's end), each difference with the writes that may have made it;
 *             `accepted`: records a write of that window addressed, as read (the run's from there).
 */
export type JournalEntry =
  | { kind: 'run'; origin: string; runId: string; at?: string; host?: string; pid?: number }
  | { kind: 'creating'; listPath: string }
  | { kind: 'created'; path: string; listPath: string; id: unknown }
  | { kind: 'deleting'; path: string }
  | { kind: 'deleted'; path: string }
  | { kind: 'snapshot'; path: string; record: Row }
  | { kind: 'wrote'; path: string; fields: string[]; values?: Row }
  | { kind: 'restored'; path: string }
  | { kind: 'kept'; path: string }
  | { kind: 'interference'; path: string; by: string }
  | { kind: 'lease'; path: string }
  | { kind: 'lag'; ms: number }
  /** Fields of a resource the target moves by itself (see ServerFields), as a worker learned them. */
  | { kind: 'moving'; resource: string; fields: string[] }
  | { kind: 'lost'; path: string; problem: string }
  | { kind: 'unfound'; listPath: string; marker: string; what: string; why: string; by: 'the target' | 'the environment' | 'the suite' }
  | { kind: 'frame-start' }
  | { kind: 'finished' }
  | { kind: 'frame'; where: string; differences: FrameDifference[]; accepted: [string, string | null][]; problems: string[]; compared: string[] };

/**
 * A record found otherwise than the run left it, by no write addressed to it: `now` is its
 * fingerprint as read (null: gone), `writes` the run's writes that may have made the change (none:
 * another writer's doing), `by` another run whose marker it holds.
 */
export interface FrameDifference {
  path: string;
  how: 'vanished' | 'appeared' | 'changed';
  fields?: string[];
  now: string | null;
  writes: string[];
  by?: string;
}

/**
 * The durable record of what a run changed on the target: JSON lines appended synchronously as
 * soon as the target answers, by the suite workers and the main process alike, so that the main
 * process can undo whatever is still recorded after the suites end, crash or are cancelled.
 */
export class Journal {
  constructor(readonly file: string) {}

  /**
   * A journal for a new run. The journals earlier runs left in the folder (a reused
   * --report-dir) are not read as this run's: a finished one is pruned; an unfinished one is the
   * record of what its run left behind, kept under its run's name, where `--recover DIR` (which
   * undoes every unfinished journal in DIR) still finds it.
   */
  static start(file: string): Journal {
    for (const earlier of journalsIn(dirname(file), basename(file))) {
      const journal = new Journal(earlier);
      const entries = journal.read();
      if (entries.at(-1)?.kind === 'finished') rmSync(earlier, { force: true });
      else if (earlier === file) {
        const run = entries.find((e) => e.kind === 'run');
        renameSync(file, file.replace(/\.jsonl$/, `.${run?.runId ?? Date.now()}.jsonl`));
      }
    }
    return new Journal(file);
  }

  /** Whether the run's clean-up left nothing to undo. */
  finished(): boolean {
    return this.read().at(-1)?.kind === 'finished';
  }

  append(entry: JournalEntry): void {
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  /** Every entry in the order written; a line torn by a crash is skipped. */
  read(): JournalEntry[] {
    if (!existsSync(this.file)) return [];
    return parseLines(readFileSync(this.file, 'utf8'));
  }

  /** The whole lines appended from byte `from` on, and where the next call starts: for a reader that asks often of a long journal. */
  readSince(from: number): { entries: JournalEntry[]; next: number } {
    const size = existsSync(this.file) ? statSync(this.file).size : 0;
    if (size <= from) return { entries: [], next: from };
    const bytes = Buffer.alloc(size - from);
    const fd = openSync(this.file, 'r');
    try {
      readSync(fd, bytes, 0, bytes.length, from);
    } finally {
      closeSync(fd);
    }
    // A line still being written is read whole next time.
    const end = bytes.lastIndexOf(0x0a) + 1;
    return { entries: parseLines(bytes.subarray(0, end).toString('utf8')), next: from + end };
  }
}

function parseLines(text: string): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      // torn last line of a crashed writer
    }
  }
  return entries;
}

/** The run journals in a folder: `name` (run-journal.jsonl) and those earlier runs left beside it (run-journal.<run>.jsonl). */
export function journalsIn(dir: string, name: string): string[] {
  const [stem, ext] = [name.replace(/\.jsonl$/, ''), '.jsonl'];
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f === name || (f.startsWith(`${stem}.`) && f.endsWith(ext)))
    .map((f) => join(dir, f));
}

/**
 * The unfinished journal of run `runId` in one of these report folders, when that run is no longer going on
 * this machine (its process is gone): a run this folder's user stopped, whose lease still holds
 * the target until it lapses or `--recover` undoes it.
 */
export function stoppedRunIn(dirs: string[], name: string, runId: string): string | undefined {
  for (const file of dirs.flatMap((dir) => journalsIn(dir, name))) {
    const journal = new Journal(file);
    const entries = journal.read();
    const run = entries.find((e) => e.kind === 'run');
    if (run?.runId !== runId || entries.at(-1)?.kind === 'finished') continue;
    if (goingOn(entries)) return undefined;
    return file;
  }
  return undefined;
}

/** The run a journal is of, while it is still going on this machine: unfinished, its process alive. */
export function goingOn(entries: JournalEntry[]): Extract<JournalEntry, { kind: 'run' }> | undefined {
  const run = entries.find((e): e is Extract<JournalEntry, { kind: 'run' }> => e.kind === 'run');
  if (!run || entries.at(-1)?.kind === 'finished') return undefined;
  return run.host === hostname() && run.pid !== undefined && alive(run.pid) ? run : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the journal says is still on the target, without asking it. */
export interface Outstanding {
  /** Created and not known to be deleted, newest first. */
  created: Extract<JournalEntry, { kind: 'created' }>[];
  /** Collections the run created records in (or tried to): listed to find them by the run marker. */
  listPaths: Set<string>;
  /** Every record path the run ever created, deleted since or not. */
  everCreated: Set<string>;
  /** Records a suite could not put back, with why: named as left on the target. */
  lost: Map<string, string>;
  /** Records the run wrote to (other than its own creations), with the fields written. */
  written: Map<string, Set<string>>;
  /** The earliest value of each field of each snapshotted record. */
  snapshots: Map<string, Row>;
  /** Records another writer changed during the run, and who. */
  interference: Map<string, string>;
  /** The values the run sent, per record and field (a value it took from another record carries no marker). */
  sent: Map<string, Map<string, unknown[]>>;
  /** The run's lease, while it is not known to be deleted (not among `created`: it goes last). */
  lease?: string;
  /** The longest a write of the run took to show in reads (0: none lagged). */
  lagMs: number;
  /** Creates that may have made a record the run could not find (see JournalledClient). */
  unfound: Extract<JournalEntry, { kind: 'unfound' }>[];
}

export function outstanding(entries: JournalEntry[]): Outstanding {
  const created = new Map<string, Extract<JournalEntry, { kind: 'created' }>>();
  const everCreated = new Set<string>();
  const written = new Map<string, Set<string>>();
  const snapshots = new Map<string, Row>();
  const listPaths = new Set<string>();
  const interference = new Map<string, string>();
  const lost = new Map<string, string>();
  /** The values the run sent, per record and field. */
  const sent = new Map<string, Map<string, unknown[]>>();
  const unfound: Extract<JournalEntry, { kind: 'unfound' }>[] = [];
  let lease: string | undefined;
  let lagMs = 0;
  for (const e of entries) {
    if (e.kind === 'lease') lease = e.path;
    if (e.kind === 'lag') lagMs = Math.max(lagMs, e.ms);
    if (e.kind === 'lost') lost.set(e.path, e.problem);
    if (e.kind === 'unfound') unfound.push(e);
    if (e.kind === 'interference') interference.set(e.path, interference.get(e.path) ?? e.by);
    if (e.kind === 'creating') listPaths.add(e.listPath);
    else if (e.kind === 'created') {
      listPaths.add(e.listPath);
      created.delete(e.path); // re-recorded: newest position wins
      created.set(e.path, e);
      everCreated.add(e.path);
    } else if (e.kind === 'deleted') {
      created.delete(e.path);
      // Gone since a suite found it lost (a later clean-up pass, or --recover, deleted it); a member
      // deleted and then re-created elsewhere is journalled lost after its delete, and stays.
      lost.delete(e.path);
      if (e.path === lease) lease = undefined;
    }
    else if (e.kind === 'kept') {
      created.delete(e.path);
      everCreated.delete(e.path);
    }
    else if (e.kind === 'wrote') {
      const fields = written.get(e.path) ?? new Set<string>();
      for (const f of e.fields) fields.add(f);
      written.set(e.path, fields);
      const values = sent.get(e.path) ?? new Map<string, unknown[]>();
      for (const [f, v] of Object.entries(e.values ?? {})) values.set(f, [...(values.get(f) ?? []), v]);
      sent.set(e.path, values);
    } else if (e.kind === 'snapshot') {
      // A later snapshot may add fields an earlier one lacked, never overwrite what came first.
      snapshots.set(e.path, { ...e.record, ...snapshots.get(e.path) });
    }
  }
  for (const path of everCreated) written.delete(path);
  if (lease) created.delete(lease);
  return { created: [...created.values()].reverse(), listPaths, everCreated, written, sent, snapshots, interference, lost, lease, lagMs, unfound };
}

/** A client whose creations, deletions and writes go to the run journal the target names (journalFile), as they happen. */
export function journalledClient(target: TargetConfig): ApiClient {
  const journal = target.journalFile ? new Journal(target.journalFile) : undefined;
  if (journal) learnedLag().onLonger = (ms) => journal.append({ kind: 'lag', ms });
  if (journal) serverFields().onLearned = (resource, fields) => journal.append({ kind: 'moving', resource, fields });
  return journal ? new JournalledClient(target, journal) : new ApiClient(target);
}

/**
 * The run's client, and the one way every create of the run goes (the checks', exploration's, the
 * lease's): what the run creates, it can find again. A create whose answer gives no id the run
 * can use (a body it cannot parse, no id in it, a server error, no answer at all after it was
 * sent) is looked for by its marker in the whole list before this client sends another create:
 * a record carrying that marker that no answered create of the run named is the run's (journalled
 * as created: the clean-up deletes it); none in a whole list means nothing was made. A list that
 * cannot be read whole cannot say: the journal holds that (`unfound`), and from then on no client
 * of the run (every thread reads the journal) sends a create, each turned away saying why; the
 * clean-up names the collection and the marker as may be left.
 */
class JournalledClient extends ApiClient {
  /** Look-ups of lost creates still going, by any client of the run in this thread: a create waits for them. */
  private readonly looking: Set<Promise<void>>;
  /** How far the journal was read for a stop, and the stop, once one is journalled. */
  private readTo = 0;
  private unfoundEntry?: Extract<JournalEntry, { kind: 'unfound' }>;

  constructor(
    target: TargetConfig,
    private readonly journal: Journal,
  ) {
    super(target, undefined, undefined, (event) => journal.append(event));
    this.looking = lookUps.get(journal.file) ?? new Set();
    lookUps.set(journal.file, this.looking);
  }

  override async send(options: SendOptions): Promise<Answer> {
    if (options.method !== 'POST') return super.send(options);
    while (this.looking.size) await Promise.all(this.looking);
    const stop = options.restoring ? undefined : this.stop();
    if (stop) throw new TurnedAway(`POST ${options.path} was not sent: the run creates nothing more since POST ${stop.listPath} ${stop.what} and the list could not show what it made (${stop.why}); a record carrying "${stop.marker}" may be left`, stop.by, false);
    const outcome = await super.send(options).catch((e: unknown) => e);
    if (unread(outcome, options, this.target.vendor.idField)) {
      const look = this.lookFor(options, outcome);
      this.looking.add(look);
      await look.finally(() => this.looking.delete(look));
    }
    if (outcome instanceof Error || !isAnswer(outcome)) throw outcome;
    return outcome;
  }

  /** The first create journalled as unfound, by any thread of the run. */
  private stop(): Extract<JournalEntry, { kind: 'unfound' }> | undefined {
    if (this.unfoundEntry) return this.unfoundEntry;
    const { entries, next } = this.journal.readSince(this.readTo);
    this.readTo = next;
    return (this.unfoundEntry = entries.find((e): e is Extract<JournalEntry, { kind: 'unfound' }> => e.kind === 'unfound'));
  }

  private async lookFor(options: SendOptions, outcome: unknown): Promise<void> {
    const field = markerField(this.target);
    const base = markerBase(this.target);
    const marker = field && isRecord(options.body) ? options.body[field] : undefined;
    // A body without this run's marker (a copy of a team member) is not found by one: its caller lists what it made.
    if (!field || typeof marker !== 'string' || runIdOf(marker, base) !== this.target.runId) return;
    const what = isAnswer(outcome) ? `answered ${outcome.status}${is2xx(outcome) ? ' without an id the run can use' : ''}` : `got no usable answer (${reasonOf(outcome)})`;
    const by = outcome instanceof TurnedAway ? outcome.by : isAnswer(outcome) ? 'the target' : 'the environment';
    try {
      const listed = await markedRecords(this, this.target, options.path, field, base);
      // Read after the list: a create answered meanwhile is named by its answer, not taken for this one.
      const known = outstanding(this.journal.read()).everCreated;
      const found = listed.filter((m) => m.value === marker && !known.has(m.path));
      for (const m of found) this.journal.append({ kind: 'created', path: m.path, listPath: options.path, id: m.id });
    } catch (e) {
      this.journal.append({ kind: 'unfound', listPath: options.path, marker, what, why: reasonOf(e), by });
    }
  }
}

/** The look-ups going per run journal: a lane's clients, the operations pass's and exploration's all wait for each. */
const lookUps = new Map<string, Set<Promise<void>>>();

const reasonOf = (e: unknown) => (e instanceof TurnedAway ? e.reason : e instanceof Error ? e.message : String(e));
const isAnswer = (x: unknown): x is Answer => isRecord(x) && typeof x.status === 'number' && 'exchange' in x;

/** Whether a create's outcome leaves unknown whether, and where, it made a record: no 2xx with an id, no refusal (4xx), nor a request never sent. */
function unread(outcome: unknown, options: SendOptions, idField: string): boolean {
  if (outcome instanceof TurnedAway) return outcome.sent;
  if (!isAnswer(outcome)) return true;
  if (is2xx(outcome)) {
    const id = recordIn(outcome.json, idField, isRecord(options.body) ? { sent: options.body } : undefined)?.[idField];
    return id === undefined || id === null;
  }
  return outcome.status >= 500;
}
