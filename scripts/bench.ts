/**
 * Numbers for the safety mechanics (npm run bench): what a capped 20 MiB body costs the client,
 * and how long full runs take against the reference, plain and with misbehaviour switched on.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../helpers/http/client.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { projectRoot } from '../helpers/command/paths.ts';
import { startReference } from '../reference/server.ts';

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** A 20 MiB body streamed from one reused chunk, so that only the client's memory grows. */
async function cappedBody(): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const pump = () => {
      while (!res.destroyed && sent < 20 * 2 ** 20 && res.write(chunk)) sent += chunk.length;
      if (res.destroyed || sent >= 20 * 2 ** 20) return void res.end();
      res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new ApiClient({ baseUrl, apiKey: 'bench', vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 10_000, runId: 'bench' });
  global.gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const outcome = await client.send({ method: 'GET', path: '/huge' }).then(() => 'answer', (e: Error) => e.message);
  const after = process.memoryUsage();
  console.log(`20 MiB body: ${outcome} in ${(performance.now() - started).toFixed(0)} ms; heap+buffers grew ${mib(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers)} MiB${global.gc ? '' : ' (run with --expose-gc for a steadier number)'}`);
  await client.close();
  server.closeAllConnections();
  server.close();
}

async function fullRun(label: string, robustness: string[], args: string[] = []): Promise<void> {
  const ref = await startReference({ robustness });
  const dir = mkdtempSync(join(tmpdir(), 'scr-bench-'));
  const started = performance.now();
  // Spawned asynchronously: a synchronous spawn would block the reference's event loop.
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [join(projectRoot, 'bin/scheduling-conformance.js'), '--base-url', ref.url, '--report-dir', dir, ...args], {
      env: { PATH: process.env.PATH ?? '', CI: 'true', SCHEDULING_API_KEY: ref.apiKey },
      stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
    checks: { exchanges: { attempt: number }[] }[];
    resources: { maxRssMiB: number };
    leftOnTarget: unknown[];
  };
  const exchanges = result.checks.flatMap((c) => c.exchanges);
  console.log(
    `${label.padEnd(28)} exit ${code}, ${seconds} s, ${exchanges.length} requests in checks (${exchanges.filter((e) => e.attempt > 1).length} retries), ` +
      `peak RSS ${result.resources.maxRssMiB} MiB, left on target ${result.leftOnTarget.length}`,
  );
  await ref.close();
}

await cappedBody();
await fullRun('plain', []);
await fullRun('503 every 5th request', ['unavailable-every-5th']);
await fullRun('hanging find, --timeout 1000', ['hang:findCustomer'], ['--timeout', '1000']);
await fullRun('20 MiB team member', ['huge-body:findTeamMember']);
await fullRun('--rate 5', [], ['--rate', '5']);
