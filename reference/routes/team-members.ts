import { error, json, lookUp, type RefContext, type RefRequest, type Route } from '../types.ts';
import { isRecord } from '../../helpers/contract/record.ts';
import { locked } from './customers.ts';
import { byRecentWrite, wroteRecord } from './recency.ts';
import type { State } from '../state.ts';
import type { Row } from '../../helpers/contract/record.ts';

/** Fault team-member-list-missing-while-reindexing: when each member was last updated (ms), per reference; the index refresh interval. */
const reindexedAt = new WeakMap<State, Map<string, number>>();
const INDEX_REFRESH_MS = 1000;
/** Fault team-member-list-stale-cache-node: list reads so far, and what the third node filled itself with. */
const cacheNodes = new WeakMap<State, { reads: number; stuck: Row[] }>();
const CACHE_NODES = 3;
/** Fault team-member-update-also-previous: the member the previous update addressed, still attached. */
const attached = new WeakMap<State, string>();
/** Fault team-member-find-cached: members as first found, by URL. */
const findCache = new WeakMap<State, Map<string, Row>>();
/** Fault team-member-list-entry-replaced-by-patch: the list's documents of the members updated. */
const listDocuments = new WeakMap<State, Map<string, Row>>();

function tableOf<V>(map: WeakMap<State, Map<string, V>>, state: State): Map<string, V> {
  let table = map.get(state);
  if (!table) map.set(state, (table = new Map()));
  return table;
}

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
  // Fault team-member-list-stale-cache-node: every third read is served by the node that never saw an invalidation.
  if (ctx.fault('team-member-list-stale-cache-node')) {
    const nodes = cacheNodes.get(ctx.state) ?? { reads: 0, stuck: structuredClone(members) };
    cacheNodes.set(ctx.state, nodes);
    if (++nodes.reads % CACHE_NODES === 0) members = structuredClone(nodes.stuck);
  }
  // Fault team-member-list-missing-while-reindexing: an updated member is deleted from the index, and added back at the next refresh.
  if (ctx.fault('team-member-list-missing-while-reindexing')) {
    const at = tableOf(reindexedAt, ctx.state);
    members = members.filter((m) => Date.now() - (at.get(String(m.id)) ?? -Infinity) >= INDEX_REFRESH_MS);
  }
  // Fault team-member-list-entry-replaced-by-patch: the member's document holds what the last update sent, and nothing else.
  if (ctx.fault('team-member-list-entry-replaced-by-patch')) {
    const documents = tableOf(listDocuments, ctx.state);
    members = members.map((m) => documents.get(String(m.id)) ?? m);
  }
  // Variation list-recently-updated-first: ordered by last write.
  if (ctx.varies('list-recently-updated-first')) members = byRecentWrite(ctx.state, 'teamMembers', members);
  // Variation team-member-list-summary: each member in summary; the rest is the find's.
  if (ctx.varies('team-member-list-summary')) members = members.map(({ id, firstName, lastName, role }) => ({ id, firstName, lastName, role }));
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
  // Fault team-member-find-cached: the first find of a member is cached under its URL, which no update invalidates.
  if (member && ctx.fault('team-member-find-cached')) {
    const cache = tableOf(findCache, ctx.state);
    const cached = cache.get(req.path) ?? structuredClone(member);
    cache.set(req.path, cached);
    return json(200, cached);
  }
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
  // Variation team-member-last-owner-kept: the business keeps an owner.
  if (ctx.varies('team-member-last-owner-kept') && member.role === 'owner' && 'role' in sent && sent.role !== 'owner' && [...ctx.state.teamMembers.values()].filter((m) => m.role === 'owner').length === 1) {
    return error(422, 'last_owner', 'The business must keep an owner: make another member owner first');
  }
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
  if (!ctx.fault('team-member-update-not-persisted')) afterUpdate(ctx, String(member.id), changes);
  return json(200, answered);
}

/** What else a stored member update writes, as the round-3 faults and variations have it. */
function afterUpdate(ctx: RefContext, id: string, changes: Row): void {
  if (ctx.varies('list-recently-updated-first')) wroteRecord(ctx.state, 'teamMembers', id);
  if (ctx.fault('team-member-list-missing-while-reindexing')) tableOf(reindexedAt, ctx.state).set(id, Date.now());
  if (ctx.fault('team-member-list-entry-replaced-by-patch')) {
    const stored = ctx.state.teamMembers.get(id);
    tableOf(listDocuments, ctx.state).set(id, { id: stored?.id ?? id, ...structuredClone(changes) });
  }
  // Fault team-member-update-also-previous: the previous update's member is flushed with this update's changes.
  if (ctx.fault('team-member-update-also-previous')) {
    const previous = attached.get(ctx.state);
    const other = previous !== undefined && previous !== id ? ctx.state.teamMembers.get(previous) : undefined;
    if (other) ctx.state.teamMembers.set(previous!, { ...other, ...structuredClone(changes) });
    attached.set(ctx.state, id);
  }
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
