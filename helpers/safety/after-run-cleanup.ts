import { fillId, is2xx, type ApiClient } from '../http/client.ts';
import { outstanding, type Journal, type Outstanding } from './journal.ts';
import { markerBase, markerField } from '../records/fixtures.ts';
import { carriesRun, markedRecords, runIdOf } from '../records/run-marker.ts';
import { ListReader } from '../records/list-reader.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import { isDeepStrictEqual } from 'node:util';
import { converge, Lag, quiesce, windowOf } from '../core/converge.ts';
import { byPath, holding, restoreFields, restoreRecord, type LeftOnTarget } from './restore-record.ts';
import { listedThoughGone, readBaseline, stillFound } from './frame.ts';
import type { EachRecord } from './shared-records.ts';
import { serverFields } from '../records/server-fields.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

export interface Recovery {
  /** Records the run created that were deleted here (the suites had not). */
  deleted: string[];
  /** Records put back as they were before the run, with the fields written back. */
  restored: string[];
  leftOnTarget: LeftOnTarget[];
  /**
   * Records the run deleted that a list still names a window after the run's last write, though a
   * find answers them gone: not left on the target, the target's list failing (see listedGone).
   */
  listedGone: string[];
}

/**
 * Before the suites: snapshots every record the run may change but cannot create (see
 * readSharedRecords) into the journal, so that whatever a suite writes can be put back, and in the
 * same reads the frame's baseline of every record (helpers/safety/frame.ts), each record handed to
 * `also` too. Returns what could not be read (`problems`, and what it threw by list: `failed`) and
 * the lists read whole (`roots`).
 */
export async function takeBaseline(client: ApiClient, spec: Spec, target: TargetConfig, journal: Journal, also?: EachRecord): Promise<{ problems: string[]; failed: Map<string, unknown>; roots: string[] }> {
  const { records, problems, failed, roots } = await readBaseline(client, spec, target, journal.file, also);
  for (const { path, record } of records) journal.append({ kind: 'snapshot', path, record });
  return { problems, failed, roots };
}

export interface RecoverOptions {
  cleanupTimeoutMs?: number;
  /**
   * Whether the writer `by` that changed `path` during the run is a run undone together with
   * this one (--recover of runs that overlapped, newest first): its values are not another's to
   * leave, so the record is put back whole, as this run found it.
   */
  overlapped?: (path: string, by: string) => boolean;
}

/** How long the after-run clean-up keeps retrying what it could not undo, unless told (--cleanup-timeout). */
export const CLEANUP_TIMEOUT_MS = 60_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * After the suites (finished, failed, cancelled or timed out), or from an earlier run's journal
 * (--recover): undoes what the journal says the run left (see undoOnce). What could not be
 * undone is tried again with backoff (0.5 s, doubling, at most 8 s apart) until nothing is left
 * or `cleanupTimeoutMs` has passed: an outage during the clean-up is waited out, within bounds.
 */
