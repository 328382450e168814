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
  },
  {
    // §4: List Team Members is the "list of all team members", and Update Team Member answers "the updated team
    // member": a list that shows the members as they were before any update, on every third read, forever, is neither.
    name: 'team-member-list-stale-cache-node',
    description: 'List reads go in turn to three cache nodes; the third lost its subscription to the invalidations and serves the members as they were when it first filled (the first list read): every third list read shows the members before any later update, however long after.',
    kills: [],
  },
  {
    // §4: Update Team Member takes "changes to the team member" at /team-members/{id} and answers "the updated
    // team member": the member with that id, not another one.
    name: 'team-member-update-also-previous',
    description: 'A unit of work leaked across requests: the member the previous update addressed is still attached and dirty-checked, so each update of a member also writes its changes into the member updated just before (when that one is another member).',
    kills: [],
  },
  {
    // §4: Find Team Member is "the team member with that id" and Update answers "the updated team member": after
    // an update answered 200, a find showing the member as it was before breaks both.
    name: 'team-member-find-cached',
    description: 'Find Team Member is cached by URL (/team-members/{id}) on the first find, while the update invalidates another key (team-member:{id}): a member found once keeps being found as it was then; the list and the update\'s answer show the changes.',
    kills: [],
  },
  {
    // §4: List Customers is the "list of all customers": a created customer is one of them, a deleted one is not,
    // an updated one is as updated: a list that never shows the latest write (until another comes) is not that list.
    name: 'customer-list-one-write-behind',
    description: 'The customer list cache is deleted and refilled within each write\'s transaction, before it commits (cache-aside on the write path): the list shows every customer write but the last one, until the next write shows it (and hides itself).',
    kills: [],
  },
  {
    // §4: List Team Members is the "list of all team members" and Update Team Member sends "changes to the team
    // member" (a partial change): the member's other fields stay, in the list as in the find.
    name: 'team-member-list-entry-replaced-by-patch',
    description: 'The list\'s search document of a member is written with the update\'s body as a whole document (an index call where a partial update was meant): after an update, the member\'s list entry holds only its id and the fields sent; find and the update\'s answer are right.',
    kills: [],
  },
];
