import { excerpt, is2xx, type Answer } from '../http/client.ts';
import { recordIn, sameId } from '../contract/record-in.ts';

/** Fails the running check with a message that says what the target did. */
export function ensure(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Error(typeof message === 'string' ? message : message());
}

/** "answered 404 {"error":…}", for messages. */
export function said(answer: Answer): string {
  const body = answer.text.trim() === '' ? 'with an empty body' : excerpt(answer.text);
  return `answered ${answer.status} ${body}`;
}

/** The record a find answered (recordIn): a 2xx JSON object carrying the id asked for, or the running check fails. */
export function foundRecord(answer: Answer, doing: string, idField: string, id: unknown, noun: string): Record<string, unknown> {
  ensure(is2xx(answer), () => `${doing} ${said(answer)}`);
  const found = recordIn(answer.json, idField, { id });
  ensure(found, () => `${doing} ${said(answer)}, not a ${noun} object`);
  ensure(sameId(found[idField], id), () => `${doing} answered the ${noun} with ${idField} ${JSON.stringify(found[idField])}`);
  return found;
}
