import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { State, type IdStyle } from './state.ts';
import { requireKey } from './routes/auth.ts';
import { businessFormats, businessRoutes, seedChanges } from './routes/business.ts';
import { BROKEN_PAGING, customerRoutes } from './routes/customers.ts';
import { teamMemberRoutes } from './routes/team-members.ts';
import { faultNamed, type FaultName } from './faults/index.ts';
import { variationNamed } from './variations.ts';
import { robustness as robustnessFaults, robustnessNamed } from './faults/robustness.ts';
import { error, everyNth, json, type RefContext, type RefRequest, type RefResponse, type Route } from './types.ts';
import { isRecord, type Row } from '../helpers/contract/record.ts';
import { pageOf, type Paging } from './paging.ts';

export interface ReferenceOptions {
  apiKey?: string;
  expiredKey?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** A named fault from reference/faults (a name from the command line is checked at start). */
  fault?: FaultName;
  /**
   * Several faults at once, each breaking another resource (the fault matrix's runs: a product
   * with one bug per resource); together with `fault`.
   */
  faults?: FaultName[];
  /** Any number of legitimate variations from reference/variations.ts. */
  variations?: string[];
  seedCustomers?: number;
  /** Any number of misbehaviours from reference/faults/robustness.ts (not contract faults). */
  robustness?: string[];
  /** Where the "redirect:<operationId>" misbehaviour sends the client. */
  redirectTo?: string;
  /** Milliseconds added before every answer: a distant staging server (npm run bench). */
  latencyMs?: number;
  /** Customers per page of the paged lists (variations list-pages-*; default 10): bigger pages for a long list (npm run bench). */
  pageSize?: number;
}

export interface RunningReference {
  url: string;
  apiKey: string;
  expiredKey: string;
  state: State;
  close(): Promise<void>;
}

/** The marker of the other run the overlapping-run misbehaviour plays. */
export const OTHER_RUN = 'scr-20260101-0badcafe';

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

