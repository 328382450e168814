/**
 * What a lane knows of a record it writes to (helpers/records/record-history.ts): which readings
 * are no older than that, on a target whose reads may go back in time.
 */
import { describe, expect, test } from 'vitest';
import { RecordHistory } from '../helpers/records/record-history.ts';
import { serverFields } from '../helpers/records/server-fields.ts';
import type { Row } from '../helpers/contract/record.ts';

const ORIGINAL = { name: 'Ada', city: 'Oslo' };
const answered = (status: number) => async () => ({ status });
const unanswered = async (): Promise<{ status: number }> => {
  throw new Error('no answer');
};

/** A history that has read ORIGINAL and then had `body` answered with `send`. */
async function after(body: Row, send: () => Promise<{ status: number }>, names?: string[]): Promise<RecordHistory> {
  const history = new RecordHistory(names && (() => names));
  history.took(ORIGINAL);
  await history.write(body, send).catch(() => undefined);
  return history;
}

describe('a reading is current', () => {
  const cases: { name: string; body: Row; send: () => Promise<{ status: number }>; reading: Row; current: boolean; indistinct: boolean }[] = [
    { name: 'when it shows a new value sent', body: { name: 'Bo' }, send: answered(200), reading: { name: 'Bo', city: 'Oslo' }, current: true, indistinct: false },
    { name: 'when it shows the target\'s own form of it (a value never held)', body: { name: 'Bo' }, send: answered(200), reading: { name: 'BO', city: 'Oslo' }, current: true, indistinct: false },
    { name: 'not when it shows the record before that update', body: { name: 'Bo' }, send: answered(200), reading: ORIGINAL, current: false, indistinct: false },
    { name: 'after a write of values held before, when the whole record is as that write makes it', body: { name: 'Ada' }, send: answered(200), reading: ORIGINAL, current: true, indistinct: true },
    { name: 'not after a write of values held before, when another field is not as known', body: { name: 'Ada' }, send: answered(200), reading: { name: 'Ada', city: 'Rome' }, current: false, indistinct: true },
    { name: 'after a refusal, when it is as known before it', body: { name: 'Bo' }, send: answered(401), reading: ORIGINAL, current: true, indistinct: true },
    { name: 'not after a refusal, when it differs from what was known', body: { name: 'Bo' }, send: answered(401), reading: { name: 'Bo', city: 'Oslo' }, current: false, indistinct: true },
    { name: 'whatever it shows after a write without an answer (applied or not)', body: { name: 'Bo' }, send: unanswered, reading: { name: 'Cy', city: 'Rome' }, current: true, indistinct: true },
  ];
  test.for(cases.map((c) => [c.name, c] as const))('%s', async ([, c]) => {
    const history = await after(c.body, c.send);
    expect(history.indistinct).toBe(c.indistinct);
    expect(history.current(c.reading)).toBe(c.current);
  });

  test('a value sent and refused is no proof later: an older reading may hold it', async () => {
    const history = await after({ name: 'Bo' }, answered(400));
    history.took(ORIGINAL);
    await history.write({ name: 'Bo' }, answered(200));
    expect(history.indistinct).toBe(true);
    expect(history.current({ name: 'Bo', city: 'Rome' })).toBe(false);
    expect(history.current({ name: 'Bo', city: 'Oslo' })).toBe(true);
  });

  test('without known fields, only the fields both readings carry are compared (a list shows less than a find)', async () => {
    const history = await after({ name: 'Bo' }, answered(401));
    expect(history.current({ city: 'Oslo' })).toBe(true);
    expect(history.current({ city: 'Rome' })).toBe(false);
  });

  test('a reading no older copy could show is novel: a value never read nor sent, or a field every reading carried gone', async () => {
    const history = await after({ name: 'Bo' }, answered(200));
    history.took({ name: 'Bo', city: 'Oslo' });
    // The record as it was before the update: an older copy may show it.
    expect(history.novel(ORIGINAL)).toBe(false);
    expect(history.novel({ name: 'Cy', city: 'Oslo' })).toBe(true);
    expect(history.novel({ name: 'Bo' })).toBe(true);
    // A field named like a stamp is judged like any other, until the target was measured to move it by itself.
    expect(history.novel({ name: 'Bo', city: 'Oslo', updatedAt: 'now' })).toBe(true);
    serverFields().fromReads('history', [{ updatedAt: 'a' }, { updatedAt: 'b' }, { updatedAt: 'c' }]);
    const learned = new RecordHistory(undefined, 'history');
    learned.took({ name: 'Bo', city: 'Oslo' });
    expect(learned.novel({ name: 'Bo', city: 'Oslo', updatedAt: 'now' })).toBe(false);
  });

  test('with known fields, one a reading carries and the other does not differs (null read back absent)', async () => {
    const history = await after({ name: 'Bo' }, answered(401), ['name', 'city']);
    expect(history.current({ name: 'Ada' })).toBe(false);
    expect(history.current(ORIGINAL)).toBe(true);
  });
});
