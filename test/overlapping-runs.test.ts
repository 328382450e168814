/**
 * Two runs against the same target. What a run writes carries its
 * marker, and a run holds a lease (a customer of its own, refreshed while it goes), so a second
 * run recognises a target another run is changing and stops before changing anything;
 * interference during a run stops the lane with exit 2, never a failed check, and no foreign
 * value is written back.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { OTHER_RUN, startReference, type RunningReference } from '../reference/server.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { candidateValues, namedBusinessFields, type Candidate } from '../helpers/resources/business-values.ts';
import { runIdsIn } from '../helpers/records/run-marker.ts';
import { InterferenceWatch } from '../helpers/safety/interference-watch.ts';
import type { Row } from '../helpers/contract/record.ts';
import { Interference } from '../helpers/safety/interference.ts';
import type { Journal } from '../helpers/safety/journal.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { compiledMain, runInProcess, type CliRun } from './support/cli.ts';
import { isLive, leaseOf, LEASE_TTL_MS, othersLive } from '../helpers/safety/lease.ts';
import { markedRows } from '../helpers/records/run-marker.ts';
import { readResult } from './support/verdicts.ts';
import { logRequests } from './support/network.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));
const RUN = 'scr-20260101-abcdef12';

describe('the run marker in what a run writes', () => {
  test('every business string value the suite derives carries the marker where the field takes it', async () => {
    const spec = await loadSpec();
    const fields = namedBusinessFields(spec, { vendor: DEFAULT_VENDOR_CONFIG } as TargetConfig);
    const marked = Object.fromEntries(
      fields.filter((nf) => nf.field.types.includes('string')).map((nf) => [nf.name, (candidateValues(nf, undefined, null, null, RUN) as Candidate[])[0].value as string]),
    );
    for (const name of ['name', 'email', 'address', 'websiteUrl', 'instagramUrl']) expect(runIdsIn(marked[name]), name).toEqual([RUN]);
    // Fixed forms a marker would break: a currency code, a time zone, a phone number.
    for (const name of ['currencyIso', 'timeZone', 'phoneNumber']) expect(runIdsIn(marked[name]), name).toEqual([]);
    expect(marked.email).toMatch(/^[^@\s]+@example\.(com|org)$/);
    expect(() => new URL(marked.websiteUrl)).not.toThrow();
  });

  test('values derived from the target\'s own carry it too; the vendor\'s are sent as given', async () => {
    const spec = await loadSpec();
    const fields = namedBusinessFields(spec, { vendor: DEFAULT_VENDOR_CONFIG } as TargetConfig);
    const values = (name: string, own: string) => candidateValues(fields.find((nf) => nf.name === name)!, { [name]: ['vendor value'] }, own, own, RUN) as Candidate[];
    expect(values('name', 'Own').map((c) => c.source)[0]).toBe('vendor');
    expect(values('name', 'Own')[0].value).toBe('vendor value');
    const email = values('email', 'owner@shop.test').find((c) => c.source === 'derived')!.value as string;
    expect(email).toMatch(/@shop\.test$/);
    expect(runIdsIn(email)).toEqual([RUN]);
    const site = values('websiteUrl', 'https://shop.test/home').find((c) => c.source === 'derived')!.value as string;
    expect(new URL(site).host).toBe('shop.test');
    expect(runIdsIn(site)).toEqual([RUN]);
    const phone = values('phoneNumber', '+441234567890').find((c) => c.source === 'derived')!.value;
    expect(phone).toBe('+441234567891');
  });
});

describe('a second run', () => {
  test('a baseline holding another run\'s marker: exit 2 before changing anything, with the message', async () => {
    const ref = await startReference();
    running.push(ref);
    ref.state.business = { ...ref.state.business, name: `Conformance Check Business ${OTHER_RUN}` };
    const before = ref.state.snapshot();
    const dir = mkdtempSync(join(tmpdir(), 'scr-overlap-'));
    const stderr: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => stderr.push(t) } };
    // Every request on the wire, whatever the report directory keeps of a run that could not test.
    const log = await logRequests(ref.url);
    const code = await (await compiledMain())(['--base-url', log.url, '--report-dir', dir], { SCHEDULING_API_KEY: ref.apiKey }, io);
    await log.close();
    expect(code).toBe(2);
    // No lease of that run on the target: it was stopped, and left its values behind.
    expect(stderr.join('')).toContain(
      `run ${OTHER_RUN} left its values on this target and is not going (it holds no lease on the target): \`--recover <its report directory>\` undoes it; without its journal, \`--sweep\` shows what it left and \`--release ${OTHER_RUN}\` frees the target`,
    );
    expect(ref.state.snapshot()).toEqual(before);
    // Nothing but reads went out.
    expect(log.requests.length).toBeGreaterThan(0);
    expect(log.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });

  test('interference during the run: the business lane stops, exit 2, no failed check, no foreign value written back', async () => {
    const ref = await startReference({ robustness: ['overlapping-run'] });
    running.push(ref);
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`interference by ${OTHER_RUN}`);
    const result = readResult(run) as ReturnType<typeof readResult> & { leftOnTarget: { record: string; problem: string }[] };
    expect(result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    expect(result.checks.some((c) => c.outcome === 'skipped' && /interference by/.test(c.reason ?? ''))).toBe(true);
    // The other run's value stays for it to restore; none of this run's marked values is left.
    const business = ref.state.snapshot().business;
    expect(business.name).toBe(`Conformance Check Business ${OTHER_RUN}`);
    for (const [field, value] of Object.entries(business)) expect(runIdsIn(value).filter((id) => id !== OTHER_RUN), field).toEqual([]);
    expect(result.leftOnTarget.map((l) => l.record)).toContain('/api/v1/business');
  });

  test('a failure another writer cannot explain stands: interference on team members beside a key check that fails gives exit 1, NOT CONFORMANT, in every report', async () => {
    const ref = await startReference({ fault: 'auth-empty-token-accepted', robustness: ['overlapping-run-team-members'] });
    running.push(ref);
    // The two the verdict weighs: the key checks the fault fails, and the team members' lane the other writer stops.
    const run = await runInProcess(['--base-url', ref.url, '--only', '^(BUS-AUTH-INVALID|TM-)'], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: false });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`interference by ${OTHER_RUN}: another writer changed the team members during the run`);
    const result = readResult(run) as ReturnType<typeof readResult> & { stopped: string | null; verdict: string; exitCode: number };
    expect({ stopped: result.stopped, verdict: result.verdict, exitCode: result.exitCode }).toEqual({ stopped: 'interference', verdict: 'not-conformant', exitCode: 1 });
    expect(result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual(expect.arrayContaining([expect.stringMatching(/^BUS-AUTH-INVALID:/)]));
    expect(readFileSync(join(run.reportDir, 'junit.xml'), 'utf8')).toMatch(/<testsuites name="scheduling-conformance [^"]*: NOT CONFORMANT"/);
  });

  test('interference on team members: the team member lane stops, exit 2, stopped "interference", INCOMPLETE, no failed check, no foreign value written back', async () => {
    const ref = await startReference({ robustness: ['overlapping-run-team-members'] });
    running.push(ref);
    const before = ref.state.snapshot().teamMembers;
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`interference by ${OTHER_RUN}: another writer changed the team members during the run`);
    const result = readResult(run) as ReturnType<typeof readResult> & { stopped: string | null; verdict: string; exitCode: number };
    expect({ stopped: result.stopped, verdict: result.verdict, exitCode: result.exitCode }).toEqual({ stopped: 'interference', verdict: 'incomplete', exitCode: 2 });
    expect(result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    const stopped = result.checks.filter((c) => c.outcome === 'skipped' && /^interference by scr-20260101-0badcafe: team member \S+ holds a value written by run/.test(c.reason ?? ''));
    expect(stopped.map((c) => c.id)).toContain('TM-ISOLATION');
    // The business record and customers were not touched by the other writer: their checks ran.
    expect(result.checks.find((c) => c.id === 'CUS-CREATE')?.outcome).toBe('passed');
    // The other run's value stays for it to restore; none of this run's marked values is left.
    const after = ref.state.snapshot().teamMembers;
    expect(after.at(-1)!.firstName).toBe(`Conformance ${OTHER_RUN}`);
    for (const member of after) for (const [field, value] of Object.entries(member)) expect(runIdsIn(value).filter((id) => id !== OTHER_RUN), field).toEqual([]);
    expect(after.slice(0, -1)).toEqual(before.slice(0, -1));
  });
});

describe('watching the team members for another writer', () => {
  const watch = () => {
    const journalled: unknown[] = [];
    const journal = { append: (e: unknown) => void journalled.push(e) } as unknown as Journal;
    return { journalled, watch: new InterferenceWatch(RUN, journal) };
  };
  /** Team members as the team-member lane hands them to the watch. */
  const read = (rows: Row[]) => rows.map((row) => ({ path: `/team-members/${String(row.id)}`, what: `team member ${String(row.id)}`, row }));
  const members = [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bo' }];

  test('a member changed between two reads with no update sent: interference by another writer, every member journalled, the lane stops', () => {
    const { watch: w, journalled } = watch();
    w.read('list', read(members));
    w.read('find', read([{ id: 1, name: 'Ann', role: 'owner' }]));
    expect(() => w.read('list', read([members[0], { id: 2, name: 'Bob' }]))).toThrow(new Interference('another writer', 'name of team member 2 changed between two reads with no update sent'));
    expect(journalled).toEqual([1, 2].map((id) => ({ kind: 'interference', path: `/team-members/${id}`, by: 'another writer' })));
    expect(() => w.stopIfInterfered()).toThrow(Interference);
  });

  test('after an update the next read is not compared (a broken update may change any member: TM-ISOLATION judges that); list and find are compared apart', () => {
    const { watch: w, journalled } = watch();
    w.read('list', read(members));
    w.sent();
    w.read('list', read([members[0], { id: 2, name: 'Bob' }]));
    // A find may show more than the list: not a change.
    w.read('find', read([{ id: 2, name: 'Bob', role: 'staff' }]));
    w.read('find', read([{ id: 2, name: 'Bob', role: 'staff' }]));
    expect(w.interfered()).toBe(false);
    expect(journalled).toEqual([]);
  });

  test('a field moving, with no update between the reads, to any value this run wrote to that member\'s field is the run\'s own write showing late; to another member\'s, it is interference', () => {
    const { watch: w } = watch();
    w.sent('/team-members/2', { name: 'First' });
    w.sent('/team-members/2', { name: 'Second' });
    w.read('list', read([members[0], { id: 2, name: 'Second' }]));
    // A replica further behind shows the earlier write after the later one: still the run's own.
    w.read('list', read([members[0], { id: 2, name: 'First' }]));
    expect(w.interfered()).toBe(false);
    expect(() => w.read('list', read([{ id: 1, name: 'First' }, { id: 2, name: 'First' }]))).toThrow('name of team member 1 changed between two reads with no update sent');
  });

  test('a field moving, with no update between the reads, from a value this run wrote to another carrying its marker is the target rewriting the run\'s own write (the checks judge it); without the marker, interference', () => {
    const { watch: w } = watch();
    const sent = `O'Brien & Sons ${RUN}`;
    w.sent('/team-members/2', { name: sent });
    w.read('find', read([{ id: 2, name: sent }]));
    // Escaped at a read, and again at the next: no other writer holds this run's marker.
    w.read('find', read([{ id: 2, name: `O&#39;Brien &amp; Sons ${RUN}` }]));
    w.read('find', read([{ id: 2, name: `O&amp;#39;Brien &amp;amp; Sons ${RUN}` }]));
    expect(w.interfered()).toBe(false);
    expect(() => w.read('find', read([{ id: 2, name: 'O&#39;Brien &amp; Sons' }]))).toThrow('name of team member 2 changed between two reads with no update sent');
  });

  test('another run\'s marker in a member, even right after an update: interference by that run', () => {
    const { watch: w } = watch();
    w.read('list', read(members));
    w.sent();
    expect(() => w.read('list', read([members[0], { id: 2, name: `Conformance ${OTHER_RUN}` }]))).toThrow(`interference by ${OTHER_RUN}: team member 2 holds a value written by run ${OTHER_RUN}`);
    // This run's own marker is not interference.
    const { watch: own } = watch();
    own.read('list', read([{ id: 1, name: `Conformance ${RUN}` }]));
    expect(own.interfered()).toBe(false);
  });
});

