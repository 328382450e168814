import { rowsOf, type State } from '../state.ts';
import { error, json, lookUp, type RefContext, type RefRequest, type Route } from '../types.ts';
import { isRecord, type Row } from '../../helpers/contract/record.ts';
import { normalised } from './business.ts';
import type { RefResponse } from '../types.ts';

/** The faults of the paged customer list, and how each breaks it (applied where the list is paged: reference/paging.ts). */
export const BROKEN_PAGING = { 'customer-list-pages-stop-early': 'stop-early', 'customer-list-pages-repeat': 'repeat', 'customer-list-next-loops': 'loop' } as const;

/** Customers deleted so far, per reference instance: some faults still show or answer them. */
const deleted = new WeakMap<State, Map<string, Row>>();
/** The list as it was at the first customer request, for the stale-list fault. */
const firstList = new WeakMap<State, Row[]>();
/** Reference instances whose customer delete has taken a team member with it (fault customer-delete-removes-team-member). */
const tookMember = new WeakSet<State>();
/** Fault customer-deleted-reappears-on-create: the customers deleted since the last create, per reference. */
const deletedSinceCreate = new WeakMap<State, Row[]>();
/** Fault customer-list-phone-stale: the customers as the search index last saw them, per reference. */
const searchIndex = new WeakMap<State, Map<string, Row>>();
/** Fault customer-list-phone-stale: the fields whose change refreshes the index. */
const INDEXED = ['firstName', 'lastName', 'email'];
/** Fault customer-list-one-write-behind: the list as the last write's transaction refilled it, before it committed. */
const listCache = new WeakMap<State, readonly Row[]>();
/** Fault customer-update-every-3rd-hits-member: customer updates so far, per reference. */
const customerUpdates = new WeakMap<State, number>();

function indexOf(ctx: RefContext): Map<string, Row> {
  let index = searchIndex.get(ctx.state);
  if (!index) searchIndex.set(ctx.state, (index = new Map()));
  return index;
}

/** Fault customer-update-astral-cut: a text cut before its first character outside the BMP (a utf8mb3 column). */
const cutAtAstral = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([f, v]) => [f, typeof v === 'string' ? v.replace(/[\u{10000}-\u{10FFFF}][^]*$/u, '') : v]));

function tombstones(ctx: RefContext): Map<string, Row> {
  let map = deleted.get(ctx.state);
  if (!map) deleted.set(ctx.state, (map = new Map()));
  return map;
}

/** The answer for an id that names no customer (404; some faults answer otherwise). */
function missing(req: RefRequest, ctx: RefContext) {
  const gone = tombstones(ctx).get(req.params.id);
  if (gone && req.method === 'GET' && ctx.fault('customer-delete-leaves-findable')) return json(200, gone);
  if (gone && ctx.fault('customer-deleted-410')) return error(410, 'gone', 'That customer was deleted');
  if (req.method === 'GET' && ctx.fault('customer-find-unknown-200')) return json(200, {});
  return error(404, 'not_found', 'No customer with that id');
}

function find(req: RefRequest, ctx: RefContext) {
  if (ctx.fault('customer-find-ignores-id')) {
    const first = ctx.state.customers.values().next().value;
    if (first) return json(200, first);
  }
  const customer = customerOf(req, ctx);
  return customer ? json(200, customer) : missing(req, ctx);
}

function list(_req: RefRequest, ctx: RefContext) {
  if (ctx.fault('customer-list-stale')) return json(200, firstList.get(ctx.state));
  let rows = rowsOf(ctx.state.customers);
  if (ctx.fault('customer-list-phone-stale')) rows = rows.map((r) => indexOf(ctx).get(String(r.id)) ?? r);
  if (ctx.fault('customer-list-keeps-deleted')) rows = [...rows, ...tombstones(ctx).values()];
  // Fault customer-list-one-write-behind: the cache refilled before the last write committed.
  if (ctx.fault('customer-list-one-write-behind')) rows = structuredClone(listCache.get(ctx.state) ?? rows);
  return json(200, rows);
}

