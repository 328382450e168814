import { error, isObject, json, type RefContext, type RefRequest, type Route } from './types.ts';

function list(_req: RefRequest, ctx: RefContext) {
  return json(200, [...ctx.state.teamMembers.values()]);
}

function find(req: RefRequest, ctx: RefContext) {
  const member = ctx.state.teamMembers.get(req.params.id);
  return member ? json(200, member) : error(404, 'not_found', 'No team member with that id');
}

function update(req: RefRequest, ctx: RefContext) {
  const member = ctx.state.teamMembers.get(req.params.id);
  if (!member) return error(404, 'not_found', 'No team member with that id');
  if (!isObject(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...changes } = req.body;
  const updated = { ...member, ...structuredClone(changes) };
  ctx.state.teamMembers.set(req.params.id, updated);
  return json(200, updated);
}

/** Section 1: team members cannot be created or deleted through the interface. */
function notAllowed(_req: RefRequest, ctx: RefContext) {
  if (ctx.varies('tm-forbidden-403')) return error(403, 'forbidden', 'Team members cannot be created or deleted');
  if (ctx.varies('tm-unknown-404')) return error(404, 'not_found', 'No such route');
  return error(405, 'method_not_allowed', 'Team members cannot be created or deleted');
}

export const teamMemberRoutes: Route[] = [
  { operationId: 'listTeamMembers', method: 'GET', path: '/api/v1/team-members', handler: list },
  { method: 'POST', path: '/api/v1/team-members', handler: notAllowed },
  { operationId: 'findTeamMember', method: 'GET', path: '/api/v1/team-members/:id', handler: find },
  { operationId: 'updateTeamMember', method: 'PATCH', path: '/api/v1/team-members/:id', handler: update },
  { method: 'DELETE', path: '/api/v1/team-members/:id', handler: notAllowed },
];