describe('two runs started together', () => {
  const env = (ref: RunningReference) => ({ SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
  const failedChecks = (run: CliRun) => readResult(run).checks.filter((c) => c.outcome === 'failed').length;

  /**
   * Two runs against one conformant reference, the second `delayMs` after the first. In process:
   * what they race on is the target (its lease, its records), which sees their requests interleave
   * as from two machines.
   */
  async function together(delayMs: number, extra: string[]) {
    const ref = await startReference();
    running.push(ref);
    const before = ref.state.snapshot();
    const first = runInProcess(['--base-url', ref.url, ...extra], env(ref));
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const runs = await Promise.all([first, runInProcess(['--base-url', ref.url, ...extra], env(ref))]);
    return { runs, before, after: ref.state.snapshot() };
  }

  /** Neither run blames the target: no exit 1, no failed testcase; what stopped says why; the data is as found. */
  function expectNoFalseFailure({ runs, before, after }: Awaited<ReturnType<typeof together>>, label: string) {
    for (const run of runs) {
      expect([0, 2], `${label}: ${run.stderr}`).toContain(run.code);
      expect(failedChecks(run), `${label}: failed testcases in ${run.reportDir}`).toBe(0);
      if (run.code === 2) expect(run.stderr, label).toMatch(/another conformance run is changing this target \(run scr-\d{8}-[0-9a-f]{8}, its lease was last seen|interference by scr-/);
    }
    expect(after, `${label}: the data as found`).toEqual(before);
  }

  test('0.2, 0.5 and 0.8 s apart, three tries in a row: no exit 1, no failed testcase, the data as found', async () => {
    for (const delay of [200, 500, 800]) expectNoFalseFailure(await together(delay, []), `${delay} ms apart`);
  });

  test('the same with --rate 60 (the three tries at once, each against its own target)', async () => {
    const tries = await Promise.all([200, 500, 800].map(async (delay) => [delay, await together(delay, ['--rate', '60'])] as const));
    for (const [delay, outcome] of tries) expectNoFalseFailure(outcome, `${delay} ms apart, --rate 60`);
  });

  test('the first customer list trickles: the run it answers cannot take its lease within --timeout and ends INCOMPLETE before its first write; the other, started while it waits, goes on alone; the data as found', async () => {
    const ref = await startReference({ robustness: ['trickle-first:listCustomers'] });
    running.push(ref);
    const before = ref.state.snapshot();
    const first = runInProcess(['--base-url', ref.url, '--timeout', '3000'], env(ref));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const runs = await Promise.all([first, runInProcess(['--base-url', ref.url, '--timeout', '3000'], env(ref))]);
    const stopped = runs.filter((r) => r.code === 2);
    expect(stopped, runs.map((r) => r.stderr).join('\n')).toHaveLength(1);
    expect(stopped[0].stderr).toMatch(/INCOMPLETE: no lease could be taken on the target \(looking for other runs' leases: GET \/api\/v1\/customers: no answer in 3 s\); a run that changes data holds one, so no check ran and nothing is left changed\. Run again when the target answers, or with --read-only/);
    const sent = readFileSync(join(stopped[0].reportDir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { exchange: { request: { method: string } } }).exchange.request.method);
    expect(sent.filter((m) => m !== 'GET')).toEqual([]);
    expect(runs.find((r) => r.code !== 2)?.code).toBe(0);
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('a lease create answered 307 (or any answer that is not its record): INCOMPLETE before the first write, nothing left', async () => {
    const other = await startReference();
    running.push(other);
    const ref = await startReference({ robustness: ['redirect:createCustomer'], redirectTo: other.url });
    running.push(ref);
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url], env(ref));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('INCOMPLETE: no lease could be taken on the target (creating it (POST /api/v1/customers) answered 307)');
    expect(ref.state.snapshot()).toEqual(before);
  });

  test('another run, going, changes a field no marker can carry: the difference is settled as interference (exit 2), and JUnit, JSON and summary agree', async () => {
    const ref = await startReference({ robustness: ['overlapping-run-unmarked'] });
    running.push(ref);
    const summary = join(mkdtempSync(join(tmpdir(), 'scr-summary-')), 'summary.md');
    const run = await runInProcess(['--base-url', ref.url, '--summary', summary], env(ref), undefined, { resultOnly: false });
    expect(run.code, run.stderr).toBe(2);
    const result = readResult(run) as ReturnType<typeof readResult> & { stopped: string | null; verdict: string; exitCode: number };
    expect({ stopped: result.stopped, verdict: result.verdict, exitCode: result.exitCode }).toEqual({ stopped: 'interference', verdict: 'incomplete', exitCode: 2 });
    expect(result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id)).toEqual([]);
    // Before: "updating only name also changed currencyIso", a failure, exit 1.
    const settled = result.checks.find((c) => c.id === 'BUS-UPDATE-PARTIAL:name');
    expect(settled?.outcome).toBe('skipped');
    expect(settled?.reason).toMatch(new RegExp(`^interference by ${OTHER_RUN}: run ${OTHER_RUN} is going on this target \\(its lease was last seen .*\\) while this run works on the business record`));
    expect(failedChecks(run)).toBe(0);
    expect(readFileSync(join(run.reportDir, 'junit.xml'), 'utf8')).toContain(`skipped: interference by ${OTHER_RUN}`);
    expect(readFileSync(summary, 'utf8')).toMatch(/INCOMPLETE/);
    expect(readFileSync(summary, 'utf8')).not.toMatch(/NOT CONFORMANT/);
  });
});

describe('the lease', () => {
  const row = (lastName: string, id = 'c1') => ({ id, lastName });
  const marked = (lastName: string) => markedRows([row(lastName)], '/api/v1/customers', 'lastName', 'Customer', 'id')[0];

  test('a customer whose marker field ends in lease-<epoch seconds> is a lease; any other marked customer is not', () => {
    expect(leaseOf(marked(`Customer ${RUN} lease-1764090000`))).toEqual({ runId: RUN, path: '/api/v1/customers/c1', seenAt: 1_764_090_000_000 });
    expect(leaseOf(marked(`Customer ${RUN} create`))).toBeUndefined();
    expect(leaseOf(marked(`Customer ${RUN} lease`))).toBeUndefined();
  });

  test('it stands for a live run until LEASE_TTL_MS after its last beat; another run\'s live lease is found, this run\'s own is not', () => {
    const seenAt = 1_764_090_000_000;
    expect(isLive({ runId: RUN, path: '', seenAt }, seenAt + LEASE_TTL_MS - 1)).toBe(true);
    expect(isLive({ runId: RUN, path: '', seenAt }, seenAt + LEASE_TTL_MS)).toBe(false);
    const rows = [row(`Customer ${RUN} lease-1764090000`, 'a'), row(`Customer ${OTHER_RUN} lease-1764090000`, 'b'), row(`Customer ${OTHER_RUN} lease-1764089000`, 'c')];
    const place = { listPath: '/api/v1/customers', field: 'lastName', base: 'Customer', idField: 'id' };
    // The latest beat of each run counts.
    expect(othersLive(rows, place, RUN, seenAt + 1000).map((l) => l.path)).toEqual(['/api/v1/customers/b']);
    expect(othersLive(rows, place, RUN, seenAt + LEASE_TTL_MS)).toEqual([]);
  });
});
