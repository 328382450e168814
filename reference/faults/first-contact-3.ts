import type { Fault } from './fault.ts';

/**
 * Red-team round 3 (first contact): team members (list, find, update) and what the lists show
 * after writes, written from the contract alone. Each names the clause it breaks. Several show
 * only when reads happen at particular moments relative to writes. `kills` stays empty until
 * checks that catch them exist; firstContact records how the suite judged each (FIRST-CONTACT-3.md).
 */
export const firstContact3Faults: Fault[] = [
  {
    // §4: List Team Members is the "list of all team members"; members "cannot be created or deleted" (§1), so
    // no moment exists at which a member is not one of them. A stale list would still hold the member; this one does not hold it at all.
    name: 'team-member-list-missing-while-reindexing',
    description: 'The member list is served from a search index that re-indexes an updated member as a delete and an add, the add seen at the next refresh (1 s): for a second after an update, the member is missing from the list; find is right throughout.',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'wrong', verdict: 'exit 2 INCOMPLETE (3 of 3 runs): a suite error, no check failed', note: "'the team-members checks: team members left changed on the target: member … was added': the member missing from the list for a second after an update is taken for a member that appeared (no member was added, none was missing from find); the suite waits about a second on member checks (1011 ms), so most reads see the list settled." },
  },
  {
    // §4: List Team Members is the "list of all team members", and Update Team Member answers "the updated team
    // member": a list that shows the members as they were before any update, on every third read, forever, is neither.
    name: 'team-member-list-stale-cache-node',
    description: 'List reads go in turn to three cache nodes; the third lost its subscription to the invalidations and serves the members as they were when it first filled (the first list read): every third list read shows the members before any later update, however long after.',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 runs)', note: 'Exercised: list reads right after an update answered the members as before any update (runs 2, 3: a stale list, then the fresh one on the next read); the suite reads again until the change shows, as it must for a lagging replica (variation read-replicas-alternate), and never holds the list to a write long settled, so a node stale forever passes.' },
  },
  {
    // §4: Update Team Member takes "changes to the team member" at /team-members/{id} and answers "the updated
    // team member": the member with that id, not another one.
    name: 'team-member-update-also-previous',
    description: 'A unit of work leaked across requests: the member the previous update addressed is still attached and dirty-checked, so each update of a member also writes its changes into the member updated just before (when that one is another member).',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'right', verdict: 'exit 0, 1, 1 (same target); fresh targets: exit 1 (an unrelated reason), exit 0', note: 'Runs 2, 3: WRITE-FRAME \'records changed that no write of the run addressed: /api/v1/team-members/… changed (lastName), by one of the 5 writes since it was last read … (the last: PATCH /api/v1/team-members/…)\' names the breakage. Run 1 and a fresh-target run: CONFORMANT with \'Left on the target: nothing\' while three members were left changed (Ola renamed Sam Chen, Maria\'s email ""); another fresh run failed only the exploration\'s \'the business record could not be put back … email still differ\'. Depends on the order of the member updates (it needs two different members updated one after the other, the second not restored before the first is read).' },
  },
  {
    // §4: Find Team Member is "the team member with that id" and Update answers "the updated team member": after
    // an update answered 200, a find showing the member as it was before breaks both.
    name: 'team-member-find-cached',
    description: 'Find Team Member is cached by URL (/team-members/{id}) on the first find, while the update invalidates another key (team-member:{id}): a member found once keeps being found as it was then; the list and the update\'s answer show the changes.',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'right', verdict: 'exit 1, 2, 2 (same target); fresh targets: exit 1, 1', note: 'TM-UPDATE:change \'a find after the update does not show it: lastName: expected "Conformance scr-…", got "Lopez"\' and TM-UPDATE:each-field fail; a suite error names the member as left changed (the write-back was misled by the stale find, and the member really was left changed: Maria as Sam, staff). Runs 2, 3 on the same target: \'run scr-… left its values on this target\' (exit 2, with --recover advice), a consequence of run 1\'s leftover, not a miss.' },
  },
  {
    // §4: List Customers is the "list of all customers": a created customer is one of them, a deleted one is not,
    // an updated one is as updated: a list that never shows the latest write (until another comes) is not that list.
    name: 'customer-list-one-write-behind',
    description: 'The customer list cache is deleted and refilled within each write\'s transaction, before it commits (cache-aside on the write path): the list shows every customer write but the last one, until the next write shows it (and hides itself).',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'wrong', verdict: 'exit 2, 2, 2 (same target); fresh targets: exit 1, 1', note: "Run 1: no check failed; only the clean-up saw it ('left on the target: /api/v1/customers/…: still listed after being deleted'), reported as the suite's inability; runs 2, 3: refused ('another conformance run is changing this target', the lease run 1 left). On fresh targets the exploration alone caught it: EXPLORE-CUSTOMER-LIFECYCLE 'GET /api/v1/customers (every page): customer … is not listed' (shrunk to POST then list) – seed-dependent; no hand-written customer list check failed." },
  },
  {
    // §4: List Team Members is the "list of all team members" and Update Team Member sends "changes to the team
    // member" (a partial change): the member's other fields stay, in the list as in the find.
    name: 'team-member-list-entry-replaced-by-patch',
    description: 'The list\'s search document of a member is written with the update\'s body as a whole document (an index call where a partial update was meant): after an update, the member\'s list entry holds only its id and the fields sent; find and the update\'s answer are right.',
    kills: [],
    firstContact: { round: '2026-11-29 (round 3)', outcome: 'wrong', verdict: 'exit 2, 2, 0 (same target)', note: 'Runs 1, 2: a suite error \'team members left changed on the target: member … changed (role: was "staff", now nothing)\' / \'(email: … now nothing)\': the list entry that lost its fields is taken for a member left changed (find shows it whole), and no check failed; run 3 CONFORMANT. No check holds a member\'s list entry to its find after an update.' },
  },
];
