import { fillId, is2xx, type ApiClient } from '../http/client.ts';
import type { Journal } from './journal.ts';
import { isRecord, type Row } from '../resources/record-shapes.ts';

/**
 * The one snapshot taker: reads the record at `path` (a concrete path) and journals it at once,
 * so that the main process can put it back whatever happens next. Throws, saying why, when the
 * answer is not a 2xx JSON object.
 */
export async function takeSnapshot(client: ApiClient, path: string, journal: Journal | undefined): Promise<Row> {
  const answer = await client.send({ method: 'GET', path });
  if (!is2xx(answer) || !isRecord(answer.json)) {
    throw new Error(`cannot snapshot ${path} before changing it: GET answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : ''}`);
  }
  journal?.append({ kind: 'snapshot', path, record: answer.json });
  return answer.json;
}

/** Records of a collection the run cannot create, snapshotted from one list: see takeSnapshot. */
export function journalListed(rows: Row[], listPath: string, idField: string, journal: Journal): void {
  for (const row of rows) {
    const id = row[idField];
    if (id !== undefined && id !== null) journal.append({ kind: 'snapshot', path: fillId(`${listPath}/{id}`, id), record: row });
  }
}
