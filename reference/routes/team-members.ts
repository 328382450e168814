import { error, json, lookUp, type RefContext, type RefRequest, type Route } from '../types.ts';
import { isRecord } from '../../helpers/contract/record.ts';
import { locked } from './customers.ts';

/** Variation member-last-active: how many reads of members each reference served, its clock for lastActiveAt. */
const readClock = new WeakMap<object, number>();

/** Variation member-last-active: every member served carries the instant of this read (a distinct, later one each time). */
function seen(ctx: RefContext, members: Record<string, unknown>[]): Record<string, unknown>[] {
  if (!ctx.varies('member-last-active')) return members;
  const tick = (readClock.get(ctx.state.teamMembers) ?? 0) + 1;
  readClock.set(ctx.state.teamMembers, tick);
  const lastActiveAt = new Date(Date.parse('2026-01-01T00:00:00Z') + tick * 1000).toISOString();
  return members.map((m) => ({ ...m, lastActiveAt }));
}

/** Fault team-member-list-drops-updated: the member the last update wrote to, until a list read has left it out once. */
const reindexing = new WeakMap<object, string>();

function list(_req: RefRequest, ctx: RefContext) {
  let members = seen(ctx, [...ctx.state.teamMembers.values()]);
  // Fault team-member-list-drops-updated: an update takes the member out of the search index, and the next list read is served before it is back.
  const out = reindexing.get(ctx.state.teamMembers);
  if (out !== undefined && ctx.fault('team-member-list-drops-updated')) {
    reindexing.delete(ctx.state.teamMembers);
    members = members.filter((m) => String(m.id) !== out);
  }
  // Fault team-member-list-keyed-by-email: members sharing an email are listed as one (the last).
  if (ctx.fault('team-member-list-keyed-by-email')) return json(200, [...new Map(members.map((m) => [m.email, m])).values()]);
  // Fault team-member-list-duplicates: a join on the roles lists the first member twice.
  if (ctx.fault('team-member-list-duplicates') && members.length > 0) return json(200, [...members, members[0]]);
  // Fault team-member-list-hides-non-ascii: a member holding a text outside ASCII is left out of the list.
  if (ctx.fault('team-member-list-hides-non-ascii')) return json(200, members.filter((m) => !Object.values(m).some((v) => typeof v === 'string' && /[^\x00-\x7f]/.test(v))));
  return json(200, members);
}

function find(req: RefRequest, ctx: RefContext) {
  const member = ctx.fault('team-member-find-ignores-id') ? ctx.state.teamMembers.values().next().value : memberOf(req, ctx);
  if (member && ctx.fault('team-member-find-other-fields')) return json(200, { ...nextMember(ctx, String(member.id)), id: member.id });
  return member ? json(200, seen(ctx, [member])[0]) : error(404, 'not_found', 'No team member with that id');
}

/** Fault team-member-find-other-fields: a join on the wrong key, giving the next member's fields. */
function nextMember(ctx: RefContext, id: string) {
  const members = [...ctx.state.teamMembers.values()];
  return members[(members.findIndex((m) => String(m.id) === id) + 1) % members.length];
}

const memberOf = (req: RefRequest, ctx: RefContext) => lookUp(ctx.state.teamMembers, req.params.id, ctx, 'team-member-path-id-lenient');

