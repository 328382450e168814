import type { Fault } from './fault.ts';

/**
 * Red-team round 2026-11-29: contract breaches a real product might ship, written from the
 * contract alone before any check was aimed at them. `kills` stays empty until checks that catch
 * them exist; firstContact records how the suite judged each at first (FIRST-CONTACT.md).
 */
export const firstContactFaults: Fault[] = [
  {
    name: 'business-patch-charset-ignored',
    description: 'PATCH /api/v1/business with a Content-Type carrying a parameter ("application/json; charset=utf-8") answers 200 and applies nothing.',
    kills: ['BUS-UPDATE-MEDIA-TYPE'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT", note: "The suite sends Content-Type exactly 'application/json'; it never sends the same media type with a parameter. Arguable whether the contract's header value covers parameters (RFC 9110 says the media type is the same)." },
  },
  {
    name: 'customer-update-touches-business',
    description: 'Update Customer also writes the customer\'s first and last name into the business name (a shared "contact" row).',
    // Only the frame reads the business around a customer update.
    kills: ['WRITE-FRAME'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT", note: "No check reads the business around a customer update (cross-resource isolation); the business clean-up put the name back silently, so not even a leftover hinted at it." },
  },
  {
    name: 'business-hours-read-stale',
    description: 'The retrieval serves businessHours from a cache refreshed only when an update changes another field too: after an update of businessHours alone it shows the old ones.',
    kills: ['BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-BOUNDARY:businessHours:more', 'BUS-UPDATE-PARTIAL:termsAndConditionsUrl:null'],
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 1: BUS-UPDATE-APPLIES:businessHours, BUS-UPDATE-BOUNDARY:businessHours:more, BUS-UPDATE-PARTIAL:termsAndConditionsUrl failed", note: "'businessHours reads back [] after an update to [...]' names the stale read." },
  },
  {
    name: 'customer-delete-shifts',
    description: 'Customers are kept by position: deleting one moves every later customer\'s fields to the id before it, and the last id disappears.',
    // The shift moves the run's own customers: their finds, updates and the list fail; the deletes the clean-up verifies leave records still found, named as left (a suite error of the clean-up, never a verdict).
    kills: ['CUS-LIST:new-and-existing', 'CUS-UPDATE'],
    orderDependent: {
      // Any check that finds, updates or lists a customer of its own after another check's delete may find it moved: the families, not a list of the victims seen so far.
      checks: ['CUS-ISOLATION:*', 'CUS-UPDATE:*', 'CUS-LIST:*', 'CUS-ID-NEAR-MISS:*', 'CUS-UNKNOWN-*', 'CUS-FIND', 'CUS-DELETE', 'CUS-DELETE:*', 'CUS-DELETE-404:*'],
      why: 'which customers a delete shifts depends on which of the concurrent customer checks deletes first, and so which checks find their customer moved',
    },
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: CUS-LIST:new-and-existing, CUS-UPDATE, CUS-UPDATE:each-field, CUS-LIST:each-field-change, CUS-ID-NEAR-MISS:update:prefix failed; CUS-ISOLATION:delete blocked; 4 customers left (reported)", note: "Right exit, wrong cause: the reasons blame the update ('fields not sent changed') and a near-miss PATCH ('answered 404, and changed the customer'); the check about deletes touching others (CUS-ISOLATION:delete) was blocked because its customer had already been shifted away. The leftovers are reported honestly." },
  },
  {
    name: 'team-member-update-hits-customer',
    description: 'Update Team Member also applies the change to the customer at the same position (a shared people table keyed by row number).',
    // Only the frame reads customers around a member update; the customer it changed is named as left.
    kills: ['WRITE-FRAME'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT; a seeded customer left changed and 'Left on the target: nothing'", note: "TM-ISOLATION looks at other members only; no check reads customers around a member update, and the clean-up does not see the changed customer." },
  },
  {
    name: 'business-drops-non-ascii',
    description: 'PATCH /api/v1/business stores strings with their non-ASCII characters (accents, emoji) removed, and answers 200.',
    kills: ['BUS-UPDATE-APPLIES:name', 'BUS-UPDATE-APPLIES:address', 'BUS-UPDATE-NULLABLE:address'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT", note: "No value the suite sends has a non-ASCII character." },
  },
  {
    name: 'business-null-clears-next',
    description: 'A null sent to a nullable business field also clears the nullable field after it (phoneNumber clears address, websiteUrl the terms URL, …).',
    kills: ['BUS-UPDATE-PARTIAL:phoneNumber:null', 'BUS-UPDATE-PARTIAL:address:null', 'BUS-UPDATE-PARTIAL:websiteUrl:null', 'BUS-UPDATE-PARTIAL:privacyPolicyUrl:null', 'BUS-UPDATE-PARTIAL:youTubeUrl:null', 'BUS-UPDATE-PARTIAL:linkedInUrl:null', 'BUS-UPDATE-PARTIAL:facebookUrl:null'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT", note: "BUS-UPDATE-NULLABLE:* are judged from one PATCH that sets every nullable field to null at once, so a null that also clears its neighbour is invisible; no field is set to null alone." },
  },
  {
    name: 'team-member-list-duplicates',
    description: 'List Team Members lists the first member twice (a join on its two roles).',
    kills: ['TM-LIST'],
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 1: TM-LIST failed (16 checks blocked by it)", note: "'the list names record \u2026 twice (pages 1 and 1)' (the page wording is odd for an unpaged list, the finding is right)." },
  },
  {
    name: 'business-empty-body-resets',
    description: 'PATCH /api/v1/business with {} answers 200 and clears every nullable field and the business hours (an empty form taken as "clear all").',
    kills: ['BUS-UPDATE-EMPTY'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 0 CONFORMANT", note: "The suite never sends {} (an empty subset of the fields); arguable whether {} is a request the contract covers ('any of the business fields')." },
  },
  {
    name: 'business-wide-patch-misaligned',
    description: 'A business update of more than three fields pairs the values, in body order, with the field names sorted alphabetically: values land in other fields.',
    kills: ['BUS-UPDATE-WRITEBACK', 'BUS-UPDATE-MULTI'],
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 1: BUS-UPDATE-WRITEBACK and BUS-UPDATE-MULTI failed", note: "Both reasons say a valid multi-field body 'answered 422' (the misplaced values fail type validation): the observable breakage; had the product not validated types, whether the values landing elsewhere would be named is not measured." },
  },
];