/** Variation unique-customer-email: another customer (not `except`) already holds this email. */
function emailTaken(ctx: RefContext, fields: Row, except?: unknown): boolean {
  if (!ctx.varies('unique-customer-email') || typeof fields.email !== 'string') return false;
  return [...ctx.state.customers.values()].some((c) => c.id !== except && c.email === fields.email);
}

function create(req: RefRequest, ctx: RefContext) {
  if (!isRecord(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...sent } = req.body;
  const kept = incoming(ctx, sent);
  if ('refusal' in kept) return kept.refusal;
  const { fields } = kept;
  if (emailTaken(ctx, fields)) return error(409, 'conflict', 'A customer with that email exists');
  if (ctx.fault('customer-create-drops-field')) delete fields[Object.keys(fields).at(-1) ?? ''];
  // Fault customer-create-non-ascii-mangled: a text stored at creation loses every character outside ASCII to "?".
  if (ctx.fault('customer-create-non-ascii-mangled')) for (const [k, v] of Object.entries(fields)) if (typeof v === 'string') fields[k] = v.replace(/[^\x00-\x7f]/gu, '?');
  // Fault customer-deleted-reappears-on-create: the create reloads the soft-delete flags from a stale copy.
  if (ctx.fault('customer-deleted-reappears-on-create')) {
    for (const back of deletedSinceCreate.get(ctx.state) ?? []) ctx.state.customers.set(String(back.id), back);
    deletedSinceCreate.set(ctx.state, []);
  }
  const customer = ctx.state.insert(ctx.state.customers, structuredClone(fields), 'cus');
  if (ctx.fault('customer-list-phone-stale')) indexOf(ctx).set(String(customer.id), customer);
  // Fault customer-create-answers-unstored: the answer is built from the request, the row stored without its last field.
  if (ctx.fault('customer-create-answers-unstored')) {
    const stored = { ...customer };
    delete stored[Object.keys(fields).at(-1) ?? ''];
    ctx.state.customers.set(String(customer.id), stored);
  }
  // Fault customer-create-twice: a retried insert stores the customer a second time, under another id.
  if (ctx.fault('customer-create-twice')) ctx.state.insert(ctx.state.customers, structuredClone(fields), 'cus');
  const status = ctx.varies('create-200') ? 200 : 201;
  // Fault customer-create-answers-empty: stored, and answered with no body at all.
  if (ctx.fault('customer-create-answers-empty')) return { status, raw: '' };
  if (ctx.fault('customer-create-no-id')) {
    const { id: _id, ...withoutId } = customer;
    return json(status, withoutId);
  }
  return json(status, customer);
}

/** Variation customer-fields-snake-case: the only customer fields a product with strong parameters keeps. */
export const SNAKE_CASE_FIELDS = ['first_name', 'last_name', 'email_address', 'phone_number'];

/**
 * What a customer write keeps of the fields sent, as the variations shape it (snake_case fields,
 * a required phone number, optimistic locking, phone numbers in E.164); an error answer refuses it.
 */
function incoming(ctx: RefContext, fields: Row, current?: Row): Kept {
  let kept = ctx.varies('customer-fields-snake-case') ? Object.fromEntries(Object.entries(fields).filter(([f]) => SNAKE_CASE_FIELDS.includes(f))) : fields;
  if (ctx.varies('customer-create-requires-phone') && (!current || 'phoneNumber' in kept) && (typeof kept.phoneNumber !== 'string' || kept.phoneNumber === '')) {
    return { refusal: error(422, 'invalid_value', 'phoneNumber is required') };
  }
  if ('phoneNumber' in kept) kept = { ...kept, phoneNumber: normalised(ctx, 'phoneNumber', kept.phoneNumber) };
  // Variation customer-email-lowercased: an email address kept in one case.
  if (ctx.varies('customer-email-lowercased') && typeof kept.email === 'string') kept = { ...kept, email: kept.email.toLowerCase() };
  return locked(ctx, kept, current);
}

/** Variation lock-version: every write adds one to lock_version; a stale one sent is a conflict (409). */
export function locked(ctx: RefContext, fields: Row, current?: Row): Kept {
  if (!ctx.varies('lock-version')) return { fields };
  const { lock_version: sent, ...rest } = fields;
  const version = typeof current?.lock_version === 'number' ? current.lock_version : -1;
  if (sent !== undefined && sent !== version) return { refusal: error(409, 'stale_object', 'The record was changed by someone else (lock_version)') };
  return { fields: { ...rest, lock_version: version + 1 } };
}
export type Kept = { fields: Row } | { refusal: RefResponse };

const customerOf = (req: RefRequest, ctx: RefContext) => lookUp(ctx.state.customers, req.params.id, ctx, 'customer-path-id-lenient');

function update(req: RefRequest, ctx: RefContext) {
  const addressed = customerOf(req, ctx);
  // Fault customer-patch-upsert: an update of an id that names no customer creates it under that id.
  if (!addressed && ctx.fault('customer-patch-upsert') && isRecord(req.body)) {
    const { id: _ignored, ...fields } = req.body;
    const created = { id: req.params.id, ...structuredClone(fields) };
    ctx.state.customers.set(req.params.id, created);
    return json(200, created);
  }
  if (!addressed) return missing(req, ctx);
  if (!isRecord(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...sent } = req.body;
  const kept = incoming(ctx, sent, addressed);
  if ('refusal' in kept) return kept.refusal;
  const { fields: changes } = kept;
  // Fault customer-phone-ignored: a change of phoneNumber is answered (echoed) but not stored.
  if (ctx.fault('customer-phone-ignored') && 'phoneNumber' in changes) {
    const { phoneNumber: _dropped, ...kept } = changes;
    ctx.state.customers.set(String(addressed.id), { ...addressed, ...structuredClone(kept) });
    return json(200, { ...addressed, ...changes });
  }
  if (emailTaken(ctx, changes, addressed.id)) return error(409, 'conflict', 'A customer with that email exists');
  const customer = ctx.fault('customer-update-other') ? (sameName(ctx, addressed)[0] ?? addressed) : addressed;
  let updated: Row = ctx.fault('customer-patch-replaces') ? { id: customer.id, ...structuredClone(changes) } : { ...customer, ...structuredClone(changes) };
  // Fault customer-update-swaps-names: both names sent, each lands in the other's column.
  if (ctx.fault('customer-update-swaps-names') && 'firstName' in changes && 'lastName' in changes) updated = { ...updated, firstName: changes.lastName, lastName: changes.firstName };
  if (ctx.fault('customer-update-astral-cut')) updated = cutAtAstral(updated);
  // Fault customer-list-phone-stale: only a change of an indexed field refreshes the index.
  if (ctx.fault('customer-list-phone-stale')) {
    const index = indexOf(ctx);
    if (INDEXED.some((f) => f in changes)) index.set(String(customer.id), updated);
    else if (!index.has(String(customer.id))) index.set(String(customer.id), customer);
  }
  // Fault customer-update-every-3rd-hits-member: the third statement of a batch goes to the team members' table.
  const updates = (customerUpdates.get(ctx.state) ?? 0) + 1;
  customerUpdates.set(ctx.state, updates);
  const lastMember = [...ctx.state.teamMembers].at(-1);
  if (ctx.fault('customer-update-every-3rd-hits-member') && updates % 3 === 0 && lastMember) ctx.state.teamMembers.set(lastMember[0], { ...lastMember[1], ...structuredClone(changes) });
  // Fault customer-update-touches-business: the business name is kept in the same "contact" row.
  if (ctx.fault('customer-update-touches-business')) ctx.state.business = { ...ctx.state.business, name: `${String(updated.firstName)} ${String(updated.lastName)}` };
  const lastName = (updated as Row).lastName;
  if (typeof lastName === 'string' && ctx.fault('customer-update-renames-business')) ctx.state.business = { ...ctx.state.business, name: lastName };
  if (ctx.fault('customer-update-not-persisted')) return json(200, updated);
  // The customer as stored: with the fields the server keeps itself (timestamps, versions) its own.
  ctx.state.customers.set(String(customer.id), updated);
  // Fault customer-update-answers-previous: the document as it was before the update is answered.
  if (ctx.fault('customer-update-answers-previous')) return json(200, customer);
  return json(200, ctx.state.customers.get(String(customer.id)));
}

function remove(req: RefRequest, ctx: RefContext) {
  const customer = customerOf(req, ctx);
  // Variation delete-idempotent: deleting what is not there (any more) succeeds all the same.
  if (!customer && ctx.varies('delete-idempotent')) return json(204);
  if (!customer) return missing(req, ctx);
  if (ctx.fault('customer-delete-noop')) return json(204);
  if (ctx.fault('customer-delete-shifts')) return shiftOut(ctx, customer);
  const victims = ctx.fault('customer-delete-removes-others') ? sameName(ctx, customer) : [customer];
  for (const victim of victims) {
    ctx.state.customers.delete(String(victim.id));
    tombstones(ctx).set(String(victim.id), victim);
    if (ctx.fault('customer-deleted-reappears-on-create')) deletedSinceCreate.set(ctx.state, [...(deletedSinceCreate.get(ctx.state) ?? []), victim]);
  }
  const member = [...ctx.state.teamMembers.keys()].at(-1);
  if (member !== undefined && !tookMember.has(ctx.state) && ctx.fault('customer-delete-removes-team-member')) {
    tookMember.add(ctx.state);
    ctx.state.teamMembers.delete(member);
  }
  return ctx.varies('delete-200-body') ? json(200, customer) : json(204);
}

/** Fault customer-delete-shifts: rows kept by position; the later ones move up one id, the last id goes. */
function shiftOut(ctx: RefContext, customer: Row) {
  const ids = [...ctx.state.customers.keys()];
  const rows = [...ctx.state.customers.values()].filter((r) => r !== customer);
  const last = ids.at(-1)!;
  tombstones(ctx).set(last, ctx.state.customers.get(last)!);
  ctx.state.customers.delete(last);
  rows.forEach((row, i) => {
    if (i >= ids.indexOf(String(customer.id))) ctx.state.customers.set(ids[i], { ...row, id: ctx.state.customers.get(ids[i])?.id ?? customer.id });
  });
  return ctx.varies('delete-200-body') ? json(200, customer) : json(204);
}

/** Customers with the same last name, oldest first: how a fault that matches by content picks its victims. */
function sameName(ctx: RefContext, customer: Row): Row[] {
  return [...ctx.state.customers.values()].filter((c) => c.lastName === customer.lastName);
}

/**
 * Fault customer-list-one-write-behind: a write deletes the list cache and the list is read back
 * into it before the write commits, so the cache holds the customers as they were before the write.
 */
function refillsBeforeCommit(handler: Route['handler']): Route['handler'] {
  return async (req, ctx) => {
    const before = ctx.fault('customer-list-one-write-behind') ? structuredClone(rowsOf(ctx.state.customers)) : undefined;
    const answer = await handler(req, ctx);
    if (before && answer.status < 300) listCache.set(ctx.state, before);
    return answer;
  };
}

/** Remembers the list before the first customer request changes anything (for the stale-list fault). */
function firstSeen(handler: Route['handler']): Route['handler'] {
  return (req, ctx) => {
    // Only the stale-list fault reads the copy: a reference of a million customers answers its first request at once.
    if (ctx.fault('customer-list-stale') && !firstList.has(ctx.state)) firstList.set(ctx.state, structuredClone([...ctx.state.customers.values()]));
    return handler(req, ctx);
  };
}

export const customerRoutes: Route[] = [
  { operationId: 'listCustomers', method: 'GET', path: '/api/v1/customers', handler: firstSeen(list) },
  { operationId: 'createCustomer', method: 'POST', path: '/api/v1/customers', handler: firstSeen(refillsBeforeCommit(create)) },
  { operationId: 'findCustomer', method: 'GET', path: '/api/v1/customers/:id', handler: firstSeen(find) },
  { operationId: 'updateCustomer', method: 'PATCH', path: '/api/v1/customers/:id', handler: firstSeen(refillsBeforeCommit(update)) },
  { operationId: 'deleteCustomer', method: 'DELETE', path: '/api/v1/customers/:id', handler: firstSeen(refillsBeforeCommit(remove)) },
];
