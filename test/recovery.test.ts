/**
 * An outage during the clean-up. The after-run clean-up retries each undo with
 * backoff for a bounded time and verifies by reading back; `--recover <report-dir>` finishes,
 * from the run journal, what an earlier run could not undo. In process, against the reference.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { ApiClient } from '../helpers/http/client.ts';
import { Journal, outstanding } from '../helpers/safety/journal.ts';
import { recover } from '../helpers/safety/after-run-cleanup.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { compiledMain, runMain } from './support/cli.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));
const RUN = 'scr-20260101-abcdef12';

async function reference(robustness: string[] = []): Promise<RunningReference> {
  const ref = await startReference({ robustness });
  running.push(ref);
  return ref;
}

const targetOf = (ref: RunningReference): TargetConfig => ({
  baseUrl: ref.url, apiKey: ref.apiKey, vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 10_000, runId: RUN,
});

/**
 * What a run leaves when its clean-up cannot reach the target: a journal naming a customer it
 * created (and one whose create answer was lost, found by the marker only), a business record
 * and a team member it changed, with their snapshots. The reference is changed to match.
 */
function leftByARun(ref: RunningReference, dir: string): { journal: Journal; before: ReturnType<RunningReference['state']['snapshot']> } {
  const before = ref.state.snapshot();
  const journal = new Journal(join(dir, 'run-journal.jsonl'));
  journal.append({ kind: 'run', origin: new URL(ref.url).origin, runId: RUN });
  journal.append({ kind: 'snapshot', path: '/api/v1/business', record: before.business });
  const member = before.teamMembers[0];
  journal.append({ kind: 'snapshot', path: `/api/v1/team-members/${String(member.id)}`, record: member });
  const created = ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: `Customer ${RUN} create`, email: 'c@example.com' }, 'cus');
  journal.append({ kind: 'creating', listPath: '/api/v1/customers' });
  journal.append({ kind: 'created', path: `/api/v1/customers/${String(created.id)}`, listPath: '/api/v1/customers', id: created.id });
  ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: `Customer ${RUN} auth`, email: 'd@example.com' }, 'cus');
  journal.append({ kind: 'creating', listPath: '/api/v1/customers' });
  journal.append({ kind: 'wrote', path: '/api/v1/business', fields: ['name', 'currencyIso'] });
  ref.state.business = { ...ref.state.business, name: `Conformance Check Business ${RUN}`, currencyIso: 'GBP' === before.business.currencyIso ? 'EUR' : 'GBP' };
  journal.append({ kind: 'wrote', path: `/api/v1/team-members/${String(member.id)}`, fields: ['lastName'] });
  ref.state.teamMembers.set(String(member.id), { ...member, lastName: `Conformance ${RUN}` });
  return { journal, before };
}

