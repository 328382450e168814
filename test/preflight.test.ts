/**
 * A target that cannot be the Scheduling API, and keys that cannot be right, end the run before
 * the suites: one line on stderr, exit 2, never a screen of failed checks. (A target with one
 * route missing is still judged: see route-missing:* in the fault matrix.) In process: the exit
 * code and stderr of the process itself are proven in cli.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../reference/server.ts';
import { runInProcess } from './support/cli.ts';

const running: RunningReference[] = [];
afterAll(() => Promise.all(running.map((r) => r.close())));

function expectOneLine(run: { code: number | null; stderr: string }, message: RegExp) {
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
}

describe.concurrent('preflight: no Scheduling API at the base URL', () => {
  test.for([
    ['served under another prefix (every documented path 404)', ['wrong-prefix'], /every documented path answered 404 — is the base URL right\?$/],
    ['an HTML page at every documented path', ['html:listCustomers', 'html:retrieveBusiness', 'html:listTeamMembers'], /every documented path answered an HTML page — is the base URL right\?$/],
  ] as const)('%s: exit 2, one line', async ([, robustness, message]) => {
    const ref = await startReference({ robustness: [...robustness] });
    running.push(ref);
    const run = await runInProcess(['--base-url', ref.url], { SCHEDULING_API_KEY: ref.apiKey });
    expectOneLine(run, new RegExp(`^scheduling-conformance: no Scheduling API v1 at ${ref.url.replace(/\./g, '\\.')}: ${message.source}`));
  });

  test('a server that answers the same body whatever the path: exit 2, one line', async () => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = await runInProcess(['--base-url', url], { SCHEDULING_API_KEY: 'k' });
      expectOneLine(run, /^scheduling-conformance: no Scheduling API v1 at .*: every documented path answered 200 with the same body as a path the contract does not have — is the base URL right\?$/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('an expired key equal to the valid key is a usage error, and the key is not printed', async () => {
    const run = await runInProcess(['--base-url', 'http://127.0.0.1:1'], { SCHEDULING_API_KEY: 'same-key-123', SCHEDULING_EXPIRED_KEY: 'same-key-123' });
    expectOneLine(run, /^scheduling-conformance: the expired key is the same as the valid key/);
    expect(run.stderr + run.stdout).not.toContain('same-key-123');
  });
});
