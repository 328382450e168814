/**
 * The command as a user meets it: every way to be wrong ends with one line and exit 2 (the
 * process itself, as a child, where its exit code and stderr are the point), --help and
 * --version, and a whole run against the embedded reference that passes without printing the key.
 */
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { runCli, runInProcess, type CliRun } from './support/cli.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';
import { fallbackOf } from '../helpers/command/cli.ts';
import { readArgvLeniently } from '../helpers/command/options.ts';

const KEY = 'sk_test_do_not_print_4711';

function oneLine(text: string) {
  expect(text.trim().split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at /); // no stack trace
}

// The process itself (its exit code, all it writes to stderr, no stack trace) is proven by a child
// process for each kind of ending: a target error, a usage error, --help and --version, a whole run.
// The other cases run the same main() in process: what they prove is the message.
describe('scheduling-conformance: usage and configuration errors exit 2 with one line', () => {
  test('an unreachable target', async () => {
    const run = await runCli(['--base-url', 'http://127.0.0.1:1'], { SCHEDULING_API_KEY: KEY });
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(/unreachable.*connection refused/);
  });

  test('a base URL that is not a URL', async () => {
    const run = await runInProcess(['--base-url', 'not-a-url'], { SCHEDULING_API_KEY: KEY });
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(/not a URL/);
  });

  test('a base URL without a key', async () => {
    const run = await runInProcess(['--base-url', 'http://127.0.0.1:1']);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(/no API key/);
  });

  test('an unknown flag', async () => {
    const run = await runCli(['--frobnicate']);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(/frobnicate/);
  });

  const dir = mkdtempSync(join(tmpdir(), 'scr-config-'));
  const configs: [string, string, RegExp][] = [
    ['not JSON', '{ nope', /not valid JSON/],
    ['an unknown key', JSON.stringify({ businesEmailField: 'mail' }), /unknown key "businesEmailField"/],
    ['a wrong type', JSON.stringify({ idField: 42 }), /\/idField must be string/],
    ['a missing file', '', /cannot be read/],
  ];
  test.for(configs)('a config file with %s', async ([name, content, message]) => {
    const file = join(dir, `${name.replace(/\W/g, '-')}.json`);
    if (content) writeFileSync(file, content);
    const run = await runInProcess(['--config', file]);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(message);
  });

  test('--help and --version exit 0 and document the exit codes', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*0[\s\S]*1[\s\S]*2[\s\S]*130/);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('scheduling-conformance against the embedded reference implementation', () => {
  // One report directory, two runs in turn: the command as a user runs it (a child process), then
  // a run in process into the same directory, beside the first run's reports and a file of the user's.
  const dir = mkdtempSync(join(tmpdir(), 'scr-reuse-'));
  let firstRun: Promise<{ run: CliRun; files: [string, string][] }> | undefined;
  const first = () => (firstRun ??= runCli(['--report-dir', dir], { SCHEDULING_API_KEY: KEY }).then((run) => ({
    run,
    files: readdirSync(dir).map((f): [string, string] => [f, readFileSync(join(dir, f), 'utf8')]),
  })));
  let secondRun: Promise<CliRun> | undefined;
  const second = () => (secondRun ??= first().then(() => {
    writeFileSync(join(dir, 'notes.txt'), `the user's own note with the key ${KEY}`);
    // The customers' checks and observations: the run that creates records (its journal, below), the
    // observation's create without a key among them. The whole verdict is the first run's.
    return runInProcess(['--report-dir', dir, '--only', '^(CUS-|AUTH-UNDOCUMENTED:\\w+Customers? )'], { SCHEDULING_API_KEY: KEY });
  }));

  test('passes, exits 0, names only catalogued requirements and never prints the key', async () => {
    const { run, files } = await first();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/verdict CONFORMANT/);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    for (const [f, text] of files) expect(text, f).not.toContain(KEY);
    const result = JSON.parse(files.find(([f]) => f === 'result.json')?.[1] ?? '{}') as { checks: { requirement: string; outcome: string }[] };
    expect(result.checks.length).toBeGreaterThanOrEqual(10);
    const catalog = loadCatalog();
    for (const c of result.checks) expect(catalog.byId.has(c.requirement), c.requirement).toBe(true);
  });

  test('a reused report directory does not mix the runs: the earlier, finished run\'s journal is pruned, not undone (an unfinished one is kept: test/recovery.test.ts)', async () => {
    const [{ run: earlier }, later] = [await first(), await second()];
    expect([earlier.code, later.code]).toEqual([0, 0]);
    expect(later.stdout).toMatch(/Left on the target\n {2}nothing/);
    expect(readdirSync(dir).filter((f) => f.startsWith('run-journal'))).toEqual(['run-journal.jsonl']);
    expect(readFileSync(join(dir, 'run-journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"kind":"run"'))).toHaveLength(1);
    // Each record the run created is journalled once (the client journals a create answered with
    // its id; the observation's create without a key is not journalled again by the lane).
    const created = readFileSync(join(dir, 'run-journal.jsonl'), 'utf8').trim().split('\n')
      .map((line) => JSON.parse(line) as { kind: string; path?: string })
      .filter((e) => e.kind === 'created').map((e) => e.path);
    expect(created.length).toBeGreaterThan(10);
    expect(new Set(created).size).toBe(created.length);
  });

  test('a report directory beside other files: only the run\'s own files are scanned and kept', async () => {
    const run = await second();
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toContain(KEY);
  });
});

describe('scheduling-conformance: more ways to be wrong, each one line and exit 2', () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['a base URL ending in /api/v1', ['--base-url', 'http://127.0.0.1:1/api/v1'], { SCHEDULING_API_KEY: KEY }, /ends in \/api\/v1/],
    ['a base URL from the environment, named as such', [], { SCHEDULING_BASE_URL: 'nope', SCHEDULING_API_KEY: KEY }, /^scheduling-conformance: SCHEDULING_BASE_URL "nope" is not a URL/],
    // A CI variable that is unset or misspelled: the run must not test the embedded reference instead.
    ['a base URL from the environment that is set but empty', [], { SCHEDULING_BASE_URL: '', SCHEDULING_API_KEY: KEY }, /^scheduling-conformance: SCHEDULING_BASE_URL is set but empty/],
    ['a key a header cannot carry', ['--base-url', 'http://127.0.0.1:1'], { SCHEDULING_API_KEY: 'two words' }, /SCHEDULING_API_KEY is empty or holds characters/],
    ['a timeout beyond what a timer holds', ['--timeout', '3000000000'], {}, /--timeout must be a whole number of milliseconds from 1 to 2147483647/],
    ['an --only that matches no check', ['--only', 'NO-SUCH-CHECK'], {}, /--only "NO-SUCH-CHECK" matches none of the \d+ checks/],
    ['a concurrency of none', ['--concurrency', '0'], {}, /--concurrency must be a whole number from 1 to 16, got "0"/],
    ['a negative concurrency', ['--concurrency', '-1'], {}, /--concurrency must be a whole number from 1 to 16, got "-1"/],
    ['a listing whose --only, with --read-only, matches one check that changes data', ['--list', '--only', '^CUS-DELETE ', '--read-only'], {}, /^scheduling-conformance: --only "\^CUS-DELETE " with --read-only: the one check it matches changes data, so none would run$/],
    ['an --only that, with --read-only, matches only checks that change data', ['--only', '^BUS-UPDATE', '--read-only'], {}, /--only "\^BUS-UPDATE" with --read-only: each of the \d+ checks it matches changes data, so none would run; nothing was sent/],
  ];
  test.for(cases)('%s', async ([, args, env, message]) => {
    const run = await runInProcess(args, env);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(run.stderr).not.toContain('two words');
  });

  test('a run that cannot test the target says why in the summary files CI shows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scr-summary-'));
    const step = join(dir, 'step-summary.md');
    writeFileSync(step, '## an earlier step\n\n');
    const run = await runInProcess(['--base-url', 'http://127.0.0.1:1', '--summary', join(dir, 'summary.md')], { SCHEDULING_API_KEY: KEY, GITHUB_STEP_SUMMARY: step });
    expect(run.code).toBe(2);
    for (const file of ['summary.md', 'step-summary.md']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text).toMatch(/## Scheduling API v1 conformance: could not be tested\n\nExit code 2: target unreachable: .*connection refused/);
      expect(text).not.toContain(KEY);
    }
    expect(readFileSync(step, 'utf8')).toMatch(/^## an earlier step\n/);
    // Options that cannot be read at all: --summary is honoured still (a GitLab job's only summary).
    const unread = await runInProcess(['--summary', join(dir, 'usage.md'), '--concurrency', 'x'], { SCHEDULING_BASE_URL: '' });
    expect(unread.code).toBe(2);
    expect(readFileSync(join(dir, 'usage.md'), 'utf8')).toMatch(/could not be tested\n\nExit code 2: SCHEDULING_BASE_URL is set but empty/);
  });

  test('--help answers even when the environment is wrong', async () => {
    const run = await runInProcess(['--help'], { SCHEDULING_BASE_URL: 'nope' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage:/);
  });
});

test('options that cannot be read: what the error report still honours, read from the flags as given, by the command and the typed API alike', () => {
  const env = { GITHUB_STEP_SUMMARY: 'step.md' };
  const given = readArgvLeniently(['--concurrency', 'x', '--report-dir', 'out', '--summary', 's.md', '--base-url', 'http://staging', '--summary-x']);
  expect(fallbackOf(given, env)).toEqual({ summaryFile: 's.md', stepSummaryFile: 'step.md', reportDir: 'out', baseUrl: 'http://staging' });
  // A command that writes no verdict leaves the report directory alone (its default names no folder at all).
  for (const command of [['--list'], ['--sweep'], ['--recover', 'earlier'], ['--release=scr-20260101-00000000']]) {
    expect(fallbackOf(readArgvLeniently([...command, '--report-dir', 'out']), env).reportDir, command[0]).toBeUndefined();
  }
  expect(fallbackOf(readArgvLeniently(['--summary']), env).summaryFile).toBeUndefined();
  expect(fallbackOf({ summary: 's.md', 'report-dir': 'out' }, {})).toEqual({ summaryFile: 's.md', stepSummaryFile: undefined, reportDir: 'out', baseUrl: undefined });
});