export async function recover(client: ApiClient, journal: Journal, target: TargetConfig, options: RecoverOptions = {}): Promise<Recovery> {
  const deadline = Date.now() + (options.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS);
  const total: Recovery = { deleted: [], restored: [], leftOnTarget: [], listedGone: [] };
  // What the suites' workers learned the target moves by itself, journalled: never put back.
  for (const e of journal.read()) if (e.kind === 'moving') serverFields().fromWrites(e.resource, e.fields);
  for (let backoff = FIRST_BACKOFF_MS; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
    const troubles = client.troubles;
    const pass = await undoOnce(client, journal, target, options.overlapped);
    // A pass the target answered without trouble leaves what no retry changes (a broken delete, say).
    const outage = client.troubles > troubles;
    total.deleted.push(...pass.deleted.filter((d) => !total.deleted.includes(d)));
    total.restored.push(...pass.restored);
    total.leftOnTarget = pass.leftOnTarget;
    total.listedGone = pass.listedGone;
    const wait = Math.min(backoff, deadline - Date.now());
    if (!pass.leftOnTarget.length || !outage || wait <= 0) return total;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * One pass: deletes, newest first, what the journal says the run created and nobody deleted;
 * finds by the run marker what was created but whose answer was lost; verifies by listing; and
 * restores every record the run wrote to, verified by reading back.
 */
async function undoOnce(client: ApiClient, journal: Journal, target: TargetConfig, overlapped?: RecoverOptions['overlapped']): Promise<Recovery> {
  const started = Date.now();
  const state = outstanding(journal.read());
  const recovery: Recovery = { deleted: [], restored: [], leftOnTarget: [], listedGone: [] };
  const left = new Map<string, string>();

  /** Deletes a record: undefined when it is gone, else why not. */
  const deleted = async (path: string): Promise<string | undefined> => {
    try {
      const answer = await client.send({ method: 'DELETE', path });
      return is2xx(answer) || answer.status === 404 ? undefined : `delete answered ${answer.status}`;
    } catch (e) {
      return (e as Error).message;
    }
  };
  const settle = (path: string, problem: string | undefined) => {
    if (problem) return void left.set(path, problem);
    recovery.deleted.push(path);
    left.delete(path);
  };
  const remove = async (path: string) => settle(path, await deleted(path));
  for (const c of state.created) if (await stillOurs(client, c.path, target)) await remove(c.path);

  // Verify by listing, and find records whose create answer never arrived, by the run marker.
  // Each collection, then each record written, is independent of the others: they go at once,
  // and what they found is taken in the journal's order, so that the report reads the same.
  const verified = await Promise.all([...state.listPaths].map(async (listPath) => {
    const found = await ownRecords(client, listPath, state, target);
    if (typeof found === 'string') return { listPath, problem: found, removed: [], still: [], listed: [] };
    const removed: [string, string | undefined][] = [];
    for (const path of found) if (path !== state.lease) removed.push([path, await deleted(path)]);
    // A list that held none of them is verified already: a long one is not read twice for nothing.
    const still = removed.length ? await ownRecords(client, listPath, state, target) : [];
    if (typeof still === 'string') return { listPath, problem: still, removed, still: [], listed: [] };
    return { listPath, removed, ...(await listedGone(client, listPath, state, target, still.filter((p) => p !== state.lease))) };
  }));
  for (const { listPath, problem, removed, still, listed } of verified) {
    recovery.listedGone.push(...listed);
    for (const [path, why] of removed) settle(path, why);
    // A create the run could not find then (see JournalledClient): what it may have made is named by its marker, which finds it once the list reads whole.
    const markers = state.unfound.filter((u) => u.listPath === listPath).map((u) => `"${u.marker}" (POST ${u.listPath} ${u.what})`);
    const mayHold = markers.length ? `; it may hold what the run made and could not find, carrying ${markers.join(', ')}: \`--recover\` deletes it once the list reads whole, \`--sweep\` lists what runs left` : '';
    if (problem) left.set(listPath, `could not verify by listing: ${problem}${mayHold}`);
    for (const path of still) left.set(path, left.get(path) ?? 'still listed after being deleted');
  }

  for (const { path, restored, problem } of await putBack(client, state, target, started, overlapped)) {
    if (restored.length) recovery.restored.push(`${path} (${restored.join(', ')})`);
    if (problem) left.set(path, problem);
  }
  // What the run wrote to was restored and verified above, and what it deleted is gone, whatever a suite said of it then.
  for (const [path, problem] of state.lost) if (!state.written.has(path) && !recovery.deleted.includes(path)) left.set(path, left.get(path) ?? problem);
  // The lease goes last: until everything else is undone, no other run may start.
  if (state.lease) {
    await remove(state.lease);
    recovery.deleted = recovery.deleted.filter((d) => d !== state.lease);
    // Verified like the others, which the listing did: a lease left behind holds off the next run.
    if (!left.has(state.lease) && (await stillFound(client, state.lease, target))) left.set(state.lease, 'the run\'s lease: still found after its delete answered 2xx');
  }
  recovery.leftOnTarget = [...left].map(([record, problem]) => ({ record, problem }));
  return recovery;
}

/** Every record the run wrote to, put back at once, verified by reading back; in the journal's order. */
function putBack(client: ApiClient, state: Outstanding, target: TargetConfig, since: number, overlapped?: RecoverOptions['overlapped']): Promise<{ path: string; restored: string[]; problem?: string }[]> {
  // On a target whose reads lagged the run's writes, a record is read once they no longer would:
  // an older copy holds the values before the run too, and would pass for one put back.
  const lag = Object.assign(new Lag(), { longestMs: state.lagMs });
  const quiet = () => quiesce(Math.max(since, client.lastWriteAt), lag, windowOf(target));
  return Promise.all([...state.written].map(async ([path, fields]) => {
    const before = state.snapshots.get(path);
    if (!before) return { path, restored: [], problem: await unsnapshotted(client, path) };
    const by = state.interference.get(path);
    const own = by === undefined || overlapped?.(path, by);
    return { path, ...(!own ? await restoreOwn(client, path, before, fields, target.runId, by!, quiet, state.sent.get(path)) : await restoreRecord(client, path, before, fields, holding([...fields]), { quiesce: quiet })) };
  }));
}

/**
 * Paths of listed records this run created: those carrying its marker; without a marker field,
 * those under an id the journal says it created. Ids may be reused after a delete, so a record
 * that carries another marker (or none, where the run's would be) is never taken for the run's.
 */
async function ownRecords(client: ApiClient, listPath: string, state: Outstanding, target: TargetConfig): Promise<string[] | string> {
  try {
    const field = markerField(target);
    if (field) return (await markedRecords(client, target, listPath, field, markerBase(target))).filter((m) => m.runId === target.runId).map((m) => m.path);
    const paths: string[] = [];
    await new ListReader(client, target).whole(listPath, `listing ${listPath}`, (row) => {
      const id = isRecord(row) ? row[target.vendor.idField] : undefined;
      const path = id === undefined || id === null ? undefined : fillId(`${listPath}/{id}`, id);
      if (path && state.everCreated.has(path)) paths.push(path);
    });
    return paths;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Of the run's records a list still names after their delete, those it names still a window later though a find answers them gone (see listedThoughGone). */
async function listedGone(client: ApiClient, listPath: string, state: Outstanding, target: TargetConfig, named: string[]): Promise<{ still: string[]; listed: string[] }> {
  // A list that cannot be read now says nothing more: a find said them gone.
  const { found, listed } = await listedThoughGone(client, target, named, async (gone) => {
    const paths = await ownRecords(client, listPath, state, target);
    return typeof paths === 'string' ? [] : gone.filter((p) => paths.includes(p));
  });
  return { still: found, listed };
}


/**
 * Whether the record the journal says the run created is still the run's to delete: unless it
 * is found carrying another marker than this run's (its id reused by another record since).
 */
async function stillOurs(client: ApiClient, path: string, target: TargetConfig): Promise<boolean> {
  const field = markerField(target);
  if (!field) return true;
  try {
    const answer = await client.send({ method: 'GET', path });
    const row: Row | undefined = is2xx(answer) ? recordIn(answer.json, target.vendor.idField) : undefined;
    return !row || runIdOf(row[field], markerBase(target)) === target.runId;
  } catch {
    return true;
  }
}

/**
 * A record another writer changed during the run: only fields that hold this run's own marker
 * are certainly its to put back; the others are left to whoever changed them, and named.
 */
async function restoreOwn(client: ApiClient, path: string, before: Record<string, unknown>, fields: Set<string>, runId: string, by: string, quiet: () => Promise<void>, sent = new Map<string, unknown[]>()): Promise<{ restored: string[]; problem?: string }> {
  // The run's own: a value carrying its marker, or one it sent to that field of this record (a value taken from another record carries none).
  const ours = (f: string, value: unknown) => carriesRun(value, runId) || (sent.get(f) ?? []).some((v) => isDeepStrictEqual(v, value));
  let others: string[] = [];
  try {
    const { restored } = await restoreFields(byPath(client, path, holding([...fields])), before, fields, {
      quiesce: quiet,
      differing: (now) => {
        const differ = [...fields].filter((f) => f in before && !isDeepStrictEqual(now[f], before[f]));
        others = differ.filter((f) => !ours(f, now[f]));
        return differ.filter((f) => !others.includes(f));
      },
    });
    return { restored, problem: others.length ? `${others.join(', ')} not put back: ${by} changed the record during the run (when it is done, \`--recover\` this run's report directory and that run's together: \`--recover <this> --recover <its>\`; each record ends as the older run found it)` : undefined };
  } catch (e) {
    return { restored: [], problem: (e as Error).message };
  }
}

/** A record written without a snapshot: fine if it does not exist (the write changed nothing). */
async function unsnapshotted(client: ApiClient, path: string): Promise<string | undefined> {
  try {
    const answer = await client.send({ method: 'GET', path });
    // Not served (404, or the 400/403 some targets give an unknown id): the write made no record there.
    if (answer.status >= 400 && answer.status < 500) return undefined;
    return 'changed by the run, and no snapshot of it was taken before';
  } catch (e) {
    return `changed by the run, no snapshot, and cannot be read: ${(e as Error).message}`;
  }
}

/** What the journal says may still be on the target, without asking it: for an exit at once. */
export function leftAccordingToJournal(journal: Journal, runId: string): LeftOnTarget[] {
  const state = outstanding(journal.read());
  return [
    ...state.created.map((c) => ({ record: c.path, problem: 'created by the run, not deleted' })),
    ...(state.lease ? [{ record: state.lease, problem: 'the run\'s lease, not deleted' }] : []),
    ...[...state.written.keys()].map((path) => ({ record: path, problem: 'written by the run, not verified as restored' })),
    // A create whose answer had not arrived may have made a record the journal does not know.
    ...[...state.listPaths].map((path) => ({
      record: `${path} marked ${runId}`,
      problem: 'not verified by listing; `scheduling-conformance --sweep` lists records left by interrupted runs, `--sweep --yes` deletes them',
    })),
  ];
}

export function formatLeftOnTarget(left: LeftOnTarget[]): string {
  if (!left.length) return 'Left on the target: nothing\n';
  return `Left on the target (${left.length}):\n${left.map((l) => `  ${l.record}: ${l.problem}\n`).join('')}`;
}
