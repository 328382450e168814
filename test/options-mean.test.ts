/**
 * Options mean what they say on the wire. --only that selects nothing sends nothing; --only runs
 * no writing observation or hook it did not select; the run timeout holds during start-up;
 * skipped checks are one line; the target opens every run; negative numbers get the flag's message.
 * main() runs in process, in front of the reference a pass-through server writes down every request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { logRequests, type RequestLog } from './support/network.ts';
import { ResultCollector } from '../helpers/results/reporters/collector.ts';
import { defaultConcurrency, parseOptions } from '../helpers/command/options.ts';
import { targetLine } from '../helpers/command/cli.ts';
import { TerminalReporter } from '../helpers/results/reporters/terminal.ts';
import { sampleRun } from './support/sample-run.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { join } from 'node:path';
import { loadVendorConfig } from '../helpers/config/vendor-config.ts';

const KEY = 'sk_options_mean_5150';
const env = { SCHEDULING_API_KEY: KEY };
let ref: RunningReference;
let log: RequestLog;
beforeAll(async () => {
  ref = await startReference({ apiKey: KEY });
  log = await logRequests(ref.url);
});
afterAll(async () => {
  await log?.close();
  await ref?.close();
});
const sent = async (args: string[]) => {
  const before = log.requests.length;
  const run = await runInProcess(['--base-url', log.url, ...args], env);
  return { run, requests: log.requests.slice(before) };
};
const writes = (requests: string[]) => requests.filter((r) => !r.startsWith('GET '));

describe('--only', () => {
  test('a pattern that selects no check exits 2 before any request', async () => {
    const { run, requests } = await sent(['--only', '^NO-SUCH-CHECK']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--only "\^NO-SUCH-CHECK" matches none of the \d+ checks.*nothing was sent/);
    expect(requests).toEqual([]);
  });

  test('^BUS-AUTH writes to nothing but the business record: no customer but the run\'s lease, no team member, no observation', async () => {
    const { run, requests } = await sent(['--only', '^BUS-AUTH']);
    expect(run.code, run.stderr).toBe(0);
    // The run's lease (helpers/safety/lease.ts) is the one customer it creates, and it deletes it last (then looks for it once more).
    const others = writes(requests).filter((r) => !r.startsWith('PATCH /api/v1/business'));
    expect(others).toEqual(['POST /api/v1/customers', expect.stringMatching(/^DELETE \/api\/v1\/customers\/[^/]+$/)]);
    const leaseFound = others[1].replace(/^DELETE/, 'GET');
    expect(requests.filter((r) => /customers/.test(r) && !others.includes(r) && r !== 'GET /api/v1/customers' && r !== leaseFound)).toEqual([]);
    expect(run.stdout).not.toMatch(/AUTH-UNDOCUMENTED/);
  });
});

describe('the run timeout', () => {
  // The compiled suites, as a run starts them (from the sources, vite would transform every suite and helper first).
  const startSuites: typeof import('../helpers/command/run-suites.ts').startSuites = async (options) =>
    ((await import(join(projectRoot, 'dist/helpers/command/run-suites.js'))) as typeof import('../helpers/command/run-suites.ts')).startSuites(options);
  const target = () => ({
    baseUrl: log.url, apiKey: KEY, vendor: loadVendorConfig(undefined), strict: false, readOnly: false, timeoutMs: 5000, runId: 'scr-20260101-0000abcd',
  });

  test('past before vitest has started the suites: no check starts, no request is sent', async () => {
    const before = log.requests.length;
    const collector = new ResultCollector((t) => t);
    const suites = await startSuites({ target: { ...target(), stopChecksAt: Date.now() }, reporters: [collector] });
    await suites.done;
    expect(writes(log.requests.slice(before))).toEqual([]);
    expect(collector.checks.length).toBeGreaterThan(100);
    expect(collector.checks.filter((c) => c.outcome !== 'skipped')).toEqual([]);
    expect(new Set(collector.checks.map((c) => c.reason))).toEqual(new Set(['not run: run-timeout']));
  });

  test('past while vitest was being created: the suites are not started at all', async () => {
    const before = log.requests.length;
    const collector = new ResultCollector((t) => t);
    const suites = await startSuites({ target: target(), reporters: [collector], stillWanted: () => false });
    await suites.done;
    expect(log.requests.slice(before)).toEqual([]);
    expect(collector.checks).toEqual([]);
  });

  test('--run-timeout shorter than start-up: exit 2, nothing sent but at most the first GET of the preflight, cut to the time left', async () => {
    const { run, requests } = await sent(['--run-timeout', '0.001']);
    expect(run.code).toBe(2);
    // Whether the preflight's first GET goes out inside the first millisecond depends on the machine:
    // either it is never asked, or it is asked with what is left of the run and gets no answer in time.
    expect(run.stderr.trim()).toMatch(/^scheduling-conformance: run timeout: the --run-timeout ran out during start-up(, before GET \S+ was asked|: \S+ gave no answer in [\d.]+ s \(the time left of the run\)); nothing was changed$/);
    expect(requests.filter((r) => r !== 'GET /api/v1/business')).toEqual([]);
  });
});

describe('what the terminal says', () => {
  test('--read-only: one line for the skipped checks, with the count and the reason; the target first', async () => {
    const { run, requests } = await sent(['--read-only', '--only', '^(OP-DOCUMENTED|TM-)']);
    expect(run.code, run.stderr).toBe(0);
    expect(writes(requests)).toEqual([]);
    expect(run.stdout.split('\n')[0]).toBe(`Target: ${log.url} (requests go to ${log.url}/api/v1/…)`);
    expect(run.stdout).not.toMatch(/· skip/);
    const lines = run.stdout.split('\n').filter((l) => /skipped:/.test(l));
    expect(lines).toEqual([expect.stringMatching(/^· \d+ checks skipped: left out of a --read-only run: this check changes data on the target$/)]);
    // The verdict of a partial run says what it holds for.
    expect(run.stdout).toMatch(/^verdict CONFORMANT for the checks selected by --only "\^\(OP-DOCUMENTED\|TM-\)" and --read-only$/m);
  });
});

test('an interrupted run: the checks it did not run are one line, with the count and the reason', () => {
  const run = sampleRun();
  const notRun = run.checks.slice(0, 4).map((c) => ({ ...c, outcome: 'skipped' as const, reason: 'not run: interrupted' }));
  run.checks = [...notRun, ...run.checks.slice(4)];
  let out = '';
  const terminal = new TerminalReporter({ write: (t: string) => (out += t) }, false);
  for (const c of run.checks) terminal.check({ ...c, reason: c.reason ?? undefined });
  terminal.summary(run);
  const lines = out.split('\n');
  expect(lines.filter((l) => /interrupted/.test(l))).toEqual(['· 4 checks skipped: not run: interrupted']);
  expect(lines.filter((l) => /· skip/.test(l))).toEqual([]);
});

test('the target line names the origin and the base path apart', () => {
  const target = { baseUrl: 'https://staging.example.com/scheduling', apiKey: KEY, vendor: loadVendorConfig(undefined), strict: false, readOnly: false, timeoutMs: 1, runId: 'scr-20260101-0000abcd' };
  expect(targetLine(target, false)).toBe('Target: https://staging.example.com, base path /scheduling (requests go to https://staging.example.com/scheduling/api/v1/…)');
});

describe('negative numbers', () => {
  test.for([
    ['--rate', '-5', /--rate must be a positive number of requests per second, got "-5"/],
    ['--timeout', '-1', /--timeout must be a whole number of milliseconds .*got "-1"/],
    ['--run-timeout', '-0.5', /--run-timeout must be a number of seconds above 0 .*got "-0.5"/],
    ['--wait-for-target', '-3', /--wait-for-target must be a number of seconds from 0 .*got "-3"/],
    ['--retry-budget', '-1', /--retry-budget must be a number of seconds from 0 .*got "-1"/],
    ['--max-body-mib', '-5', /--max-body-mib must be a number of MiB above 0 and at most 256, got "-5"/],
    ['--max-body-mib', '0', /--max-body-mib must be a number of MiB above 0 and at most 256, got "0"/],
  ] as const)('%s %s gets the flag\'s own message', ([flag, value, message]) => {
    expect(() => parseOptions([flag, value], {})).toThrow(message);
  });
});

test('--retry-budget and --max-body-mib default to a deploy-sized blip and 5 MiB, and take what is given', () => {
  expect(parseOptions([], {})).toMatchObject({ retryBudgetMs: 30_000, maxBodyBytes: 5 * 2 ** 20 });
  expect(parseOptions(['--retry-budget', '2.5', '--max-body-mib', '64'], {})).toMatchObject({ retryBudgetMs: 2500, maxBodyBytes: 64 * 2 ** 20 });
});

describe('--concurrency by default suits the target', () => {
  // Loopback is CPU-bound (more workers cost more); a distant target waits on round trips.
  test.for([
    ['http://127.0.0.1:8080', 1],
    ['http://localhost:8080', 1],
    ['http://[::1]:8080', 1],
    ['https://staging.example.com', 2],
    ['http://10.0.0.7:8080', 2],
  ] as const)('%s: %i suite files at once', ([url, expected]) => {
    expect(defaultConcurrency(url)).toBe(expected);
  });

  test('--concurrency given wins, and is left unset otherwise', () => {
    expect(parseOptions(['--concurrency', '3'], {}).concurrency).toBe(3);
    expect(parseOptions([], {}).concurrency).toBeUndefined();
  });
});
