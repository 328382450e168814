/**
 * Signals through a run's life (helpers/command/run-stop.ts): before the clean-up ends, a second
 * signal exits at once saying what is left; once the target is cleaned up, the reports are
 * written whatever signals come, so that every ending writes its verdict and what is left.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { RunStop } from '../helpers/command/run-stop.ts';

afterEach(() => vi.restoreAllMocks());

function stopWithSignals() {
  const said: string[] = [];
  let handlers: [(s: string) => void, (s: string) => void] | undefined;
  let count = 0;
  const stop = new RunStop({
    runId: 'scr-20260101-5709aaaa', runTimeoutMs: 60_000, stopAt: Date.now() + 60_000,
    say: (t) => void said.push(t),
    interrupts: (first, second) => ((handlers = [first, second]), () => (handlers = undefined)),
    leftOnExit: () => 'Left on the target: nothing\n',
  });
  const signal = () => handlers?.[++count === 1 ? 0 : 1]('SIGINT');
  return { stop, said, signal };
}

test('a second signal during the clean-up exits at once (130), saying what is left', () => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  const { stop, said, signal } = stopWithSignals();
  signal();
  signal();
  expect(exit).toHaveBeenCalledWith(130);
  expect(said.join('')).toContain('SIGINT again: exiting at once.\nLeft on the target: nothing');
  stop.close();
});

test('signals while the reports are written (after the clean-up) do not end the run: each is told the reports come, and nothing exits', () => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  const { stop, said, signal } = stopWithSignals();
  signal();
  stop.cleanedUp();
  signal();
  signal();
  expect(exit).not.toHaveBeenCalled();
  expect(said.filter((t) => t.includes('the target is cleaned up; the reports are being written, then the run ends'))).toHaveLength(2);
  stop.close();
});