describe('the after-run clean-up', () => {
  test('a 4 s outage: each undo is retried with backoff until it succeeds, and verified', async () => {
    const ref = await reference(['outage-4s']);
    const { journal, before } = leftByARun(ref, mkdtempSync(join(tmpdir(), 'scr-recovery-')));
    const client = new ApiClient(targetOf(ref));
    try {
      const recovery = await recover(client, journal, targetOf(ref), { cleanupTimeoutMs: 60_000 });
      expect(recovery.leftOnTarget).toEqual([]);
    } finally {
      await client.close();
    }
    expect(ref.state.snapshot()).toEqual(before);
  });

  // Every request answering 500, the sentinel's too, is an outage (the sentinel fails too), not the implementation's answer.
  test('a 4 s outage starting mid-run: the checks wait it out (the sentinel failed too), the run passes, and nothing is left', async () => {
    // Request 121: a read (a create met by an outage is not asked again, and its check is blocked); the frame's baseline reads the customers too since request 120 was chosen.
    const ref = await reference(['outage-4s-from:121']);
    const before = ref.state.snapshot();
    const out: string[] = [];
    const code = await (await compiledMain())(['--base-url', ref.url, '--report-dir', join(mkdtempSync(join(tmpdir(), 'scr-outage-')), 'reports')], { SCHEDULING_API_KEY: ref.apiKey }, { stdout: { write: (t: string) => out.push(t) }, stderr: { write: () => {} } });
    expect(code, out.join('').split('\n').filter((l) => /FAIL|BLKD/.test(l)).join('\n')).toBe(0);
    expect(out.join('')).toMatch(/Left on the target\n {2}nothing/);
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('the clean-up timeout bounds the retries: what is left is named', async () => {
    const ref = await reference(['outage-4s']);
    const { journal } = leftByARun(ref, mkdtempSync(join(tmpdir(), 'scr-recovery-')));
    const client = new ApiClient(targetOf(ref));
    try {
      const recovery = await recover(client, journal, targetOf(ref), { cleanupTimeoutMs: 1 });
      expect(recovery.leftOnTarget.map((l) => l.record)).toContain('/api/v1/business');
    } finally {
      await client.close();
    }
  });
});

describe('the journal', () => {
  test('a record a suite found lost and a clean-up deleted since is not lost; one deleted and then found lost stays lost', () => {
    const state = outstanding([
      { kind: 'lost', path: '/api/v1/team-members/a', problem: 'created and not removable' },
      { kind: 'deleted', path: '/api/v1/team-members/a' },
      { kind: 'deleted', path: '/api/v1/team-members/b' },
      { kind: 'lost', path: '/api/v1/team-members/b', problem: 'deleted and not re-created' },
    ]);
    expect([...state.lost.keys()]).toEqual(['/api/v1/team-members/b']);
  });
});

describe('--recover <report-dir>', () => {
  const recoverCommand = runMain;

  test('finishes from the journal what a run left (business, team member, customers by id and by marker), verifies, prints what is left', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-recover-'));
    const { before } = leftByARun(ref, dir);
    const run = await recoverCommand(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code, run.stderr).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
    expect(run.stdout).toMatch(/Left on the target: nothing/);
  });

  test('keeps a record of its own requests: recover-requests.jsonl and recover-exchanges.har, each request once, no key in them', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-recover-'));
    leftByARun(ref, dir);
    const run = await recoverCommand(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code, run.stderr).toBe(0);
    const log = readFileSync(join(dir, 'recover-requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; exchange: { id: string; request: { method: string; url: string } } });
    const sent = log.map((l) => `${l.phase} ${l.exchange.request.method} ${new URL(l.exchange.request.url).pathname}`);
    // The preflight, then the recovery: the customers deleted (by id and by marker), the business and the member put back and read back.
    expect(sent[0]).toMatch(/^preflight GET /);
    expect(sent).toEqual(expect.arrayContaining([
      expect.stringMatching(/^recovery DELETE \/api\/v1\/customers\/\S+$/),
      'recovery PATCH /api/v1/business',
      'recovery GET /api/v1/business',
      expect.stringMatching(/^recovery PATCH \/api\/v1\/team-members\/\S+$/),
    ]));
    expect(sent.filter((l) => l.startsWith('recovery DELETE'))).toHaveLength(2);
    expect(new Set(log.map((l) => l.exchange.id)).size).toBe(log.length);
    const har = JSON.parse(readFileSync(join(dir, 'recover-exchanges.har'), 'utf8')) as { log: { version: string; pages: { id: string }[]; entries: { pageref: string; request: { method: string; url: string } }[] } };
    expect(har.log.version).toBe('1.2');
    expect(har.log.pages.map((p) => p.id)).toEqual(['preflight', 'recovery']);
    expect(har.log.entries.map((e) => `${e.pageref} ${e.request.method} ${new URL(e.request.url).pathname}`)).toEqual(sent);
    for (const file of ['recover-requests.jsonl', 'recover-exchanges.har']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.includes(ref.apiKey), file).toBe(false);
      expect(text, file).toContain('$SCHEDULING_API_KEY');
    }
  });

  test('its files are scanned for the keys like a run\'s: a find deletes the file and exits 2', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-recover-'));
    const { journal } = leftByARun(ref, dir);
    // A journal written by hand (or by a broken version) that holds the key itself.
    journal.append({ kind: 'deleted', path: `/api/v1/customers/${ref.apiKey}` });
    const run = await recoverCommand(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`SECRET LEAK: $SCHEDULING_API_KEY in ${join(dir, 'run-journal.jsonl')}`);
    expect(run.stderr).not.toContain(ref.apiKey);
    expect(existsSync(join(dir, 'run-journal.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'recover-exchanges.har'))).toBe(true);
  });

  test('refuses a journal whose baseline was taken from another origin', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-recover-'));
    writeFileSync(join(dir, 'run-journal.jsonl'), `${JSON.stringify({ kind: 'run', origin: 'https://staging.example.com', runId: RUN })}\n`);
    const before = ref.state.snapshot();
    const run = await recoverCommand(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/https:\/\/staging\.example\.com/);
    expect(ref.state.snapshot()).toEqual(before);
  });
});

describe('--recover of two runs that overlapped', () => {
  const OLDER = 'scr-20260101-01d01d01';
  const NEWER = 'scr-20260101-7e7e7e02';

  /**
   * What two runs that wrote at once leave (two runs that took no lease, as runs once did): the
   * older one marked the name and blanked the address; the newer one, which found those values
   * in its baseline, marked the address and blanked the website. Each met the other as interference.
   */
  function overlapped(ref: RunningReference) {
    const before = ref.state.snapshot();
    const origin = new URL(ref.url).origin;
    const dirs = [mkdtempSync(join(tmpdir(), 'scr-older-')), mkdtempSync(join(tmpdir(), 'scr-newer-'))];
    const [older, newer] = dirs.map((dir) => new Journal(join(dir, 'run-journal.jsonl')));
    older.append({ kind: 'run', origin, runId: OLDER, at: '2026-01-01T10:00:00.000Z' });
    older.append({ kind: 'snapshot', path: '/api/v1/business', record: before.business });
    older.append({ kind: 'wrote', path: '/api/v1/business', fields: ['name', 'address'] });
    ref.state.business = { ...ref.state.business, name: `Conformance Check Business ${OLDER}`, address: '' };
    newer.append({ kind: 'run', origin, runId: NEWER, at: '2026-01-01T10:00:09.600Z' });
    newer.append({ kind: 'snapshot', path: '/api/v1/business', record: ref.state.snapshot().business });
    newer.append({ kind: 'wrote', path: '/api/v1/business', fields: ['address', 'websiteUrl'] });
    ref.state.business = { ...ref.state.business, address: `1 Example Street ${NEWER}`, websiteUrl: '' };
    older.append({ kind: 'interference', path: '/api/v1/business', by: NEWER });
    newer.append({ kind: 'interference', path: '/api/v1/business', by: OLDER });
    // Each left a customer: the older its own, the newer its lease.
    for (const [journal, label] of [[older, `Customer ${OLDER} create`], [newer, `Customer ${NEWER} lease-1767261609`]] as const) {
      const created = ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: label, email: `${label.length}@example.com` }, 'cus');
      journal.append({ kind: 'created', path: `/api/v1/customers/${String(created.id)}`, listPath: '/api/v1/customers', id: created.id });
    }
    return { before, dirs };
  }

  test('each journal alone cannot put the record back (the other run\'s values are not its to undo), and says to give both', async () => {
    const ref = await reference();
    const { before, dirs } = overlapped(ref);
    const run = await runMain(['--base-url', ref.url, '--recover', dirs[0]], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`address not put back: ${NEWER} changed the record during the run (when it is done, \`--recover\` this run's report directory and that run's together`);
    expect(ref.state.snapshot().business).not.toEqual(before.business);
  });

  test('both journals, given in any order: the newer run is undone first, then the older, so that every field ends as the older run found it; the data as before both', async () => {
    const ref = await reference();
    const { before, dirs } = overlapped(ref);
    const run = await runMain(['--base-url', ref.url, '--recover', dirs[0], '--recover', dirs[1]], { SCHEDULING_API_KEY: ref.apiKey });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout.indexOf(`Recovering run ${NEWER}`)).toBeLessThan(run.stdout.indexOf(`Recovering run ${OLDER}`));
    expect(ref.state.snapshot()).toEqual(before);
    for (const dir of dirs) expect(existsSync(join(dir, 'recover-requests.jsonl'))).toBe(true);
  });
});

