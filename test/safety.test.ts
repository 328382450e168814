/**
 * A target that misbehaves: against the reference implementation with a misbehaviour switched on,
 * the run ends in bounded time, leaves the target exactly as it found it, and never shows the key.
 * "Leaves nothing behind" = the reference's state before and after the run is the same.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceOptions, type RunningReference } from '../reference/server.ts';
import { runCli, runInProcess, type CliRun } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';
import { expectNoKeys, reportFiles } from './support/safety.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REQUEST_LOG_FILE } from '../helpers/results/report-files.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

async function reference(options: ReferenceOptions): Promise<RunningReference> {
  const ref = await startReference(options);
  running.push(ref);
  return ref;
}

function env(ref: RunningReference): Record<string, string> {
  return { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey };
}

function expectSafe(run: CliRun, ref: RunningReference, before: ReturnType<RunningReference['state']['snapshot']>): void {
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(ref.state.snapshot()).toEqual(before);
  expectNoKeys(run, [ref.apiKey, ref.expiredKey]);
}

type Result = ReturnType<typeof readResult> & { leftOnTarget: { record: string; problem: string }[] };
const result = (run: CliRun) => readResult(run) as Result;
const check = (run: CliRun, id: string) => result(run).checks.find((c) => c.id === id);

describe.concurrent('a misbehaving target', () => {
  test('a target that echoes the keys encoded (base64, base64url, as Basic credentials) in its error bodies: no form of them reaches the terminal, result.json, report.html, JUnit, the HAR, requests.jsonl or the summary', async () => {
    const ref = await reference({ robustness: ['echo-key-encoded'] });
    const before = ref.state.snapshot();
    const summary = join(mkdtempSync(join(tmpdir(), 'scr-summary-')), 'summary.md');
    const run = await runInProcess(['--base-url', ref.url, '--summary', summary], env(ref), undefined, { resultOnly: false });
    expect(run.code, run.stderr).toBe(0);
    const files = [...reportFiles(run), summary];
    for (const name of ['result.json', 'report.html', 'junit.xml', 'exchanges.har', REQUEST_LOG_FILE]) expect(files).toContain(join(run.reportDir, name));
    // The echo reached the reports, redacted: the target did send the keys.
    expect(readFileSync(join(run.reportDir, REQUEST_LOG_FILE), 'utf8')).toContain('<$SCHEDULING_API_KEY, base64>');
    expect(readFileSync(join(run.reportDir, REQUEST_LOG_FILE), 'utf8')).toContain('<$SCHEDULING_EXPIRED_KEY, base64');
    expectNoKeys(run, [ref.apiKey, ref.expiredKey], files);
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('503 with Retry-After on every 5th request: the run completes, retries show, nothing is left behind', async () => {
    const ref = await reference({ robustness: ['unavailable-every-5th'] });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url], env(ref), undefined, { resultOnly: false });
    // A conformant target that is briefly unavailable is still conformant: the retries absorb it.
    expect(run.code, run.stdout.split('\n').filter((l) => /FAIL/.test(l)).join('\n')).toBe(0);
    expectSafe(run, ref, before);
    const exchanges = result(run).checks.flatMap((c) => c.exchanges);
    const retried = exchanges.filter((e) => e.attempt > 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(result(run).leftOnTarget).toEqual([]);
  });

  // The target says "not now" to the end (503 on every retry): no verdict rests on that answer,
  // in the check that sent the request or in those that judge its outcome (a shared step).
  // Operations turned away at once block only what needed each, so each is judged apart in one run; the
  // retrieval, the sentinel the others are told from an outage by, in a run of its own.
  test.for([['findCustomer, updateBusiness and updateTeamMember', ['findCustomer', 'updateBusiness', 'updateTeamMember']], ['retrieveBusiness', ['retrieveBusiness']]] as const)('%s turned away to the end: the checks that needed each are blocked by the target, none failed or passed on it; incomplete, exit 2, data as found', async ([, ops]) => {
    const ref = await reference({ robustness: ops.map((op) => `unavailable:${op}`) });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url], env(ref));
    expect(run.code, run.stderr).toBe(2);
    const checks = result(run).checks;
    expect(checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    expect(checks.filter((c) => c.exchanges.some((e) => e.response?.status === 503) && c.outcome !== 'blocked').map((c) => c.id)).toEqual([]);
    for (const op of ops) expect(check(run, `OP-DOCUMENTED:${op}`)?.reason, op).toMatch(/^blocked by the target: \w+ \/api\/v1\/\S+ answered 503 each of the 4 times it was asked \(the target says "not now"\)/);
    expect(result(run)).toMatchObject({ verdict: 'incomplete', leftOnTarget: [] });
    expectSafe(run, ref, before);
  });

  // Alone in this file: the reference answers from this process, whose other tests run the command in process.
  // A child process: the command must end by itself with a request still hanging (no socket keeps it alive).
  test.sequential('one endpoint hanging: no answer proves nothing, so its checks are blocked by the environment with "no answer in N s", never failed; the run ends in bounded time (exit 2) and cleans up', async () => {
    const ref = await reference({ robustness: ['hang:findCustomer'] });
    const before = ref.state.snapshot();
    const started = Date.now();
    const run = await runCli(['--base-url', ref.url, '--timeout', '1000'], env(ref));
    // Each hanging request costs its timeout and one sentinel; a busy 2-core machine is 5-7x slower.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(run.code, run.stderr).toBe(2);
    expect(check(run, 'OP-DOCUMENTED:findCustomer')).toMatchObject({ outcome: 'blocked', reason: expect.stringMatching(/^blocked by the environment: GET \/api\/v1\/customers\/\S+ got no answer \(no answer in 1 s\)/) });
    expect(result(run).checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    expectSafe(run, ref, before);
  });

  // Alone in this file: the reference answers from this process, whose other tests run the command in process.
  test.sequential('the run timeout: no new checks start, the run cleans up and exits 2', async () => {
    const ref = await reference({ robustness: ['slow'] });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, '--run-timeout', '3'], env(ref));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/run timeout/);
    // Under load the timeout may strike before the first check: then no check ran at all.
    expect(result(run)).toMatchObject({ stopped: 'run-timeout' });
    expectSafe(run, ref, before);
  });

  test('a 307 to another origin: the other origin never sees the key (nor any request)', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const ref = await reference({
        robustness: ['redirect:retrieveBusiness', 'redirect:findTeamMember'],
        redirectTo: `http://127.0.0.1:${(other.address() as AddressInfo).port}`,
      });
      const before = ref.state.snapshot();
      const run = await runInProcess(['--base-url', ref.url], env(ref));
      expect(run.code, run.stderr).toBe(1);
      expect(seen).toEqual([]);
      expect(check(run, 'OP-DOCUMENTED:retrieveBusiness')?.reason).toMatch(/answered 307/);
      expectSafe(run, ref, before);
    } finally {
      other.close();
    }
  });

  // The 5 MiB cap is the suite's limit, not the target's failure.
  test('a 20 MiB body: the check is blocked by the suite, naming --max-body-mib, never failed; exit 2; memory stays bounded', async () => {
    const ref = await reference({ robustness: ['huge-body:findTeamMember'] });
    const before = ref.state.snapshot();
    const run = await runCli(['--base-url', ref.url], env(ref));
    expect(run.code, run.stderr).toBe(2);
    expect(result(run).checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    expect(check(run, 'OP-DOCUMENTED:findTeamMember')).toMatchObject({ outcome: 'blocked', reason: expect.stringMatching(/^blocked by the suite: GET \/api\/v1\/team-members\/\S+: response body larger than 5 MiB, the suite's limit \(--max-body-mib raises it\)/) });
    // The whole command (vitest, its worker, the transpiler) peaks near 380 MiB on any run; a body
    // read whole would add its size several times over. test/http-safety.test.ts measures the cap itself.
    const { resources } = result(run) as unknown as { resources: { maxRssMiB: number } };
    expect(resources.maxRssMiB).toBeLessThan(480);
    expectSafe(run, ref, before);
  });

  test('a gateway in front of the target answers HTML 502/504 pages for 3 s mid-run: waited out, exit 0, data as found', async () => {
    const ref = await reference({ robustness: ['gateway-outage-3s-from:60'] });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url], env(ref));
    expect(run.code, run.stdout.split('\n').filter((l) => /FAIL|BLKD/.test(l)).join('\n')).toBe(0);
    const exchanges = result(run).checks.flatMap((c) => c.exchanges);
    expect(exchanges.filter((e) => e.response?.status === 502 || e.response?.status === 504).length).toBeGreaterThan(0);
    expect(result(run).leftOnTarget).toEqual([]);
    expectSafe(run, ref, before);
  });

  test('the key revoked mid-run: exit 2 "the key is no longer accepted", nothing failed, what the key no longer allows undoing is named with --recover', async () => {
    const ref = await reference({ robustness: ['key-revoked-from:60'] });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, '--retry-budget', '2'], env(ref));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/could not test: the key is no longer accepted \(GET \/api\/v1\/business, the request that worked at the start, answered 401 to the valid key\); 3 checks in a row were blocked by the environment/);
    expect(result(run)).toMatchObject({ stopped: 'environment', verdict: 'incomplete' });
    expect(result(run).checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    // The business record is changed with the key the target no longer accepts: left, named, and how to finish it.
    expect(result(run).leftOnTarget.map((l) => l.record)).toEqual(['/api/v1/business']);
    expect(run.stderr).toContain(`--recover ${run.reportDir}`);
    // Everything the key still reaches is as found.
    const after = ref.state.snapshot();
    expect({ ...after, business: before.business }).toEqual(before);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    expectNoKeys(run, [ref.apiKey, ref.expiredKey]);
  });

  test('garbage answers (HTML error page, truncated JSON): checks fail with an excerpt, no crash', async () => {
    const ref = await reference({ robustness: ['html:retrieveBusiness', 'truncated-json:findTeamMember'] });
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url], env(ref));
    expect(run.code, run.stderr).toBe(1);
    expect(check(run, 'OP-DOCUMENTED:updateBusiness')?.reason).toMatch(/not JSON.*Bad Gateway/);
    expect(check(run, 'OP-DOCUMENTED:updateTeamMember')?.reason).toMatch(/not JSON/);
    expectSafe(run, ref, before);
  });

  test('a created record whose answer is lost is found by the run marker and deleted', async () => {
    const ref = await reference({ robustness: ['not-json:createCustomer'] });
    const before = ref.state.snapshot();
    // Every create of the customers' checks answers "OK": each is looked for by its marker at once.
    const run = await runInProcess(['--base-url', ref.url, '--only', '^CUS-(CREATE|ISOLATION)'], env(ref));
    expect(run.code, run.stderr).toBe(1);
    expect(result(run).leftOnTarget).toEqual([]);
    expectSafe(run, ref, before);
  });

  test('a create whose answer is lost while the list cannot be read whole: nothing more is created, the run ends INCOMPLETE and names the collection and the marker', async () => {
    const ref = await reference({ robustness: ['create-lost-list-down'] });
    const known = new Set(ref.state.snapshot().customers.map((c) => String(c.id)));
    // The customers' creates alone: the first after the lease is lost; the isolation checks' second creates come after it.
    const run = await runInProcess(['--base-url', ref.url, '--only', '^CUS-(CREATE|ISOLATION)', '--concurrency', '1', '--cleanup-timeout', '0'], env(ref));
    expect(run.code, run.stderr).toBe(2);
    expect(result(run).verdict).toBe('incomplete');
    const left = ref.state.snapshot().customers.filter((c) => !known.has(String(c.id)));
    expect(left).toHaveLength(1);
    const sent = readFileSync(join(run.reportDir, REQUEST_LOG_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l).exchange);
    const posts = sent.filter((x) => x.request.method === 'POST');
    const lost = posts.find((x) => x.error);
    expect(lost, 'the create whose connection was dropped').toBeDefined();
    const ended = Date.parse(lost.startedAt) + lost.durationMs;
    // The look-up: the first read of the list once the lost create ended. Sent after it began: no
    // create (one already on its way, in the same instant, may have been answered, and deleted).
    const lookUp = sent.find((x) => x.request.method === 'GET' && /\/customers$/.test(x.request.url) && Date.parse(x.startedAt) >= ended);
    expect(lookUp).toBeDefined();
    expect(posts.filter((x) => Date.parse(x.startedAt) > Date.parse(lookUp.startedAt))).toEqual([]);
    expect(result(run).leftOnTarget).toEqual([{ record: '/api/v1/customers', problem: expect.stringContaining(`carrying "${String(left[0].lastName)}"`) }]);
    // A create that comes after the look-up is turned away ("the run creates nothing more"); whether
    // one comes depends on how far the concurrent checks got, so only what is sure is held here.
    for (const c of result(run).checks.filter((c) => /creates nothing more/.test(c.reason ?? ''))) expect(c.outcome, c.id).toBe('blocked');
    expect(run.stdout).toMatch(/Left on the target\n {2}\/api\/v1\/customers: .*--recover/);
  });
});

describe('interruption', () => {
  /**
   * A run interrupted as soon as it has changed something on the target, whichever suite it was;
   * each later signal is sent when what `then` waits for has happened (a line of the run's output,
   * the clean-up's first request on the record): the moment, not a delay, decides.
   */
  async function interrupted(then: ((run: { stdout: string; stderr: string; reportDir: string }) => boolean)[] = []) {
    const ref = await reference({ robustness: ['slow'] });
    const before = ref.state.snapshot();
    const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-')), 'reports');
    let pid = 0;
    let sent = 0;
    let poll: NodeJS.Timeout | undefined;
    let ended = false;
    // Never a signal to a process that has ended (its pid may be another's by then).
    const signal = () => void ((sent += 1), ended || process.kill(pid, 'SIGINT'));
    const next = (stdout: string, stderr: string) => {
      if (sent && then[sent - 1]?.({ stdout, stderr, reportDir })) signal();
    };
    const run = await runCli(['--base-url', ref.url, '--report-dir', reportDir], env(ref), {
      onSpawn: (spawned) => {
        pid = spawned;
        poll = setInterval(() => {
          if (!sent && JSON.stringify(ref.state.snapshot()) !== JSON.stringify(before)) signal();
          if (sent) next('', '');
          if (sent > then.length) clearInterval(poll);
        }, 20);
      },
      onOutput: next,
    }).finally(() => ((ended = true), clearInterval(poll)));
    return { ref, before, run };
  }
  const stopping = ({ stderr }: { stderr: string }) => /SIGINT: no new checks start/.test(stderr);
  const cleaningUp = ({ reportDir }: { reportDir: string }) => {
    try {
      return readFileSync(join(reportDir, REQUEST_LOG_FILE), 'utf8').includes('"phase":"after-run clean-up"');
    } catch {
      return false;
    }
  };
  /** A run cut short by its second signal still writes its verdict, what is left and the --recover that undoes it, and its reports. */
  function expectReported(run: CliRun) {
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/SIGINT again: the clean-up is cut short; the reports are written with what is left on the target/);
    expect(run.stdout).toMatch(/verdict INCOMPLETE \(interrupted\)/);
    expect(run.stdout).toMatch(/Left on the target\n {2}\/api\/v1\//);
    expect(run.stderr).toContain(`to finish later what is left: `);
    expect(run.stderr).toContain(`--recover ${run.reportDir}`);
    for (const file of ['result.json', 'junit.xml', 'report.html']) expect(reportFiles(run).map((f) => f.slice(run.reportDir.length + 1))).toContain(file);
    expect(result(run).leftOnTarget.length).toBeGreaterThan(0);
  }

  test('SIGINT mid-run: exit 130, what was changed is restored, nothing is left behind', async () => {
    const { ref, before, run } = await interrupted();
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/SIGINT: no new checks start/);
    expect(run.stdout).toMatch(/Left on the target\n {2}nothing/);
    expectSafe(run, ref, before);
  });

  test('a second SIGINT as the checks stop cuts the run short, not its reports; --sweep names it this machine\'s own stopped run, and --recover then removes what it left', async () => {
    const { ref, before, run } = await interrupted([stopping]);
    expectReported(run);
    expectNoKeys(run, [ref.apiKey, ref.expiredKey]);
    // Its lease (deleted last by a clean-up that was cut short) lives on; its process is gone and its journal is in the folder.
    const leased = [...ref.state.customers.values()].filter((c) => / lease-\d+$/.test(String(c.lastName))).length;
    const swept = await runInProcess(['--base-url', ref.url, '--sweep', '--yes', '--report-dir', run.reportDir], env(ref));
    expect(swept.code, swept.stderr).toBe(0);
    expect(leased).toBe(1);
    expect(swept.stdout).toMatch(/Sweep: skipped \d+ customer\(s\) of run scr-\d{8}-[0-9a-f]{8}, this machine's own run, stopped before it finished \(its lease was last seen .*; its journal is \S+\): .* --recover \S+ undoes what it left and frees the target at once/);
    expect(swept.stdout).not.toMatch(/still going/);
    // The command it printed finishes the job from its journal, the lease last.
    const recovered = await runInProcess(['--base-url', ref.url, '--recover', run.reportDir], env(ref));
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('a second SIGINT during the clean-up cuts it short and the reports say what is left; a third exits at once, in one line with the --recover', async () => {
    const cut = await interrupted([cleaningUp]);
    expectReported(cut.run);
    const recovered = await runInProcess(['--base-url', cut.ref.url, '--recover', cut.run.reportDir], env(cut.ref));
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(cut.ref.state.snapshot()).toEqual(cut.before);

    const { ref, before, run } = await interrupted([stopping, ({ stderr }) => /the clean-up is cut short/.test(stderr)]);
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(new RegExp(`SIGINT again: exiting at once\\. Left on the target \\(\\d+\\): /api/v1/\\S+(, \\S+)*[^\\n]*; \`[^\`\\n]+--recover ${run.reportDir}\` undoes it\\n`));
    expectNoKeys(run, [ref.apiKey, ref.expiredKey]);
    const undone = await runInProcess(['--base-url', ref.url, '--recover', run.reportDir], env(ref));
    expect(undone.code, undone.stdout + undone.stderr).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
  });
});

describe('clean-up of earlier runs and read-only runs', () => {
  test('--sweep deletes customers carrying an earlier run marker, and only those', async () => {
    const ref = await reference({});
    const before = ref.state.snapshot();
    ref.state.insert(ref.state.customers, { firstName: 'Conformance', lastName: 'Customer scr-20250101-deadbeef operations' }, 'cus');
    ref.state.insert(ref.state.customers, { firstName: 'Real', lastName: 'Person scr-like but not a marker' }, 'cus');
    const kept = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, '--sweep', '--yes'], env(ref));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/deleted 1 record/);
    expect(ref.state.snapshot().customers).toEqual(kept.customers.filter((c) => !String(c.lastName).includes('deadbeef')));
    expect(ref.state.snapshot().customers).toHaveLength(before.customers.length + 1);
  });

  test('--read-only says which checks it left out and changes nothing', async () => {
    const ref = await reference({});
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, '--read-only'], env(ref));
    expect(run.code, run.stderr).toBe(0);
    const { leftOut } = result(run) as unknown as { leftOut: string[] };
    expect(leftOut).toContain('OP-DOCUMENTED:createCustomer');
    expect(leftOut).not.toContain('OP-DOCUMENTED:listCustomers');
    expect(run.stdout).toMatch(/· \d+ checks skipped: left out of a --read-only run/);
    expectSafe(run, ref, before);
  });

  test('--read-only on a target with no customers: finding one is not applicable, with the reason', async () => {
    const ref = await reference({ seedCustomers: 0 });
    // The finding check, and the listing that proves the requirement beside it (a run with no proof of it is INCOMPLETE):
    // what the finding may address is the one list it reads, whatever else the run holds.
    const run = await runInProcess(['--base-url', ref.url, '--read-only', '--only', '^OP-DOCUMENTED:(findCustomer|listCustomers) '], env(ref));
    expect(run.code, run.stderr).toBe(0);
    const find = result(run).checks.find((c) => c.id === 'OP-DOCUMENTED:findCustomer');
    expect(find?.outcome).toBe('not-applicable');
    expect(find?.reason).toMatch(/lists no record to address, and a --read-only run creates none/);
  });
});

describe('preflight: a target that cannot be tested ends the run with one line and exit 2', () => {
  test('a host name that does not resolve', async () => {
    const run = await runInProcess(['--base-url', 'https://scheduling.invalid'], { SCHEDULING_API_KEY: 'sk_never_shown_1234' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/host name not found \(DNS\)/);
  });

  test('a TLS failure', async () => {
    const ref = await reference({});
    const run = await runInProcess(['--base-url', ref.url.replace('http:', 'https:')], env(ref));
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/TLS: the target does not speak TLS on this port/);
    expectNoKeys(run, [ref.apiKey]);
  });
});
