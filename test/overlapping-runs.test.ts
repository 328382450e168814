/**
 * Issue 12 §1: two runs against the same target. What a run writes carries its marker, so a
 * second run recognises a baseline that holds another run's values and stops before changing
 * anything; interference during a run stops the business lane with exit 2, never a failed check,
 * and no foreign value is written back.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { OTHER_RUN, startReference, type RunningReference } from '../reference/server.ts';
import { main } from '../helpers/command/cli.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { candidateValues, namedBusinessFields, type Candidate } from '../helpers/resources/business-values.ts';
import { runIdsIn } from '../helpers/records/run-marker.ts';
import { MemberWatch } from '../helpers/safety/member-watch.ts';
import { Interference } from '../helpers/safety/interference.ts';
import type { Journal } from '../helpers/safety/journal.ts';
import type { TargetConfig } from '../helpers/config/target.ts';
import { runCli } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';

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
    const code = await main(['--base-url', ref.url, '--report-dir', dir], { SCHEDULING_API_KEY: ref.apiKey }, io);
    expect(code).toBe(2);
    expect(stderr.join('')).toContain(
      `another conformance run is changing this target (run ${OTHER_RUN}), or one crashed before restoring; wait, or use --recover / --sweep`,
    );
    expect(ref.state.snapshot()).toEqual(before);
    // Nothing but reads went out.
    const methods = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).exchange.request.method);
    expect(new Set(methods)).toEqual(new Set(['GET']));
  });

  test('interference during the run: the business lane stops, exit 2, no failed check, no foreign value written back', async () => {
    const ref = await startReference({ robustness: ['overlapping-run'] });
    running.push(ref);
    const run = await runCli(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
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

  test('interference on team members: the team member lane stops, exit 2, stopped "interference", INCOMPLETE, no failed check, no foreign value written back', async () => {
    const ref = await startReference({ robustness: ['overlapping-run-team-members'] });
    running.push(ref);
    const before = ref.state.snapshot().teamMembers;
    const run = await runCli(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
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
    return { journalled, watch: new MemberWatch(RUN, 'id', (id) => `/team-members/${id}`, journal) };
  };
  const members = [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bo' }];

  test('a member changed between two reads with no update sent: interference by another writer, every member journalled, the lane stops', () => {
    const { watch: w, journalled } = watch();
    w.listed(members);
    w.found({ id: 1, name: 'Ann', role: 'owner' });
    expect(() => w.listed([members[0], { id: 2, name: 'Bob' }])).toThrow(new Interference('another writer', 'name of team member 2 changed between two reads with no update sent'));
    expect(journalled).toEqual([1, 2].map((id) => ({ kind: 'interference', path: `/team-members/${id}`, by: 'another writer' })));
    expect(() => w.stopIfInterfered()).toThrow(Interference);
  });

  test('after an update the next read is not compared (a broken update may change any member: TM-ISOLATION judges that); list and find are compared apart', () => {
    const { watch: w, journalled } = watch();
    w.listed(members);
    w.sent();
    w.listed([members[0], { id: 2, name: 'Bob' }]);
    // A find may show more than the list: not a change.
    w.found({ id: 2, name: 'Bob', role: 'staff' });
    w.found({ id: 2, name: 'Bob', role: 'staff' });
    expect(w.interfered()).toBe(false);
    expect(journalled).toEqual([]);
  });

  test('another run\'s marker in a member, even right after an update: interference by that run', () => {
    const { watch: w } = watch();
    w.listed(members);
    w.sent();
    expect(() => w.listed([members[0], { id: 2, name: `Conformance ${OTHER_RUN}` }])).toThrow(`interference by ${OTHER_RUN}: team member 2 holds a value written by run ${OTHER_RUN}`);
    // This run's own marker is not interference.
    const { watch: own } = watch();
    own.listed([{ id: 1, name: `Conformance ${RUN}` }]);
    expect(own.interfered()).toBe(false);
  });
});