function update(req: RefRequest, ctx: RefContext) {
  const member = memberOf(req, ctx);
  // Fault team-member-patch-upserts: an update of an id that names no member creates one under it.
  if (!member && ctx.fault('team-member-patch-upserts') && isRecord(req.body)) return upsert(req, ctx);
  if (!member) return error(404, 'not_found', 'No team member with that id');
  if (!isRecord(req.body)) return error(400, 'invalid_body', 'The body must be a JSON object');
  const { id: _ignored, ...sent } = req.body;
  // Variation team-member-role-object: the role may come as the object find answers; the key is stored.
  if (ctx.varies('team-member-role-object') && isRecord(sent.role)) sent.role = sent.role.key;
  // Variation team-member-unknown-fields-dropped: strong parameters keep the fields a member has.
  if (ctx.varies('team-member-unknown-fields-dropped')) for (const f of Object.keys(sent)) if (!(f in member)) delete sent[f];
  // Variation team-member-email-read-only: the email belongs to the sign-in provider.
  if (ctx.varies('team-member-email-read-only') && 'email' in sent && sent.email !== member.email) return error(422, 'read_only', 'email cannot be changed here');
  // Fault team-member-update-drops-empty-string: a truthiness test in the merge skips the empty string.
  if (ctx.fault('team-member-update-drops-empty-string')) for (const [f, v] of Object.entries(sent)) if (v === '') delete sent[f];
  const kept = locked(ctx, sent, member);
  if ('refusal' in kept) return kept.refusal;
  const changes = kept.fields;
  // Fault team-member-role-ignored: a change of role is answered (echoed) but not stored.
  if (ctx.fault('team-member-role-ignored') && 'role' in changes) return json(200, { ...member, ...ignoringRole(req.params.id, member, changes, ctx) });
  const updated = ctx.fault('team-member-patch-replaces') ? { id: member.id, ...structuredClone(changes) } : { ...member, ...structuredClone(changes) };
  if (!ctx.fault('team-member-update-not-persisted')) ctx.state.teamMembers.set(String(member.id), updated);
  reindexing.set(ctx.state.teamMembers, String(member.id));
  // Fault team-member-update-hits-customer: one people table keyed by row number.
  if (ctx.fault('team-member-update-hits-customer')) {
    const position = [...ctx.state.teamMembers.keys()].indexOf(String(member.id));
    const [id, customer] = [...ctx.state.customers].at(position) ?? [];
    if (id && customer) ctx.state.customers.set(id, { ...customer, ...structuredClone(changes) });
  }
  // The member as stored: with the fields the server keeps itself (timestamps, versions) its own.
  const answered = ctx.fault('team-member-update-not-persisted') ? updated : (ctx.state.teamMembers.get(String(member.id)) ?? updated);
  // Fault team-member-update-all: the update is not scoped to the id (an UPDATE without its WHERE).
  if (ctx.fault('team-member-update-all')) {
    for (const [id, other] of ctx.state.teamMembers) if (id !== String(member.id)) ctx.state.teamMembers.set(id, { ...other, ...structuredClone(changes) });
  }
  return json(200, answered);
}

function ignoringRole(id: string, member: Record<string, unknown>, changes: Record<string, unknown>, ctx: RefContext) {
  const { role: _dropped, ...kept } = changes;
  ctx.state.teamMembers.set(id, { ...member, ...structuredClone(kept) });
  return changes;
}

function upsert(req: RefRequest, ctx: RefContext) {
  const { id: _ignored, ...fields } = req.body as Record<string, unknown>;
  const member = { id: req.params.id, ...structuredClone(fields) };
  ctx.state.teamMembers.set(req.params.id, member);
  return json(201, member);
}

/** Section 1: team members cannot be created or deleted through the interface. */
function notAllowed(_req: RefRequest, ctx: RefContext) {
  if (ctx.varies('tm-forbidden-403')) return error(403, 'forbidden', 'Team members cannot be created or deleted');
  if (ctx.varies('tm-unknown-404')) return error(404, 'not_found', 'No such route');
  return error(405, 'method_not_allowed', 'Team members cannot be created or deleted');
}

function create(req: RefRequest, ctx: RefContext) {
  if (!(ctx.fault('team-member-create-allowed') || ctx.fault('team-members-writable')) || !isRecord(req.body)) return notAllowed(req, ctx);
  const { id: _ignored, ...fields } = req.body;
  return json(201, ctx.state.insert(ctx.state.teamMembers, structuredClone(fields), 'tm'));
}

function remove(req: RefRequest, ctx: RefContext) {
  if (!(ctx.fault('team-member-delete-allowed') || ctx.fault('team-members-writable')) || !ctx.state.teamMembers.delete(req.params.id)) return notAllowed(req, ctx);
  return json(204);
}

export const teamMemberRoutes: Route[] = [
  { operationId: 'listTeamMembers', method: 'GET', path: '/api/v1/team-members', handler: list },
  { method: 'POST', path: '/api/v1/team-members', handler: create },
  { operationId: 'findTeamMember', method: 'GET', path: '/api/v1/team-members/:id', handler: find },
  { operationId: 'updateTeamMember', method: 'PATCH', path: '/api/v1/team-members/:id', handler: update },
  { method: 'DELETE', path: '/api/v1/team-members/:id', handler: remove },
];
