import { error, isObject, json, type RefContext, type RefRequest, type Route } from './types.ts';

function find(req: RefRequest, ctx: RefContext) {
  const customer = ctx.state.customers.get(req.params.id);
  return customer ? json(200, customer) : error(404, 'not_found', 'No customer with that id');
}

function list(_req: RefRequest, ctx: RefContext) {
  return json(200, [...ctx.state.customers.values()]);
}

function create(req: RefRequest, ctx: RefContext) {
  if (!isObject(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...fields } = req.body;
  const customer = ctx.state.insert(ctx.state.customers, structuredClone(fields), 'cus');
  return json(ctx.varies('create-200') ? 200 : 201, customer);
}

function update(req: RefRequest, ctx: RefContext) {
  const customer = ctx.state.customers.get(req.params.id);
  if (!customer) return error(404, 'not_found', 'No customer with that id');
  if (!isObject(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...changes } = req.body;
  const updated = { ...customer, ...structuredClone(changes) };
  ctx.state.customers.set(req.params.id, updated);
  return json(200, updated);
}

function remove(req: RefRequest, ctx: RefContext) {
  const customer = ctx.state.customers.get(req.params.id);
  if (!customer) return error(404, 'not_found', 'No customer with that id');
  ctx.state.customers.delete(req.params.id);
  return ctx.varies('delete-200-body') ? json(200, customer) : json(204);
}

export const customerRoutes: Route[] = [
  { operationId: 'listCustomers', method: 'GET', path: '/api/v1/customers', handler: list },
  { operationId: 'createCustomer', method: 'POST', path: '/api/v1/customers', handler: create },
  { operationId: 'findCustomer', method: 'GET', path: '/api/v1/customers/:id', handler: find },
  { operationId: 'updateCustomer', method: 'PATCH', path: '/api/v1/customers/:id', handler: update },
  { operationId: 'deleteCustomer', method: 'DELETE', path: '/api/v1/customers/:id', handler: remove },
];