describe('a report directory reused (a fixed --report-dir, as in CI)', () => {
  test('an interrupted run\'s journal is kept for the --recover it printed, whatever later runs in the folder do; --recover takes the journal file too; finished runs\' journals are pruned', async () => {
    const first = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-reused-'));
    const { before } = leftByARun(first, dir);
    // The next run in the folder, against another target, finishes.
    const other = await reference();
    // A run that changes the target (a lease, a business write, a journal of its own) and finishes: what it judges is not looked at here.
    const next = await runMain(['--base-url', other.url, '--report-dir', dir, '--only', '^OP-DOCUMENTED:(retrieve|update)Business '], { SCHEDULING_API_KEY: other.apiKey, SCHEDULING_EXPIRED_KEY: other.expiredKey });
    expect(next.code, next.stderr).toBe(0);
    const journals = () => readdirSync(dir).filter((f) => f.startsWith('run-journal')).sort();
    expect(journals()).toEqual(['run-journal.jsonl', `run-journal.${RUN}.jsonl`]);
    // The --recover the interrupted run printed still undoes it; the finished run's journal is not another target's to refuse.
    const recovered = await runMain(['--base-url', first.url, '--recover', dir], { SCHEDULING_API_KEY: first.apiKey });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(first.state.snapshot()).toEqual(before);
    // Its journal file, given as such, is taken too (nothing is left now: the recovery verifies and says so).
    const again = await runMain(['--base-url', first.url, '--recover', join(dir, `run-journal.${RUN}.jsonl`)], { SCHEDULING_API_KEY: first.apiKey });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Left on the target: nothing/);
    // A third run prunes the journals of the runs that finished (both, now), keeping its own.
    const third = await runMain(['--base-url', other.url, '--report-dir', dir, '--only', '^OP-DOCUMENTED:retrieveBusiness '], { SCHEDULING_API_KEY: other.apiKey });
    expect(third.code, third.stderr).toBe(0);
    expect(journals()).toEqual(['run-journal.jsonl']);
  });
});

