import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { State, type IdStyle } from './state.ts';
import { requireKey } from './routes/auth.ts';
import { businessRoutes } from './routes/business.ts';
import { customerRoutes } from './routes/customers.ts';
import { teamMemberRoutes } from './routes/team-members.ts';
import { faultNamed, type FaultName } from './faults/index.ts';
import { variationNamed } from './variations.ts';
import { robustness as robustnessFaults, robustnessNamed } from './faults/robustness.ts';
import { error, type RefContext, type RefRequest, type RefResponse, type Route } from './types.ts';

export interface ReferenceOptions {
  apiKey?: string;
  expiredKey?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** At most one named fault from reference/faults (a name from the command line is checked at start). */
  fault?: FaultName;
  /** Any number of legitimate variations from reference/variations.ts. */
  variations?: string[];
  seedCustomers?: number;
  /** Any number of misbehaviours from reference/faults/robustness.ts (not contract faults). */
  robustness?: string[];
  /** Where the "redirect:<operationId>" misbehaviour sends the client. */
  redirectTo?: string;
  /** Milliseconds added before every answer: a distant staging server (npm run bench). */
  latencyMs?: number;
}

export interface RunningReference {
  url: string;
  apiKey: string;
  expiredKey: string;
  state: State;
  close(): Promise<void>;
}

const ROUTES: Route[] = [...customerRoutes, ...businessRoutes, ...teamMemberRoutes];
const MAX_REQUEST_BYTES = 1024 * 1024;

function match(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^${pattern}$`).exec(path);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
}

function route(method: string, path: string, fault: (name: string) => boolean): { route: Route; params: Record<string, string> } | 'method' | undefined {
  let pathKnown = false;
  for (const r of ROUTES) {
    if (r.operationId && fault(`route-missing:${r.operationId}`)) continue;
    const params = match(r.path, path);
    if (!params) continue;
    pathKnown = true;
    if (r.method === method) return { route: r, params };
  }
  return pathKnown ? 'method' : undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function idStyle(has: (v: string) => boolean): IdStyle {
  if (has('ids-integer')) return 'integer';
  if (has('ids-prefixed')) return 'prefixed';
  return 'uuid';
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  if (options.fault && !faultNamed(options.fault)) throw new Error(`unknown fault "${options.fault}"`);
  for (const v of options.variations ?? []) if (!variationNamed(v)) throw new Error(`unknown variation "${v}"`);
  for (const r of options.robustness ?? []) if (!robustnessNamed(r)) throw new Error(`unknown robustness fault "${r}"`);
  // A contract fault that is a misbehaviour of the encoding (an HTML page, truncated JSON) uses
  // the same mechanism as the robustness faults: one implementation of each misbehaviour.
  const encodingFault = options.fault && robustnessNamed(options.fault) ? [options.fault] : [];
  const misbehave = robustnessFaults([...(options.robustness ?? []), ...encodingFault], { redirectTo: options.redirectTo });
  const variations = new Set(options.variations ?? []);
  const varies = (name: string) => variations.has(name);
  const apiKey = options.apiKey ?? `ref_live_${randomBytes(12).toString('hex')}`;
  const expiredKey = options.expiredKey ?? `ref_expired_${randomBytes(12).toString('hex')}`;
  const state = new State(
    idStyle(varies),
    varies('email-field-renamed') ? 'contactEmail' : 'email',
    options.seedCustomers ?? (varies('many-customers') ? 300 : 3),
    varies('timestamps'),
  );
  const ctx: RefContext = { state, apiKey, expiredKey, fault: (name) => options.fault === name, varies };

  async function handle(req: IncomingMessage): Promise<RefResponse> {
    const url = new URL(req.url ?? '/', 'http://reference');
    // Fault: the interface is served under another version prefix than the documented /api/v1.
    const path = ctx.fault('wrong-prefix') ? url.pathname.replace(/^\/api\/v2\//, '/api/v1/').replace(/^\/api\/v1(?=\/)/, (m) => (url.pathname.startsWith('/api/v2/') ? m : '/api/v1-not-served')) : url.pathname;
    const found = route(req.method ?? 'GET', path, ctx.fault);
    if (found === undefined) return error(404, 'not_found', 'No such path');
    if (found === 'method') return error(405, 'method_not_allowed', 'Method not allowed on this path');
    let text: string;
    try {
      text = await readBody(req);
    } catch {
      return error(413, 'too_large', 'Request body too large');
    }
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return error(400, 'invalid_json', 'The body is not valid JSON');
      }
    }
    const request: RefRequest = { method: req.method ?? 'GET', path: url.pathname, params: found.params, headers: req.headers, body };
    if (varies('auth-everywhere')) {
      const denied = requireKey(request, ctx);
      if (denied) return denied;
    }
    return shapeListAnswer(found.route.operationId, shapePatchAnswer(request, await found.route.handler(request, ctx)));
  }

  /** Variations of what a successful PATCH answers: the full record (default), the changes, or {}. */
  function shapePatchAnswer(request: RefRequest, answer: RefResponse): RefResponse {
    if (request.method !== 'PATCH' || answer.status >= 300) return answer;
    if (varies('patch-answers-changes')) return { ...answer, body: request.body };
    if (varies('patch-answers-empty')) return { ...answer, body: {} };
    return answer;
  }

  /** Variation list-envelope: the lists answer {"data": [...]} instead of a bare array. */
  function shapeListAnswer(operationId: string | undefined, answer: RefResponse): RefResponse {
    if (!varies('list-envelope') || answer.status >= 300 || !Array.isArray(answer.body)) return answer;
    if (operationId !== 'listCustomers' && operationId !== 'listTeamMembers') return answer;
    return { ...answer, body: { data: answer.body } };
  }

  function write(res: ServerResponse, answer: RefResponse): void {
    const headers: Record<string, string> = { ...answer.headers };
    let payload: string | undefined = answer.raw;
    if (payload === undefined && answer.body !== undefined) payload = JSON.stringify(answer.body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    res.writeHead(answer.status, headers);
    res.end(payload);
  }

  const server = createServer((req, res) => {
    if (options.latencyMs) setTimeout(() => answer(req, res), options.latencyMs);
    else answer(req, res);
  });
  function answer(req: IncomingMessage, res: ServerResponse): void {
    const found = route(req.method ?? 'GET', new URL(req.url ?? '/', 'http://reference').pathname, ctx.fault);
    const operationId = typeof found === 'object' ? found.route.operationId : undefined;
    const early = misbehave.before(operationId, req.url ?? '/');
    if (early === 'hang') return;
    if (early) return void misbehave.delay().then(() => write(res, early));
    handle(req)
      .then((answer) => misbehave.after(operationId, answer))
      .then(
        async (answer) => {
          if (answer === 'hang') return;
          await misbehave.delay();
          write(res, answer);
        },
        () => write(res, error(500, 'internal', 'Internal error')),
      );
  }
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    expiredKey,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
