import { describe, expect, test } from 'vitest';
import { onClock, pageArrived, readingList } from '../helpers/core/check-clock.ts';

// Issue 35: a check's time limit runs on while a list read of the run still gets its pages (a
// million customers is a thousand pages a read; the checks of a batch wait on one read another
// started), and only then: a check waiting while nothing moves is held to it.
describe('a check\'s clock', () => {
  test('runs on only while a list read is under way and its pages keep coming', async () => {
    let release!: () => void;
    const reader = onClock(() => readingList(() => new Promise<void>((resolve) => (release = resolve))));
    // A check of the batch that waits on that read without reading itself.
    const waiting = onClock(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));
    await new Promise((resolve) => setImmediate(resolve));
    pageArrived();
    expect(reader.waitsOnList(60_000)).toBe(true);
    expect(waiting.waitsOnList(60_000)).toBe(true);
    // Pages stopped coming for longer than the request timeout: the limits hold again.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(waiting.waitsOnList(10)).toBe(false);
    release();
    await Promise.all([reader.work, waiting.work]);
    // A read that just ended holds the limits off a moment more (the next phase's read is about to start)…
    pageArrived();
    expect(waiting.waitsOnList(60_000)).toBe(true);
    // …and no longer than the request timeout once no read goes.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(waiting.waitsOnList(10)).toBe(false);
  });
});
