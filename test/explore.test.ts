/**
 * Exploration (helpers/explore/), on fixed seeds: the same seed against the same target sends the
 * same sequence and gives the same verdict; a fault no hand-written check names is found by
 * exploration alone and shrunk; a variation passes with nothing left; --read-only writes nothing.
 */
import { describe, expect, test } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';
import { readResult } from './support/verdicts.ts';
import { runAgainst } from './support/fault-matrix.ts';
import { faultNamed } from '../reference/faults/index.ts';

const EXPLORE_ONLY = ['--only', '^EXPLORE-'];

/** The requests exploration sent, as method and path (ids, near misses of them included, differ between runs). */
function requestsOf(runDir: string): string[] {
  return harOf(runDir);
}

/**
 * The requests by resource, each in the order sent: commands on different resources go side by
 * side (their requests interleave as the answers come), those on one resource one after another.
 */
function requestsByResource(runDir: string): Record<string, string[]> {
  const by: Record<string, string[]> = {};
  for (const r of harOf(runDir)) (by[/\/api\/v1\/([^/]+)/.exec(r)?.[1] ?? r] ??= []).push(r);
  return by;
}

function harOf(runDir: string): string[] {
  const reportDir = existsSync(join(runDir, 'exchanges.har')) ? runDir : join(runDir, readdirSync(runDir)[0]);
  const har = JSON.parse(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: { request: { method: string; url: string } }[] } };
  return har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname.replace(/\/[^/]*[0-9a-f]{8}-[0-9a-f-]{27}[^/]*$/i, '/{id}')}`);
}

async function explore(args: string[], variations: string[] = []) {
  const ref = await startReference({ variations });
  try {
    const before = ref.state.snapshot();
    const run = await runInProcess(['--base-url', ref.url, ...EXPLORE_ONLY, ...args], { SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: false });
    return { run, result: readResult(run), before, after: ref.state.snapshot() };
  } finally {
    await ref.close();
  }
}

describe('exploration', () => {
  test('the same seed against the same target sends the same sequence and gives the same verdict', async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const { run, result, before, after } = await explore(['--explore', '25', '--explore-seed', '7']);
      expect(run.code, run.stderr).toBe(0);
      expect(after).toEqual(before);
      runs.push({ outcomes: result.checks.map((c) => `${c.id} ${c.outcome}`), requests: requestsByResource(run.reportDir), explore: (result as { explore?: unknown }).explore });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[0].explore).toEqual({ commands: 25, seed: 7 });
    expect(runs[0].outcomes).toEqual(expect.arrayContaining(['EXPLORE-UPDATE-APPLIES passed']));
    expect(runs[0].requests.business.filter((r) => r.startsWith('PATCH')).length).toBeGreaterThan(0);
  }, 60_000);

  test('a fault no check names is found by exploration alone, shrunk, with the seed that replays it', async () => {
    const fault = faultNamed('customer-create-non-ascii-mangled')!;
    const run = await runAgainst([fault], false, [], ['--only', '^EXPLORE-', '--explore', String(fault.explore!.commands), '--explore-seed', String(fault.explore!.seed)]);
    expect(run.code, run.stderr).toBe(1);
    const failed = readResult(run).checks.filter((c) => c.outcome === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['EXPLORE-CUSTOMER-LIFECYCLE']);
    expect(failed[0].reason).toMatch(/the shortest sequence found \([12] command\(s\), from \d+ after \d+ replay\(s\) of shrinking\):\n  1\. POST \/api\/v1\/customers/);
    expect(failed[0].reason).toMatch(new RegExp(`replay it with --explore ${fault.explore!.commands} --explore-seed ${fault.explore!.seed}`));
    expect(run.stdout).toMatch(new RegExp(`Exploration after the checks: ${fault.explore!.commands} commands, seed ${fault.explore!.seed}`));
  }, 60_000);

  test('a variation passes the exploration with nothing left on the target', async () => {
    const { run, result, before, after } = await explore(['--explore', '40', '--explore-seed', '3'], ['patch-answers-changes', 'read-replica-lag']);
    expect(run.code, run.stderr).toBe(0);
    expect(result.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
    expect(after).toEqual(before);
  }, 60_000);

  test('--read-only explores with reads only', async () => {
    const { run, before, after } = await explore(['--read-only', '--explore', '30', '--explore-seed', '5']);
    expect(run.code, run.stderr).toBe(0);
    expect(requestsOf(run.reportDir).filter((r) => !r.startsWith('GET'))).toEqual([]);
    expect(after).toEqual(before);
  }, 60_000);
});