describe('a report directory another run is writing to', () => {
  test('a run on this machine still going there (its journal unfinished, its process alive): the next run in the folder is a one-line exit 2 that sent nothing and took nothing of it; once that process is gone, the folder is the next run\'s', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-busy-'));
    const live = spawn('sleep', ['60']);
    try {
      const { journal } = leftByARun(ref, dir);
      // leftByARun's run, as if it were going on in another process of this machine.
      writeFileSync(journal.file, readFileSync(journal.file, 'utf8').replace('"kind":"run",', `"kind":"run","host":${JSON.stringify(hostname())},"pid":${live.pid},`));
      const held = readFileSync(journal.file, 'utf8');
      writeFileSync(join(dir, 'requests.jsonl'), '');
      const snapshot = ref.state.snapshot();
      const turned = await runMain(['--base-url', ref.url, '--report-dir', dir, '--only', '^OP-DOCUMENTED:retrieveBusiness '], { SCHEDULING_API_KEY: ref.apiKey });
      expect(turned.code).toBe(2);
      expect(turned.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^scheduling-conformance: --report-dir ${dir}: run ${RUN} \\(process ${live.pid} on this machine\\) is writing there; give each run a report directory of its own; nothing was sent to the target$`))]);
      expect(readFileSync(journal.file, 'utf8')).toBe(held);
      expect(readdirSync(dir).sort()).toEqual(['requests.jsonl', 'run-journal.jsonl']);
      expect(ref.state.snapshot()).toEqual(snapshot);
    } finally {
      live.kill();
    }
    await new Promise((resolve) => live.once('exit', resolve));
    const next = await runMain(['--base-url', ref.url, '--report-dir', dir, '--only', '^OP-DOCUMENTED:retrieveBusiness '], { SCHEDULING_API_KEY: ref.apiKey });
    expect(next.stderr).not.toMatch(/is writing there/);
    expect(readdirSync(dir)).toContain(`run-journal.${RUN}.jsonl`);
  });
});

describe('this folder\'s own stopped run', () => {
  test('its live lease does not read as another run at work: the next run in the folder says it is its own stopped run and points to --recover, which frees the target at once', async () => {
    const ref = await reference();
    const dir = mkdtempSync(join(tmpdir(), 'scr-own-'));
    const { journal, before } = leftByARun(ref, dir);
    // Stopped by a second Ctrl-C: its lease was refreshed a moment ago and lives on for LEASE_TTL_MS.
    const lease = ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: `Customer ${RUN} lease-${Math.floor(Date.now() / 1000)}`, email: 'lease@example.com' }, 'cus');
    journal.append({ kind: 'lease', path: `/api/v1/customers/${String(lease.id)}` });
    const env = { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey };
    const blocked = await runMain(['--base-url', ref.url, '--report-dir', dir], env);
    expect(blocked.code).toBe(2);
    const file = join(dir, `run-journal.${RUN}.jsonl`);
    expect(blocked.stderr).toContain(`run ${RUN}, which holds this target, is this machine's own run, stopped before it finished (its journal is ${file}); nothing was changed: \``);
    expect(blocked.stderr).toContain(`--recover ${file}\` undoes what it left and frees the target at once`);
    // --sweep, asked from the same folder, says the same: not a run still going.
    const swept = await runMain(['--base-url', ref.url, '--sweep', '--report-dir', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stdout).toMatch(new RegExp(`Sweep: skipped \\d+ customer\\(s\\) of run ${RUN}, this machine's own run, stopped before it finished \\(its lease was last seen`));
    expect(swept.stdout).toContain(`Sweep: run ${RUN} is this machine's own run, stopped before it finished; its values are in /api/v1/business`);
    expect(swept.stdout).toContain(`--recover ${file} undoes what it left and frees the target at once`);
    expect(swept.stdout).not.toMatch(/still going/);
    expect(blocked.stderr).not.toMatch(/wait for it to finish/);
    const recovered = await runMain(['--base-url', ref.url, '--recover', dir], { SCHEDULING_API_KEY: ref.apiKey });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
    // The target is free again: a run that changes it (and so looks for leases and foreign markers first) goes, and finishes.
    const next = await runMain(['--base-url', ref.url, '--report-dir', dir, '--only', '^OP-DOCUMENTED:(retrieve|update)Business '], env);
    expect(next.code, next.stderr).toBe(0);
  });
});
