/**
 * A run killed hard whose journal is lost. The next run refuses to start, --sweep
 * names the values it left and how to free the target, and --release frees it: with originals
 * from an earlier run's report directory, the business record is as it was before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { parseOptions } from '../helpers/command/options.ts';
import { UsageError } from '../helpers/core/errors.ts';
import { unmarkValue } from '../helpers/safety/release.ts';
import { markValue, runIdsIn } from '../helpers/records/run-marker.ts';
import { runCli, runInProcess, runMain } from './support/cli.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));
const RUN = 'scr-20260101-abcdef12';

const command = runMain;
/** A report directory of a test's own: the project's reports/ is the user's. */
const scratchReports = () => join(mkdtempSync(join(tmpdir(), 'scr-release-')), 'reports');

describe('a run killed hard, its report directory lost', () => {
  test('the next run exits 2; --sweep names the marker and the fields; --release frees the target; the next run passes, the business record as before', async () => {
    const ref = await startReference();
    running.push(ref);
    const env = { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey };
    // An earlier run's report directory: its journal holds the records as they were (the originals).
    const earlier = join(mkdtempSync(join(tmpdir(), 'scr-earlier-')), 'reports');
    // The business lane's, as the record the killed run is stopped in is the business's.
    expect((await runInProcess(['--base-url', ref.url, '--report-dir', earlier, '--only', '^BUS-'], env)).code).toBe(0);
    const before = ref.state.snapshot();

    // Killed with SIGKILL (a child process) in the business lane, once the record holds its marker; its reports are gone.
    let pid = 0;
    const killed = runCli(['--base-url', ref.url], env, { onSpawn: (p) => (pid = p) });
    while (!runIdsIn(ref.state.business.name).length) await new Promise((resolve) => setTimeout(resolve, 5));
    process.kill(pid, 'SIGKILL');
    const gone = await killed;
    rmSync(gone.reportDir, { recursive: true, force: true });
    const runId = runIdsIn(ref.state.business.name)[0];

    const next = await runInProcess(['--base-url', ref.url], env);
    expect(next.code).toBe(2);
    expect(next.stderr).toContain(`another conformance run is changing this target (run ${runId}, its lease was last seen`);

    const swept = await command(['--base-url', ref.url, '--sweep'], env);
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stdout).toMatch(new RegExp(`Sweep: run ${runId} is still going \\(its lease was last seen [^)]+\\); its values are in /api/v1/business \\((\\w+, )*name(, \\w+)*\\)\\. If it was stopped \\(a killed job\\), \\S+ \\S+ --base-url ${ref.url} --release ${runId} \\[--from`));

    // Without --yes it only lists.
    const snapshot = ref.state.snapshot();
    const listed = await command(['--base-url', ref.url, '--release', runId, '--from', earlier], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`Release of run ${runId} \\(its lease was last seen .* s ago: it may still be going; release only a run you know was stopped\\):`));
    expect(listed.stdout).toMatch(/ {2}write \/api\/v1\/business: .*name "(?:[^"\\]|\\.)*scr-(?:[^"\\]|\\.)*" -> "(?:[^"\\]|\\.)*"/);
    expect(listed.stdout).toMatch(/ {2}delete \/api\/v1\/customers\/\S+ \(lastName holds run scr-\S+: its lease\)/);
    expect(listed.stdout).toContain('Run again with --yes to do it.');
    expect(ref.state.snapshot()).toEqual(snapshot);

    const released = await command(['--base-url', ref.url, '--release', runId, '--from', earlier, '--yes'], env);
    expect(released.code, released.stdout + released.stderr).toBe(0);
    expect(released.stdout).toMatch(/Left on the target: nothing/);
    expect(ref.state.snapshot()).toEqual(before);

    // A run that changes the target (so looks for leases and foreign markers first) goes again, and passes.
    const after = await runInProcess(['--base-url', ref.url, '--only', '^BUS-'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('without originals, --release takes the marker out of the values as found: later runs start again', async () => {
    const ref = await startReference();
    running.push(ref);
    const env = { SCHEDULING_API_KEY: ref.apiKey };
    // A URL with a path: one without comes back as its normal form, with a '/' (as URL writes it).
    const own: Record<string, unknown> = { ...ref.state.business, websiteUrl: 'https://www.example.com/shop' };
    ref.state.business = { ...own, name: markValue(String(own.name), RUN, 'text'), email: markValue(String(own.email), RUN, 'email'), websiteUrl: markValue(String(own.websiteUrl), RUN, 'url') };
    // No lease: the run was stopped before leases, or its lease is gone.
    expect((await command(['--base-url', ref.url, '--only', '^BUS-GET-200', '--report-dir', scratchReports()], env)).stderr).toContain(`run ${RUN} left its values on this target and is not going (it holds no lease on the target)`);
    const swept = await command(['--base-url', ref.url, '--sweep', '--yes'], env);
    expect(swept.code).toBe(2);
    expect(swept.stdout).toMatch(new RegExp(`/api/v1/business: name, email, websiteUrl hold values of run ${RUN}, which is not going: \`--release ${RUN}\` puts them back`));
    const released = await command(['--base-url', ref.url, '--release', RUN, '--yes'], env);
    expect(released.code, released.stdout + released.stderr).toBe(0);
    expect(ref.state.business).toEqual(own);
    expect((await command(['--base-url', ref.url, '--only', '^BUS-GET-200', '--report-dir', scratchReports()], env)).code).toBe(0);
  });

  test('the marker comes out of each form it was put in', () => {
    for (const [value, kind] of [['Acme', 'text'], ['owner@shop.test', 'email'], ['https://shop.test/a?x=1', 'url'], ['https://shop.test/a', 'url']] as const) {
      expect(unmarkValue(markValue(value, RUN, kind)!, RUN), value).toBe(value);
    }
  });

  test('usage: --release needs a run id as --sweep names it, --from only with --release and an existing path, --yes confirms it; one line each', () => {
    expect(() => parseOptions(['--release', 'abc'], {})).toThrow(UsageError);
    expect(() => parseOptions(['--from', '.'], {})).toThrow(/--from only gives --release/);
    expect(() => parseOptions(['--release', RUN, '--from', '/no/such/dir'], {})).toThrow(/--from \/no\/such\/dir: no such file or directory/);
    expect(() => parseOptions(['--release', RUN, '--sweep'], {})).toThrow(UsageError);
    expect(parseOptions(['--release', RUN, '--yes'], {})).toMatchObject({ release: RUN, sweepYes: true });
  });
});
