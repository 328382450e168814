import { fillId, is2xx, type ApiClient } from '../http/client.ts';
import type { Operation } from '../contract/spec.ts';
import type { Journal } from './journal.ts';

/**
 * Records this suite file created, noted as soon as the target answers, so that clean-up
 * can delete them whatever happened in between. The run journal, which the main process cleans
 * up from should this worker never get to its clean-up, hears of each create once: from the
 * client, which journals every create the target answers with an id (helpers/http/client.ts).
 */
/**
 * Deletes sent at once by one clean-up: a rate-limited staging turns a burst away, and the retries
 * of a burst back off in step. Four keep a check's own customers (one to three) in one round trip.
 */
const AT_ONCE = 4;

export class CreatedRecords {
  private readonly created = new Map<string, { id: unknown; deleteOp: Operation }>();

  constructor(private readonly journal: Journal | undefined) {}

  /** A record whose create the client journalled (the target answered it with its id). */
  record(deleteOp: Operation, id: unknown): void {
    this.created.set(`${deleteOp.path} ${String(id)}`, { id, deleteOp });
  }

  /**
   * A record the client could not journal as created: a create answered without its id (found
   * since by the run marker), or a record back after its delete. Journalled here, once.
   */
  adopt(deleteOp: Operation, id: unknown): void {
    this.record(deleteOp, id);
    this.journal?.append({ kind: 'created', path: fillId(deleteOp.path, id), listPath: deleteOp.collectionPath, id });
  }

  forget(deleteOp: Operation, id: unknown): void {
    this.created.delete(`${deleteOp.path} ${String(id)}`);
  }

  /**
   * Deletes everything still recorded (or only the records with the given ids: one check's own,
   * while other checks still work on theirs), AT_ONCE at a time: a delete waits on no other but
   * for a free place. Returns what could not be deleted, newest first.
   */
  async cleanUp(client: ApiClient, only?: unknown[]): Promise<string[]> {
    const entries = [...this.created].reverse().filter(([, { id }]) => !only || only.some((o) => String(o) === String(id)));
    const remove = async ([key, entry]: (typeof entries)[number]): Promise<string | undefined> => {
      try {
        const answer = await client.call(entry.deleteOp, { id: entry.id });
        // Not a record created meanwhile under the same id (a target that reuses ids): that one is still to delete.
        if ((is2xx(answer) || answer.status === 404) && this.created.get(key) === entry) return void this.created.delete(key);
        return `${key}: delete answered ${answer.status}`;
      } catch (e) {
        return `${key}: ${(e as Error).message}`;
      }
    };
    const outcomes: (string | undefined)[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, entries.length) }, async () => {
      for (let i = next++; i < entries.length; i = next++) outcomes[i] = await remove(entries[i]);
    }));
    return outcomes.filter((o) => o !== undefined);
  }
}
