import type { CheckId } from '../../helpers/contract/catalog.ts';
import type { Fault } from './fault.ts';
import { ID_NEAR_MISSES } from '../../helpers/contract/id-near-misses.ts';

/**
 * Team member checks that fail when an operation is not served (see protocol.ts): only the
 * operation's own check. The checks that list, find or update a member first are blocked by it.
 */
export const TEAM_MEMBER_CHECKS_NEEDING: Record<string, CheckId[]> = {
  listTeamMembers: ['TM-LIST'],
  findTeamMember: ['TM-FIND'],
  updateTeamMember: ['TM-UPDATE:write-back', 'TM-UPDATE:change'],
};

/** Faults of the team member operations, and of what section 1 rules out. */
export const teamMemberFaults: Fault[] = [
  {
    // Of a kind no hand-written check names: found by exploration alone (the fault matrix runs it with --only EXPLORE on a fixed seed).
    name: 'team-member-list-hides-non-ascii',
    explore: { commands: 10, seed: 2 },
    description: 'The list leaves out a member any of whose texts holds a character outside ASCII.',
    kills: ['EXPLORE-TEAM-FIXED'],
  },
  {
    name: 'team-member-create-allowed',
    description: 'POST /team-members creates a team member (201).',
    kills: ['TM-NO-CREATE'],
    // What it could not undo: the member stays, named as left on the target.
    says: { 'TM-NO-CREATE': /new members: \S+\. Undo: member \S+ was NOT removed \(DELETE answered 405/ },
  },
  {
    name: 'team-member-delete-allowed',
    description: 'DELETE /team-members/{id} deletes the team member (204).',
    kills: ['TM-NO-DELETE'],
    says: { 'TM-NO-DELETE': /Undo: member \S+ was NOT restored: re-creating it with POST \S+ answered 405 .* It was: \{/ },
  },
  {
    name: 'team-members-writable',
    description: 'POST /team-members creates and DELETE /team-members/{id} deletes (so the suite can undo either).',
    kills: ['TM-NO-CREATE', 'TM-NO-DELETE'],
  },
  {
    // Found by mutation testing: creating a member through the interface, by another door than POST.
    name: 'team-member-patch-upserts',
    description: 'Update Team Member of an id that names no member creates a member under that id (an upsert).',
    // The near-miss ids of TM-ID-NEAR-MISS name no member either: the upsert creates under them too.
    kills: ['TM-NO-CREATE:patch-unknown-id', 'TM-ID-NEAR-MISS:update:suffix', 'TM-ID-NEAR-MISS:update:prefix'],
  },
  {
    name: 'team-member-role-ignored',
    description: 'Update Team Member answers a change of role (it echoes the body) but does not store it.',
    kills: ['TM-UPDATE:each-field'],
  },
  {
    name: 'team-member-list-keyed-by-email',
    description: 'List Team Members keys the members by email: members sharing an email are listed as one.',
    kills: ['TM-LIST:each-field-change'],
  },
  {
    name: 'team-member-update-not-persisted',
    description: 'Update Team Member answers the changed member but does not store the change.',
    kills: ['TM-UPDATE:change', 'TM-UPDATE:each-field'],
  },
  {
    name: 'team-member-patch-replaces',
    description: 'Update Team Member replaces the whole member with the fields sent: fields not sent are lost.',
    kills: ['TM-UPDATE:operations-write-back', 'TM-UPDATE:write-back', 'TM-UPDATE:change', 'TM-UPDATE:each-field'],
  },
  {
    // §1/§4: List Team Members gives "a list of all team members", and members are never created or deleted: none is ever left out.
    name: 'team-member-list-drops-updated',
    description: 'An update takes the member out of the search index the list is served from: the next list read leaves it out (found by its id all along), then it is back.',
    kills: ['TM-LIST:each-field-change'],
  },
  {
    name: 'team-member-update-all',
    description: 'Update Team Member applies the change to every member, not only the one addressed.',
    // The frame sees it too: the other members changed by a write not addressed to them.
    kills: ['TM-ISOLATION', 'WRITE-FRAME'],
  },
  {
    name: 'team-member-find-other-fields',
    description: 'Find Team Member answers the right id with the fields of another member.',
    // TM-UPDATE:change and :each-field read their changes back through the find, which shows the other member.
    kills: ['TM-FIND', 'TM-UPDATE:change', 'TM-UPDATE:each-field'],
  },
  {
    name: 'team-member-path-id-lenient',
    description: 'The path id is matched leniently, as parseInt would: a member\'s id with a character after or before it names that member.',
    kills: ['TM-ID-NEAR-MISS:find:suffix', 'TM-ID-NEAR-MISS:find:prefix', 'TM-ID-NEAR-MISS:update:suffix', 'TM-ID-NEAR-MISS:update:prefix'],
  },
  {
    name: 'team-member-find-ignores-id',
    description: 'Find Team Member answers the first member whatever the id.',
    // TM-NO-DELETE reads the last member before deleting it: blocked by TM-FIND. Every near miss
    // of the last member's id finds the first member.
    kills: ['TM-FIND', ...ID_NEAR_MISSES.map((m): CheckId => `TM-ID-NEAR-MISS:find:${m.name}`)],
  },
];