function route(method: string, path: string, fault: RefContext['fault']): { route: Route; params: Record<string, string> } | 'method' | undefined {
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

/** Variation small-body-limit: request bodies over 16 KiB are refused with 413 (size limits are not shown). */
const SMALL_BODY_LIMIT = 16 * 1024;

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function idStyle(has: RefContext['varies']): IdStyle {
  if (has('ids-reused')) return 'reused';
  if (has('ids-integer') || has('ids-canonical-zeros')) return 'integer';
  if (has('ids-prefixed') || has('ids-canonical-case')) return 'prefixed';
  return 'uuid';
}

/** Customers a fresh reference holds; many-customers: enough that a list of them is long. */
const SEED_CUSTOMERS = 3;
const MANY_CUSTOMERS = 300;
/** Variation rate-limited: every RATE_LIMITED_EVERY-th request is turned away. */
const RATE_LIMITED_EVERY = 7;
/** Variation work-hours-minutes: opening and closing as minutes of the day (09:00, 17:00). */
const OPENS_AT_MINUTE = 9 * 60;
const CLOSES_AT_MINUTE = 17 * 60;
/** Variation list-paged: one page holds every record (no list in a run gets near it). */
const PAGE_SIZE = 500;
/**
 * Variations list-pages-* and the customer-list-pages / next faults: PAGED_CUSTOMERS customers in
 * pages of CUSTOMERS_PAGE (team members: MEMBERS_PAGE), so that every customer a run creates is on
 * a later page than the first. A long list (50 000 customers) is npm run bench's, not the matrix's.
 */
const PAGED_CUSTOMERS = 30;
const CUSTOMERS_PAGE = 10;
const MEMBERS_PAGE = 2;
/** Variation read-replica-lag: how far the read replica lags the writes (a fraction of a second). */
const REPLICA_LAG_MS = 50;
/** Robustness overlapping-run(-team-members): the other run writes after this many updates of this run's. */
const OVERLAP_AFTER_BUSINESS_UPDATES = 5;
const OVERLAP_AFTER_MEMBER_UPDATES = 2;
/** Robustness overlapping-run-unmarked: right after this run's first field update (its name). */
const OVERLAP_UNMARKED_AFTER_BUSINESS_UPDATES = 2;

const faultsOf = (options: ReferenceOptions): string[] => [...(options.fault ? [options.fault] : []), ...(options.faults ?? [])];

/** A name from outside the code (a command line, a test) that names nothing fails the start. */
function checkNames(options: ReferenceOptions): void {
  for (const f of faultsOf(options)) if (!faultNamed(f)) throw new Error(`unknown fault "${f}"`);
  for (const v of options.variations ?? []) if (!variationNamed(v)) throw new Error(`unknown variation "${v}"`);
  for (const r of options.robustness ?? []) if (!robustnessNamed(r)) throw new Error(`unknown robustness fault "${r}"`);
}

/** Customers a fresh reference holds: more where a variation or fault is about long lists. */
function seedCount(varies: RefContext['varies'], faults: Set<string>): number {
  if (varies('many-customers')) return MANY_CUSTOMERS;
  if (varies('list-pages-body-link') || varies('list-pages-link-header') || varies('list-pages-cursor-meta') || varies('list-pages-has-more') || [...faults].some((f) => f in BROKEN_PAGING)) return PAGED_CUSTOMERS;
  return SEED_CUSTOMERS;
}

/** How a list is paged by the variations and faults that page it (undefined: one answer). */
function pagingOf(ctx: RefContext, operationId: string | undefined, pageSize = CUSTOMERS_PAGE): Paging | undefined {
  const { varies } = ctx;
  const customers = operationId === 'listCustomers';
  const broken = (Object.keys(BROKEN_PAGING) as (keyof typeof BROKEN_PAGING)[]).find((f) => ctx.fault(f));
  if (customers && broken) return { style: 'body', size: CUSTOMERS_PAGE, fault: BROKEN_PAGING[broken] };
  const style = varies('list-pages-body-link') ? 'body' : varies('list-pages-link-header') ? 'link' : varies('list-pages-cursor-meta') ? 'cursor-meta' : varies('list-pages-has-more') ? 'has-more' : undefined;
  return style && { style, size: customers ? pageSize : MEMBERS_PAGE };
}

/**
 * Variation read-replica-lag: reads are served from a copy of the records that takes each write
 * REPLICA_LAG_MS after it was answered; without it, reads see the records themselves.
 */
function readReplica(state: State, lagging: boolean, alternating: boolean): { reads(): State; wrote(): void } {
  // The copies in the order written, each shown once it is REPLICA_LAG_MS old: by the clock, not by
  // a timer, which a busy process fires late and would make the lag grow without bound.
  const written: { at: number; copy: State }[] = [];
  // Copied only where a replica lags: the copy of a million customers is not free.
  let replica = lagging || alternating ? state.copy() : state;
  let turn = 0;
  const caughtUp = () => {
    while (written.length && written[0].at + REPLICA_LAG_MS <= Date.now()) replica = written.shift()!.copy;
    return replica;
  };
  return {
    reads: () => (alternating ? (turn++ % 2 === 0 ? state : caughtUp()) : lagging ? caughtUp() : state),
    wrote: () => {
      if (lagging || alternating) written.push({ at: Date.now(), copy: state.copy() });
    },
  };
}

/** The records a fresh reference holds, as the variations switched on shape them. */
function seedState(varies: RefContext['varies'], seedCustomers: number | undefined, faults: Set<string>): State {
  const state = new State(
    idStyle(varies),
    varies('email-field-renamed') ? 'contactEmail' : varies('email-field-email-address') ? 'emailAddress' : 'email',
    seedCustomers ?? seedCount(varies, faults),
    { timestamps: varies('timestamps'), businessVersion: varies('business-version'), lockVersion: varies('lock-version-etag') },
  );
  Object.assign(state.business, seedChanges(varies));
  // Variation work-hours-minutes: another element structure of WorkHours (not shown by the contract).
  if (varies('work-hours-minutes')) {
    state.business = { ...state.business, businessHours: [1, 2, 3].map((day) => ({ day, opensAtMinute: OPENS_AT_MINUTE, closesAtMinute: CLOSES_AT_MINUTE })) };
  }
  if (varies('sparse-records')) sparse(state, varies('strict-validation') || varies('validation-400'));
  // Variation customer-fields-snake-case: the seeded customers hold the product's own field names.
  if (varies('customer-fields-snake-case')) {
    for (const [id, c] of state.customers) state.customers.set(id, { id: c.id, first_name: c.firstName, last_name: c.lastName, email_address: c.email, phone_number: c.phoneNumber });
  }
  if (varies('lock-version')) for (const table of [state.customers, state.teamMembers]) for (const [id, row] of table) table.set(id, { ...row, lock_version: 0 });
  // Variation customers-snake-case: the customers' fields as a Rails or Django product names them.
  if (varies('customers-snake-case')) {
    const snake = (row: Row) => Object.fromEntries(Object.entries(row).map(([f, v]) => [f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
    for (const [id, row] of state.customers) state.customers.set(id, snake(row));
  }
  return state;
}

/**
 * Variation sparse-records: records that hold little, as values and fields are not shown: the
 * business's strings empty (but those whose format a strict product checks: it holds no value it
 * would refuse), no business hours, GDPR off; seeded customers and the first team member with
 * nothing but their ids, the others' strings empty.
 */
function sparse(state: State, strict: boolean): void {
  // A value the strict product would refuse is not seeded: those fields keep theirs.
  const formats = businessFormats(state.emailField);
  const formatted = (f: string) => strict && f in formats;
  const emptied = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([f, v]) => [f, typeof v === 'string' && f !== 'id' && !formatted(f) ? '' : v]));
  state.business = { ...emptied(state.business), businessHours: [], useGdprCompliance: false };
  for (const table of [state.customers, state.teamMembers]) {
    [...table.values()].forEach((row, i) => table.set(String(row.id), i % 2 === 0 ? { id: row.id } : emptied(row)));
  }
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  checkNames(options);
  const variations = new Set(options.variations ?? []);
  const varies: RefContext['varies'] = (name) => variations.has(name);
  const apiKey = options.apiKey ?? `ref_live_${randomBytes(12).toString('hex')}`;
  const expiredKey = options.expiredKey ?? `ref_expired_${randomBytes(12).toString('hex')}`;
  const faults = new Set(faultsOf(options));
  const state = seedState(varies, options.seedCustomers, faults);
  const ctx: RefContext = { state, apiKey, expiredKey, fault: (name) => faults.has(name), varies };
  const respond = responder(ctx, options);
  const server = createServer((req, res) => {
    if (options.latencyMs) setTimeout(() => respond(req, res), options.latencyMs);
    else respond(req, res);
  });
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

/**
 * How the reference answers a request: misbehaviour that comes before routing (robustness
 * faults), the route and its variations, then misbehaviour of the answer; and the other run's
 * writes the overlapping-run misbehaviours play.
 */
function responder(ctx: RefContext, options: ReferenceOptions): (req: IncomingMessage, res: ServerResponse) => void {
  // A contract fault that is a misbehaviour of the encoding (an HTML page, truncated JSON) uses
  // the same mechanism as the robustness faults: one implementation of each misbehaviour.
  const encodingFault = faultsOf(options).filter((f) => robustnessNamed(f));
  const misbehave = robustnessFaults([...(options.robustness ?? []), ...encodingFault], { redirectTo: options.redirectTo });
  ctx.keyRevoked = () => misbehave.keyRevoked();
  const rateLimited = everyNth(RATE_LIMITED_EVERY);
  const overlap = otherRun(ctx.state, options.robustness ?? []);
  const replica = readReplica(ctx.state, ctx.varies('read-replica-lag'), ctx.varies('read-replicas-alternate'));
  return (req, res) => {
    const found = route(req.method ?? 'GET', new URL(req.url ?? '/', 'http://reference').pathname, ctx.fault);
    const operationId = typeof found === 'object' ? found.route.operationId : undefined;
    const early = misbehave.before(operationId, req.url ?? '/', req.method, `${req.headers.authorization ?? ''} ${req.headers.accept ?? ''}`);
    if (early === 'hang') return;
    if (early) return void misbehave.delay().then(() => write(res, early));
    handle(req, ctx, options, rateLimited, replica)
      .then((answer) => misbehave.after(operationId, shapeAnyAnswer(ctx.varies, answer), req.headers.authorization))
      .then(
        async (answer) => {
          if (answer === 'hang') return;
          if (answer === 'drop') return void res.destroy();
          await misbehave.delay();
          write(res, answer);
          overlap(operationId);
        },
        () => write(res, error(500, 'internal', 'Internal error')),
      );
  };
}

async function handle(req: IncomingMessage, ctx: RefContext, options: ReferenceOptions, rateLimited: ReturnType<typeof everyNth>, replica: ReturnType<typeof readReplica>): Promise<RefResponse> {
  const { varies } = ctx;
  const url = new URL(req.url ?? '/', 'http://reference');
  // The interface is served under another version prefix than the documented /api/v1.
  const path = options.robustness?.includes('wrong-prefix') ? url.pathname.replace(/^\/api\/v2\//, '/api/v1/').replace(/^\/api\/v1(?=\/)/, (m) => (url.pathname.startsWith('/api/v2/') ? m : '/api/v1-not-served')) : url.pathname;
  // Variation rate-limited: every RATE_LIMITED_EVERY-th request is turned away with 429 and Retry-After: 0 (limits
  // are not shown); asked again, as Retry-After says, it is served.
  if (varies('rate-limited') && rateLimited(req.method ?? 'GET', req.url ?? '/')) return { status: 429, headers: { 'retry-after': '0' }, body: { error: 'rate_limited', message: 'Too many requests' } };
  // Variation extra-resources: the platform serves more than the three documented resources.
  if (varies('extra-resources') && /^\/api\/v1\/(services|appointments)$/.test(path)) return json(200, []);
  // Variation api-index: the version prefix itself answers an index of the resources it serves.
  if (varies('api-index') && /^\/api\/v1\/?$/.test(path)) return json(200, { resources: ['customers', 'business', 'team-members', 'locations'].map((r) => ({ name: r, href: `/api/v1/${r}` })) });
  const found = route(req.method ?? 'GET', path, ctx.fault);
  if (found === undefined) return error(404, 'not_found', 'No such path');
  if (found === 'method') return error(405, 'method_not_allowed', 'Method not allowed on this path');
  let text: string;
  try {
    text = await readBody(req, varies('small-body-limit') ? SMALL_BODY_LIMIT : MAX_REQUEST_BYTES);
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
  body = incomingRecord(varies, found.route.operationId, body);
  const request: RefRequest = { method: req.method ?? 'GET', path: url.pathname, params: found.params, headers: req.headers, body, connection: req.socket };
  // Variation media-types-checked-first: what the request asks for and sends is negotiated before any key is checked.
  if (varies('media-types-checked-first')) {
    const accept = request.headers.accept;
    if (accept !== undefined && !/(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept)) return error(406, 'not_acceptable', 'Only application/json is served');
    if (body !== undefined && !/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return error(415, 'unsupported_media_type', 'The body must be application/json');
  }
  if (varies('auth-everywhere') || (varies('auth-writes-only') && request.method !== 'GET')) {
    const denied = requireKey(request, ctx);
    if (denied) return denied;
  }
  const { operationId } = found.route;
  const reading = request.method === 'GET';
  const answer = await found.route.handler(request, reading ? { ...ctx, state: replica.reads() } : ctx);
  if (!reading) replica.wrote();
  const paging = pagingOf(ctx, operationId, options.pageSize);
  return shapeRecordAnswer(varies, request, operationId, shapeListAnswer(varies, operationId, derived(varies, operationId, shapePatchAnswer(varies, request, answer)), paging && ((rows) => pageOf(rows, url.pathname, url.searchParams, paging))));
}

/** Customer and team member writes (variations customer-record-envelope, full-name-derived). */
const RECORD_WRITES = ['createCustomer', 'updateCustomer', 'updateTeamMember'];

/**
 * A customer or team member body as the route reads it: unwrapped from {"customer": {...}} or
 * {"team_member": {...}} (customer-record-envelope), without the derived fullName (full-name-derived).
 */
function incomingRecord(varies: RefContext['varies'], operationId: string | undefined, body: unknown): unknown {
  if (!RECORD_WRITES.includes(operationId ?? '') || !isRecord(body)) return body;
  let record = body;
  const wrapper = operationId === 'updateTeamMember' ? 'team_member' : 'customer';
  if (varies('customer-record-envelope') && Object.keys(body).length === 1 && isRecord(body[wrapper])) record = body[wrapper];
  if (varies('full-name-derived')) {
    const { fullName: _derived, ...rest } = record;
    record = rest;
  }
  return record;
}

/**
 * Fields a product derives on the records it answers: fullName (full-name-derived), a role
 * object on one member (team-member-role-object), before any list or envelope shapes the answer.
 */
function derived(varies: RefContext['varies'], operationId: string | undefined, answer: RefResponse): RefResponse {
  if (answer.status >= 300 || !/(Customers?|TeamMembers?)$/.test(operationId ?? '')) return answer;
  const withName = (row: unknown) => (isRecord(row) && varies('full-name-derived') ? { ...row, fullName: `${String(row.firstName ?? '')} ${String(row.lastName ?? '')}`.trim() } : row);
  const withRole = (row: unknown) =>
    isRecord(row) && typeof row.role === 'string' && varies('team-member-role-object') && /^(find|update)TeamMember$/.test(operationId ?? '')
      ? { ...row, role: { key: row.role, name: row.role.charAt(0).toUpperCase() + row.role.slice(1) } }
      : row;
  if (!varies('full-name-derived') && !varies('team-member-role-object')) return answer;
  const shape = (row: unknown) => withRole(withName(row));
  return { ...answer, body: Array.isArray(answer.body) ? answer.body.map(shape) : shape(answer.body) };
}

/**
 * Variations of what the contract does not show about records: a state the server keeps on each
 * customer or team member (record-state, team-member-state, section 3), an event on every write
 * (event-ids, event-link, section 6), and 400 or 403 for a team member id that names none
 * (tm-unknown-id-400, tm-unknown-id-403, section 7).
 */
function shapeRecordAnswer(varies: RefContext['varies'], request: RefRequest, operationId: string | undefined, answer: RefResponse): RefResponse {
  let shaped = answer;
  // Fields the server keeps on every record it answers with, one or a list of them.
  const keeping = (fields: Row): RefResponse => {
    const kept = (row: unknown) => (isRecord(row) ? { ...row, ...fields } : row);
    return { ...shaped, body: Array.isArray(shaped.body) ? shaped.body.map(kept) : kept(shaped.body) };
  };
  if (varies('record-state') && /Customers?$/.test(operationId ?? '') && shaped.status < 300) shaped = keeping({ state: 'active' });
  if (varies('team-member-state') && /TeamMembers?$/.test(operationId ?? '') && shaped.status < 300) shaped = keeping({ status: 'active', statusChangedAt: '2026-01-01T00:00:00Z' });
  if (varies('event-ids') && request.method !== 'GET' && shaped.status < 300) shaped = { ...shaped, headers: { ...shaped.headers, 'x-event-id': `evt_${randomBytes(6).toString('hex')}` } };
  if (varies('event-link') && request.method !== 'GET' && shaped.status < 300) shaped = withLink(shaped, `</api/v1/events/evt_${randomBytes(6).toString('hex')}>; rel="event"`);
  // Variation customer-record-envelope: one record, wrapped under its type's name (Rails-style).
  if (varies('customer-record-envelope') && shaped.status < 300 && isRecord(shaped.body) && /^(create|find|update)(Customer|TeamMember)$/.test(operationId ?? '')) {
    shaped = { ...shaped, body: { [/Customer$/.test(operationId ?? '') ? 'customer' : 'team_member']: shaped.body } };
  }
  if (varies('tm-unknown-id-400') && operationId === 'findTeamMember' && shaped.status === 404) shaped = error(400, 'invalid_id', 'No team member has this id');
  if (varies('tm-unknown-id-403') && operationId === 'findTeamMember' && shaped.status === 404) shaped = error(403, 'forbidden', 'No team member of yours has this id');
  return shaped;
}

/**
 * Variations of what the contract leaves open in every answer: the shape of an error body
 * (section 7), the status of a validation error, and headers about the version (section 9).
 */
function shapeAnyAnswer(varies: RefContext['varies'], answer: RefResponse): RefResponse {
  let shaped = answer;
  if (varies('validation-400') && shaped.status === 422) shaped = { ...shaped, status: 400 };
  const message = (shaped.body as { message?: string } | undefined)?.message ?? 'Error';
  if (shaped.status >= 400 && varies('errors-problem-json')) {
    shaped = { status: shaped.status, headers: { ...shaped.headers, 'content-type': 'application/problem+json' }, raw: JSON.stringify({ type: 'about:blank', title: message, status: shaped.status }) };
  }
  if (shaped.status >= 400 && varies('errors-plain-text')) {
    shaped = { status: shaped.status, headers: { ...shaped.headers, 'content-type': 'text/plain; charset=utf-8' }, raw: `${shaped.status} ${message}` };
  }
  if (varies('version-headers')) shaped = { ...shaped, headers: { ...shaped.headers, 'api-version': '1.4.2', deprecation: 'false' } };
  if (varies('version-successor-link')) shaped = withLink({ ...shaped, headers: { ...shaped.headers, sunset: 'Wed, 31 Dec 2031 23:59:59 GMT' } }, '</api/v2>; rel="successor-version"');
  return shaped;
}

/** Variations of what a successful PATCH answers: the full record (default), the changes, or {}. */
function shapePatchAnswer(varies: RefContext['varies'], request: RefRequest, answer: RefResponse): RefResponse {
  if (request.method !== 'PATCH' || answer.status >= 300) return answer;
  if (varies('patch-answers-changes')) return { ...answer, body: request.body };
  if (varies('patch-answers-empty')) return { ...answer, body: {} };
  return answer;
}

/**
 * Variations of the lists (payload shapes, paging and ordering are not shown): {"data": [...]}
 * (list-envelope), one page with its paging data (list-paged), newest first (list-newest-first),
 * or ordered by name (list-sorted-by-name).
 */
function shapeListAnswer(varies: RefContext['varies'], operationId: string | undefined, answer: RefResponse, page?: (rows: unknown[]) => RefResponse): RefResponse {
  if (answer.status >= 300 || !Array.isArray(answer.body)) return answer;
  if (operationId !== 'listCustomers' && operationId !== 'listTeamMembers') return answer;
  let rows = answer.body as Record<string, unknown>[];
  if (varies('list-newest-first')) rows = rows.toReversed();
  if (varies('list-sorted-by-name')) rows = rows.toSorted((a, b) => `${a.lastName} ${a.firstName}`.localeCompare(`${b.lastName} ${b.firstName}`));
  if (varies('list-envelope')) return { ...answer, body: { data: rows } };
  // Variation list-hal: a HAL collection.
  if (varies('list-hal')) {
    const rel = operationId === 'listCustomers' ? 'customers' : 'teamMembers';
    return { ...answer, body: { _embedded: { [rel]: rows }, _links: { self: { href: `/api/v1/${operationId === 'listCustomers' ? 'customers' : 'team-members'}` } }, count: rows.length } };
  }
  if (page) {
    const paged = page(rows);
    return { ...paged, headers: { ...answer.headers, ...paged.headers } };
  }
  if (varies('list-paged')) return { ...answer, body: { items: rows, page: 1, pageSize: PAGE_SIZE, total: rows.length, next: null } };
  return { ...answer, body: rows };
}

/** One more Link header value, beside any the answer already carries. */
function withLink(answer: RefResponse, link: string): RefResponse {
  const links = [answer.headers?.link, link].filter(Boolean).join(', ');
  return { ...answer, headers: { ...answer.headers, link: links } };
}

function write(res: ServerResponse, answer: RefResponse): void {
  const headers: Record<string, string> = { ...answer.headers };
  let payload: string | undefined = answer.raw;
  if (payload === undefined && answer.body !== undefined) payload = JSON.stringify(answer.body);
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  res.writeHead(answer.status, headers);
  if (!answer.trickleMs || !payload) return void res.end(payload);
  const bytes = Buffer.from(payload);
  let sent = 0;
  const drip = setInterval(() => {
    if (res.destroyed) return clearInterval(drip);
    res.write(bytes.subarray(sent, ++sent));
    if (sent >= bytes.length) clearInterval(drip), res.end();
  }, answer.trickleMs).unref();
}

/**
 * Robustness overlapping-run: another run starts writing to the business record mid-run;
 * overlapping-run-unmarked: to a field no marker can carry, while its lease says it is going;
 * overlapping-run-team-members: to a team member (not the one this run is changing).
 */
function otherRun(state: State, robustness: string[]): (operationId: string | undefined) => void {
  let businessUpdates = 0;
  let memberUpdates = 0;
  return (operationId) => {
    if (robustness.includes('overlapping-run') && operationId === 'updateBusiness' && ++businessUpdates === OVERLAP_AFTER_BUSINESS_UPDATES) {
      state.business = { ...state.business, name: `Conformance Check Business ${OTHER_RUN}` };
    }
    if (robustness.includes('overlapping-run-unmarked') && operationId === 'updateBusiness' && ++businessUpdates === OVERLAP_UNMARKED_AFTER_BUSINESS_UPDATES) {
      state.business = { ...state.business, currencyIso: state.business.currencyIso === 'CHF' ? 'JPY' : 'CHF' };
      state.insert(state.customers, { firstName: 'Conformance', lastName: `Customer ${OTHER_RUN} lease-${Math.floor(Date.now() / 1000)}`, email: `lease+${OTHER_RUN}@example.com` }, 'cus');
    }
    if (robustness.includes('overlapping-run-team-members') && operationId === 'updateTeamMember' && ++memberUpdates === OVERLAP_AFTER_MEMBER_UPDATES) {
      const [id, member] = [...state.teamMembers].at(-1)!;
      state.teamMembers.set(id, { ...member, firstName: `Conformance ${OTHER_RUN}` });
    }
  };
}
