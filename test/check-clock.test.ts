import { describe, expect, test } from 'vitest';
import { onClock, pageArrived, readingList } from '../helpers/core/check-clock.ts';

// Issue 35: a check's time limit runs on while a list it waits for still gets its pages (a million
// customers is a thousand pages a read), and only then: a check waiting on nothing that moves is held to it.
describe('a check\'s clock', () => {
  test('waits on a list only while the check reads one and its pages keep coming', async () => {
    let release!: () => void;
    let clock!: ReturnType<typeof onClock<void>>;
    const reading = new Promise<void>((resolve) => (release = resolve));
    clock = onClock(async () => {
      await readingList(() => reading);
      // The read is over: nothing the check waits for moves any more.
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    await new Promise((resolve) => setImmediate(resolve));
    pageArrived();
    expect(clock.waitsOnList(60_000)).toBe(true);
    // Pages stopped coming for longer than the request timeout: the limit holds again.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(clock.waitsOnList(10)).toBe(false);
    release();
    await clock.work;
    pageArrived();
    expect(clock.waitsOnList(60_000)).toBe(false);
  });

  test('another check\'s list read does not hold this check\'s limit off', async () => {
    let release!: () => void;
    const other = onClock(() => readingList(() => new Promise<void>((resolve) => (release = resolve))));
    const idle = onClock(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));
    await new Promise((resolve) => setImmediate(resolve));
    pageArrived();
    expect(other.waitsOnList(60_000)).toBe(true);
    expect(idle.waitsOnList(60_000)).toBe(false);
    release();
    await Promise.all([other.work, idle.work]);
  });
});
