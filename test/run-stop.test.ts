/**
 * Signals through a run's life (helpers/command/run-stop.ts): a second signal cuts the checks and
 * the clean-up short, not the reports; a third exits at once saying in one line what is left;
 * once the target is cleaned up, a second signal is told the reports come.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { RunStop } from '../helpers/command/run-stop.ts';

afterEach(() => vi.restoreAllMocks());

function stopWithSignals() {
  const said: string[] = [];
  let handlers: [(s: string) => void, (s: string, count: number) => void] | undefined;
  let count = 0;
  const stop = new RunStop({
    runId: 'scr-20260101-5709aaaa', runTimeoutMs: 60_000, stopAt: Date.now() + 60_000,
    say: (t) => void said.push(t),
    interrupts: (first, again) => ((handlers = [first, again]), () => (handlers = undefined)),
    leftOnExit: () => 'Left on the target: nothing\n',
  });
  const signal = () => (++count === 1 ? handlers?.[0]('SIGINT') : handlers?.[1]('SIGINT', count));
  return { stop, said, signal };
}

test('a second signal during the clean-up cuts it short, not the run: what is under way is given up for what the journal says; a third exits at once (130), saying what is left', async () => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  const { stop, said, signal } = stopWithSignals();
  signal();
  const cleanUp = stop.unlessCut(new Promise<string>(() => {}), () => 'from the journal');
  signal();
  expect(exit).not.toHaveBeenCalled();
  expect(stop.cut.signal.aborted).toBe(true);
  expect(said.join('')).toContain('SIGINT again: the clean-up is cut short; the reports are written with what is left on the target');
  await expect(cleanUp).resolves.toBe('from the journal');
  signal();
  expect(exit).toHaveBeenCalledWith(130);
  expect(said.at(-1)).toBe('\nSIGINT again: exiting at once. Left on the target: nothing\n');
  stop.close();
});

test('a second signal while the reports are written (after the clean-up) does not end the run: it is told the reports come', () => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  const { stop, said, signal } = stopWithSignals();
  signal();
  stop.cleanedUp();
  signal();
  expect(exit).not.toHaveBeenCalled();
  expect(stop.cut.signal.aborted).toBe(false);
  expect(said.at(-1)).toContain('the reports are being written, then the run ends');
  stop.close();
});
