import { perRun } from '../core/run-scope.ts';
/**
 * The writes this process's clients have sent to each collection (its path: a create's own, a
 * record's parent), begun and ended: a reader of that collection's list tells by it whether the
 * run itself wrote there while it read. A list read while records come and go may name one twice
 * (an offset page after a delete), which is no fault of the list.
 */
const begun = new Map<string, number>();
const ended = new Map<string, number>();

const collectionOf = (method: string, path: string) => {
  const bare = path.split('?')[0];
  return method === 'POST' ? bare : bare.replace(/\/[^/]*$/, '');
};

/** Counts a write to `path` from the moment it is sent; the returned function counts its end. */
export function writing(method: string, path: string): () => void {
  const key = collectionOf(method, path);
  begun.set(key, (begun.get(key) ?? 0) + 1);
  return () => ended.set(key, (ended.get(key) ?? 0) + 1);
}

/** A mark of the writes to the list at `path` so far (see movedSince). */
export function writesTo(path: string): { begun: number; ended: number } {
  const key = path.split('?')[0];
  return { begun: begun.get(key) ?? 0, ended: ended.get(key) ?? 0 };
}

/** Whether the run wrote to the list at `path` since `mark`, or had a write to it under way then. */
export function movedSince(path: string, mark: { begun: number; ended: number }): boolean {
  return mark.begun !== mark.ended || writesTo(path).begun !== mark.begun;
}

/**
 * Each value a write of this run sent, per field name (see sentByRun). Per run: a worker kept for
 * the next run took the values the last one sent (a version counter's 2, say) for this run's own.
 */
const sentValues = perRun(() => new Map<string, Set<string>>());

/** Notes the values of a write's body (an object's fields), as the run sent them. */
export function sentBody(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  for (const [field, value] of Object.entries(body)) {
    const values = sentValues().get(field) ?? new Set<string>();
    if (values.size < 10_000) values.add(JSON.stringify(value));
    sentValues().set(field, values);
  }
}

/**
 * Whether the run sent this value to this field, to any record: a field that takes such a value
 * when written back is a write of the run leaking into it (to another record, a later one), not a
 * field the target moves by itself (a stamp, a version: values no client sends).
 */
export const sentByRun = (field: string, value: unknown): boolean => sentValues().get(field)?.has(JSON.stringify(value)) ?? false;
