import { mkdtempSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../helpers/command/cli.ts';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
  reportDir: string;
}

/** Runs the command's main() in this process, with a clean environment plus `env`, capturing its output. */
export async function runMain(args: string[], env: Record<string, string> = {}, onOutput?: (text: string) => void): Promise<InProcessRun> {
  const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-main-')), 'reports');
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (t: string) => {
      stdout += t;
      onOutput?.(t);
    } },
    stderr: { write: (t: string) => {
      stderr += t;
      onOutput?.(t);
    } },
  };
  const code = await main([...args, ...(args.includes('--report-dir') ? [] : ['--report-dir', reportDir])], { CI: 'true', ...env }, io);
  return { code, stdout, stderr, reportDir };
}

/** A pass-through HTTP server in front of a target that writes down every request it forwards. */
export interface RequestLog {
  url: string;
  /** "METHOD /path" of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function logRequests(targetUrl: string): Promise<RequestLog> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const upstream = request(targetUrl + req.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
