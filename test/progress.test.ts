/**
 * A run a person can follow (issue 33 §7): each lane's heading once, its lines together in
 * contract order at any --concurrency; a live progress line on a terminal; plain lines in a log
 * that has been quiet, the clean-up included.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { TerminalReporter } from '../helpers/results/reporters/terminal.ts';
import { Progress } from '../helpers/results/reporters/progress.ts';
import type { CollectedCheck } from '../helpers/results/check-outcomes.ts';
import { startReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';

afterEach(() => void vi.useRealTimers());

const checkOf = (id: string, resource: string): CollectedCheck => ({
  id, requirement: id, level: 'MUST', clause: '4', title: `${id} title`, resource, outcome: 'passed', durationMs: 1, exchanges: [], notes: [],
});

test('lanes side by side: the first lane prints as it goes, the others wait their turn, each heading once', () => {
  let out = '';
  const terminal = new TerminalReporter({ write: (t: string) => (out += t) }, false);
  terminal.lane('business', true);
  terminal.lane('customers', true);
  terminal.lane('team-members', true);
  terminal.check(checkOf('B1', 'business'));
  terminal.check(checkOf('C1', 'customers'));
  terminal.check(checkOf('T1', 'team-members'));
  expect(out).toBe('\nbusiness\n  ✓ pass MUST   B1 B1 title (1 ms)\n');
  terminal.lane('team-members', false);
  terminal.check(checkOf('C2', 'customers'));
  terminal.check(checkOf('B2', 'business'));
  terminal.lane('business', false);
  // Customers take the floor with what waited, and go on live; team members, ended, wait for them.
  terminal.check(checkOf('C3', 'customers'));
  terminal.lane('customers', false);
  const headings = out.split('\n').filter((l) => /^[a-z-]+$/.test(l));
  expect(headings).toEqual(['business', 'customers', 'team-members']);
  expect([...out.matchAll(/MUST +([BCT]\d) /g)].map((m) => m[1])).toEqual(['B1', 'B2', 'C1', 'C2', 'C3', 'T1']);
});

test('on a terminal one live line under the check lines; in a log a plain line once the output has been quiet for 15 s', () => {
  vi.useFakeTimers();
  let live = '';
  let log = '';
  const terminal = { write: (t: string) => (live += t), isTTY: true };
  const progress = new Progress(terminal, { write: (t: string) => (log += t) });
  progress.total = 10;
  progress.start();
  progress.lane('business', true);
  vi.advanceTimersByTime(1000);
  expect(live).toBe('\r\x1b[K0/10 checks · business · 1 s');
  progress.write({ write: (t: string) => (live += t) }, 'a check line\n');
  expect(live.endsWith('\r\x1b[Ka check line\n\r\x1b[K0/10 checks · business · 1 s')).toBe(true);
  progress.stop();
  expect(live.endsWith('\r\x1b[K')).toBe(true);
  expect(log).toBe('');

  let plain = '';
  const quiet = new Progress(undefined, { write: (t: string) => (plain += t) });
  quiet.start();
  vi.advanceTimersByTime(14_000);
  expect(plain).toBe('');
  quiet.cleaningUp(() => 3);
  vi.advanceTimersByTime(2000);
  expect(plain).toBe('… clean-up: 3 records left to put back · 15 s\n');
  quiet.stop();
});

test('a whole run at --concurrency 3 names each lane once, in contract order', async () => {
  const ref = await startReference();
  try {
    const run = await runInProcess(['--base-url', ref.url, '--concurrency', '3'], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n').filter((l) => /^(operations|business|customers|team-members)$/.test(l))).toEqual(['operations', 'business', 'customers', 'team-members']);
  } finally {
    await ref.close();
  }
});
