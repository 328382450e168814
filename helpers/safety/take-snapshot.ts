import { is2xx, type Answer, type ApiClient } from '../http/client.ts';
import type { Journal } from './journal.ts';
import { type RecordReader } from '../records/record-shapes.ts';
import { isRecord, type Row } from '../contract/record.ts';

/**
 * The one snapshot taker: reads the record at `path` (a concrete path) and journals it at once,
 * so that the main process can put it back whatever happens next. `recordOf` finds the record
 * in the answer (the business record may sit in an envelope); `answered` is a GET of `path` the
 * caller has had answered (or is having answered: the business retrieval a check sends anyway),
 * with nothing written since: it is not asked again. Throws, saying why, when the answer is not a
 * 2xx holding a record.
 */
export async function takeSnapshot(client: ApiClient, path: string, journal: Journal | undefined, recordOf: RecordReader = (_path, json) => (isRecord(json) ? json : undefined), answered?: Answer | Promise<Answer>): Promise<Row> {
  const answer = await (answered ?? client.send({ method: 'GET', path }));
  const record = is2xx(answer) ? recordOf(path, answer.json) : undefined;
  if (!record) {
    throw new Error(`cannot snapshot ${path} before changing it: GET answered ${answer.status}${answer.jsonError ? ` (${answer.jsonError})` : is2xx(answer) ? ' without a record in it' : ''}`);
  }
  journal?.append({ kind: 'snapshot', path, record });
  return record;
}
