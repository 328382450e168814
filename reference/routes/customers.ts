import type { State } from '../state.ts';
import { error, json, lookUp, type RefContext, type RefRequest, type Route } from '../types.ts';
import { isRecord, type Row } from '../../helpers/contract/record.ts';

/** The faults of the paged customer list, and how each breaks it (applied where the list is paged: reference/paging.ts). */
export const BROKEN_PAGING = { 'customer-list-pages-stop-early': 'stop-early', 'customer-list-pages-repeat': 'repeat', 'customer-list-next-loops': 'loop' } as const;

/** Customers deleted so far, per reference instance: some faults still show or answer them. */
const deleted = new WeakMap<State, Map<string, Row>>();
/** The list as it was at the first customer request, for the stale-list fault. */
const firstList = new WeakMap<State, Row[]>();

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
  const rows = [...ctx.state.customers.values()];
  if (ctx.fault('customer-list-keeps-deleted')) rows.push(...tombstones(ctx).values());
  return json(200, rows);
}

/** Variation unique-customer-email: another customer (not `except`) already holds this email. */
function emailTaken(ctx: RefContext, fields: Row, except?: unknown): boolean {
  if (!ctx.varies('unique-customer-email') || typeof fields.email !== 'string') return false;
  return [...ctx.state.customers.values()].some((c) => c.id !== except && c.email === fields.email);
}

function create(req: RefRequest, ctx: RefContext) {
  if (!isRecord(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...fields } = req.body;
  if (emailTaken(ctx, fields)) return error(409, 'conflict', 'A customer with that email exists');
  if (ctx.fault('customer-create-drops-field')) delete fields[Object.keys(fields).at(-1) ?? ''];
  const customer = ctx.state.insert(ctx.state.customers, structuredClone(fields), 'cus');
  // Fault customer-create-answers-unstored: the answer is built from the request, the row stored without its last field.
  if (ctx.fault('customer-create-answers-unstored')) {
    const stored = { ...customer };
    delete stored[Object.keys(fields).at(-1) ?? ''];
    ctx.state.customers.set(String(customer.id), stored);
  }
  // Fault customer-create-twice: a retried insert stores the customer a second time, under another id.
  if (ctx.fault('customer-create-twice')) ctx.state.insert(ctx.state.customers, structuredClone(fields), 'cus');
  const status = ctx.varies('create-200') ? 200 : 201;
  if (ctx.fault('customer-create-no-id')) {
    const { id: _id, ...withoutId } = customer;
    return json(status, withoutId);
  }
  return json(status, customer);
}

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
  const { id: _ignored, ...changes } = req.body;
  // Fault customer-phone-ignored: a change of phoneNumber is answered (echoed) but not stored.
  if (ctx.fault('customer-phone-ignored') && 'phoneNumber' in changes) {
    const { phoneNumber: _dropped, ...kept } = changes;
    ctx.state.customers.set(String(addressed.id), { ...addressed, ...structuredClone(kept) });
    return json(200, { ...addressed, ...changes });
  }
  if (emailTaken(ctx, changes, addressed.id)) return error(409, 'conflict', 'A customer with that email exists');
  const customer = ctx.fault('customer-update-other') ? (sameName(ctx, addressed)[0] ?? addressed) : addressed;
  const updated = ctx.fault('customer-patch-replaces') ? { id: customer.id, ...structuredClone(changes) } : { ...customer, ...structuredClone(changes) };
  if (ctx.fault('customer-update-not-persisted')) return json(200, updated);
  // The customer as stored: with the fields the server keeps itself (timestamps, versions) its own.
  ctx.state.customers.set(String(customer.id), updated);
  return json(200, ctx.state.customers.get(String(customer.id)));
}

function remove(req: RefRequest, ctx: RefContext) {
  const customer = customerOf(req, ctx);
  // Variation delete-idempotent: deleting what is not there (any more) succeeds all the same.
  if (!customer && ctx.varies('delete-idempotent')) return json(204);
  if (!customer) return missing(req, ctx);
  if (ctx.fault('customer-delete-noop')) return json(204);
  const victims = ctx.fault('customer-delete-removes-others') ? sameName(ctx, customer) : [customer];
  for (const victim of victims) {
    ctx.state.customers.delete(String(victim.id));
    tombstones(ctx).set(String(victim.id), victim);
  }
  return ctx.varies('delete-200-body') ? json(200, customer) : json(204);
}

/** Customers with the same last name, oldest first: how a fault that matches by content picks its victims. */
function sameName(ctx: RefContext, customer: Row): Row[] {
  return [...ctx.state.customers.values()].filter((c) => c.lastName === customer.lastName);
}

/** Remembers the list before the first customer request changes anything (for the stale-list fault). */
function firstSeen(handler: Route['handler']): Route['handler'] {
  return (req, ctx) => {
    if (!firstList.has(ctx.state)) firstList.set(ctx.state, structuredClone([...ctx.state.customers.values()]));
    return handler(req, ctx);
  };
}

export const customerRoutes: Route[] = [
  { operationId: 'listCustomers', method: 'GET', path: '/api/v1/customers', handler: firstSeen(list) },
  { operationId: 'createCustomer', method: 'POST', path: '/api/v1/customers', handler: firstSeen(create) },
  { operationId: 'findCustomer', method: 'GET', path: '/api/v1/customers/:id', handler: firstSeen(find) },
  { operationId: 'updateCustomer', method: 'PATCH', path: '/api/v1/customers/:id', handler: firstSeen(update) },
  { operationId: 'deleteCustomer', method: 'DELETE', path: '/api/v1/customers/:id', handler: firstSeen(remove) },
];
