/**
 * json-server 0.17.4, a widely used fake REST server nobody here wrote, started by the tests
 * themselves: its router over a temporary db.json seeded like the reference, served under
 * /api/v1 by its own rewriter. Plain, it keeps json-server's conventions (integer ids, the next
 * one the highest plus one, so a deleted top id comes back with the next create). `contract`
 * adds the small middleware the contract needs: the bearer key on the business operations, and
 * 405 for creating or deleting a team member.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import { seedBusiness, seedCustomers, seedTeamMembers } from '../../reference/seed.ts';

type Middleware = (req: { method: string; path: string; headers: Record<string, string | undefined> }, res: { status(code: number): { json(body: unknown): void } }, next: () => void) => void;
interface App extends RequestListener {
  use(...handlers: unknown[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
interface JsonServer {
  create(): App;
  router(file: string): unknown;
  rewriter(routes: Record<string, string>): unknown;
  defaults(options: { logger: boolean; static?: string; noCors?: boolean }): unknown[];
}
const jsonServer = createRequire(import.meta.url)('json-server') as JsonServer;

export interface RunningJsonServer {
  url: string;
  apiKey: string;
  /** The database as json-server keeps it on disk: what a run must leave as found. */
  data(): unknown;
  close(): Promise<void>;
}

export async function startJsonServer(options: { contract: boolean; seedCustomers?: number }): Promise<RunningJsonServer> {
  const dir = mkdtempSync(join(tmpdir(), 'scr-json-server-'));
  const file = join(dir, 'db.json');
  const withIds = (rows: Record<string, unknown>[]) => rows.map((r, i) => ({ id: i + 1, ...r }));
  writeFileSync(file, JSON.stringify({
    customers: withIds(seedCustomers(options.seedCustomers ?? 3)),
    business: seedBusiness('email'),
    'team-members': withIds(seedTeamMembers()),
  }, null, 2));
  const apiKey = 'js_live_0123456789abcdef';
  const app = jsonServer.create();
  // No static folder (an empty one), no request log on the test's output.
  app.use(jsonServer.defaults({ logger: false, static: dir }));
  if (options.contract) app.use(contractMiddleware(apiKey));
  app.use(jsonServer.rewriter({ '/api/v1/*': '/$1' }));
  app.use(jsonServer.router(file));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    data: () => JSON.parse(readFileSync(file, 'utf8')),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** What the contract asks beyond json-server's conventions (sections 1 and 5). */
function contractMiddleware(apiKey: string): Middleware {
  return (req, res, next) => {
    if (/^\/api\/v1\/business\/?$/.test(req.path) && req.headers.authorization !== `Bearer ${apiKey}`) {
      return res.status(401).json({ error: 'unauthorized' });
    }
    if (/^\/api\/v1\/team-members\/?$/.test(req.path) && req.method === 'POST') return res.status(405).json({ error: 'method not allowed' });
    if (/^\/api\/v1\/team-members\/[^/]+\/?$/.test(req.path) && req.method === 'DELETE') return res.status(405).json({ error: 'method not allowed' });
    next();
  };
}
