import { fillId, is2xx, type ApiClient } from '../http/client.ts';
import { outstanding, type Journal, type Outstanding } from './journal.ts';
import { markerField } from '../resources/fixtures.ts';
import { recordReader, rowsOf } from '../resources/record-shapes.ts';
import { restoreRecord, type LeftOnTarget } from './restore-record.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

export interface Recovery {
  /** Records the run created that were deleted here (the suites had not). */
  deleted: string[];
  /** Records put back as they were before the run, with the fields written back. */
  restored: string[];
  leftOnTarget: LeftOnTarget[];
}

/**
 * Before the suites: snapshots every record the run may change but cannot create — singletons
 * (a GET and PATCH without {id}) and collections without a create (their list) — into the
 * journal, so that whatever a suite writes can be put back. Returns what could not be read.
 */
export async function takeBaseline(client: ApiClient, spec: Spec, target: TargetConfig, journal: Journal): Promise<string[]> {
  const problems: string[] = [];
  const has = (method: string, path: string) => spec.operations.some((o) => o.method === method && o.path === path);
  const recordOf = recordReader(spec, target);
  for (const op of spec.operations) {
    if (op.method !== 'GET' || op.itemPath) continue;
    const singleton = has('PATCH', op.path);
    const item = `${op.path}/{id}`;
    const fixed = has('PATCH', item) && !has('POST', op.path);
    if (!singleton && !fixed) continue;
    try {
      const answer = await client.send({ method: 'GET', path: op.path });
      const record = singleton && is2xx(answer) ? recordOf(op.path, answer.json) : undefined;
      if (record) {
        journal.append({ kind: 'snapshot', path: op.path, record });
        continue;
      }
      const rows = fixed && is2xx(answer) ? rowsOf(answer.json) : undefined;
      if (!rows) throw new Error(`answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : ''}`);
      for (const row of rows) {
        const id = row[target.vendor.idField];
        if (id !== undefined && id !== null) journal.append({ kind: 'snapshot', path: fillId(item, id), record: row });
      }
    } catch (e) {
      problems.push(`could not snapshot ${op.path} before the run: ${(e as Error).message}`);
    }
  }
  return problems;
}

/**
 * After the suites (finished, failed, cancelled or timed out): deletes, newest first, what the
 * journal says the run created and nobody deleted; finds by the run marker what was created but
 * whose answer was lost; verifies by listing; and restores every record the run wrote to.
 */
export async function recover(client: ApiClient, journal: Journal, target: TargetConfig): Promise<Recovery> {
  const state = outstanding(journal.read());
  const recovery: Recovery = { deleted: [], restored: [], leftOnTarget: [] };
  const left = new Map<string, string>();

  const remove = async (path: string) => {
    try {
      const answer = await client.send({ method: 'DELETE', path });
      if (is2xx(answer) || answer.status === 404) {
        recovery.deleted.push(path);
        left.delete(path);
      } else left.set(path, `delete answered ${answer.status}`);
    } catch (e) {
      left.set(path, (e as Error).message);
    }
  };
  for (const c of state.created) await remove(c.path);

  // Verify by listing, and find records whose create answer never arrived, by the run marker.
  for (const listPath of state.listPaths) {
    const found = await ownRecords(client, listPath, state, target);
    if (typeof found === 'string') {
      left.set(listPath, `could not verify by listing: ${found}`);
      continue;
    }
    for (const path of found) await remove(path);
    const still = await ownRecords(client, listPath, state, target);
    if (typeof still === 'string') left.set(listPath, `could not verify by listing: ${still}`);
    else for (const path of still) left.set(path, left.get(path) ?? 'still listed after being deleted');
  }

  for (const [path, fields] of state.written) {
    const before = state.snapshots.get(path);
    if (!before) {
      const problem = await unsnapshotted(client, path);
      if (problem) left.set(path, problem);
      continue;
    }
    const result = await restoreRecord(client, path, before, fields);
    if (result.restored.length) recovery.restored.push(`${path} (${result.restored.join(', ')})`);
    if (result.problem) left.set(path, result.problem);
  }
  recovery.leftOnTarget = [...left].map(([record, problem]) => ({ record, problem }));
  return recovery;
}

/** Paths of listed records this run created: by the journal's ids, or by the run marker. */
async function ownRecords(client: ApiClient, listPath: string, state: Outstanding, target: TargetConfig): Promise<string[] | string> {
  try {
    const answer = await client.send({ method: 'GET', path: listPath });
    const rows = is2xx(answer) ? rowsOf(answer.json) : undefined;
    if (!rows) return `GET ${listPath} answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : ''}`;
    const field = markerField(target);
    const paths: string[] = [];
    for (const row of rows) {
      const id = row[target.vendor.idField];
      if (id === undefined || id === null) continue;
      const path = fillId(`${listPath}/{id}`, id);
      const marked = field !== undefined && typeof row[field] === 'string' && (row[field] as string).includes(target.runId);
      if (marked || state.everCreated.has(path)) paths.push(path);
    }
    return paths;
  } catch (e) {
    return (e as Error).message;
  }
}

/** A record written without a snapshot: fine if it does not exist (the write changed nothing). */
async function unsnapshotted(client: ApiClient, path: string): Promise<string | undefined> {
  try {
    const answer = await client.send({ method: 'GET', path });
    if (answer.status === 404) return undefined;
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
    ...[...state.written.keys()].map((path) => ({ record: path, problem: 'written by the run, not verified as restored' })),
    // A create whose answer had not arrived may have made a record the journal does not know.
    ...[...state.listPaths].map((path) => ({
      record: `${path} marked ${runId}`,
      problem: 'not verified by listing; `scheduling-conformance --sweep` deletes records left by interrupted runs',
    })),
  ];
}

export function formatLeftOnTarget(left: LeftOnTarget[]): string {
  if (!left.length) return 'Left on the target: nothing\n';
  return `Left on the target (${left.length}):\n${left.map((l) => `  ${l.record}: ${l.problem}\n`).join('')}`;
}
