import { isDeepStrictEqual } from 'node:util';
import type { Answer } from '../http/client.ts';
import type { Row } from '../contract/record.ts';

/** Strings shorter than this could be in any message by chance ("USD", "true"). */
const TELLING_LENGTH = 8;

/** Every value in a JSON value, at any depth. */
function* valuesIn(json: unknown): Generator<unknown> {
  yield json;
  if (json && typeof json === 'object') for (const v of Object.values(json)) yield* valuesIn(v);
}

/**
 * The fields of `record` whose values an answer carries (its body or headers): strings long enough
 * to tell, and lists or objects anywhere in a JSON body. A value the request itself sent (`sent`)
 * proves nothing when it comes back.
 */
export function recordValuesShown(answer: Answer, record: Row, names: string[], sent = ''): string[] {
  const text = [answer.text, ...Object.values(answer.headers)].join('\n');
  const found = [...valuesIn(answer.json)];
  return names.filter((name) => {
    const value = record[name];
    if (typeof value === 'string') return value.length >= TELLING_LENGTH && !sent.includes(value) && (text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)));
    if (value && typeof value === 'object' && Object.keys(value).length) return !sent.includes(JSON.stringify(value)) && found.some((v) => isDeepStrictEqual(v, value));
    return false;
  });
}

/** Whether an answer quotes one of the keys (body or a header); an empty key is in every text, so none. */
export function echoesKey(answer: Answer, keys: readonly string[]): boolean {
  return keys.filter(Boolean).some((k) => answer.text.includes(k) || Object.values(answer.headers).some((v) => v.includes(k)));
}
