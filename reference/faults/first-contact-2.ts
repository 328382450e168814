import type { Fault } from './fault.ts';

/**
 * Red-team round 2 (first contact): contract breaches a real product might ship, written from the
 * contract alone, of kinds an exploration walking the documented operations with varied inputs
 * could show. Each names the clause it breaks. `kills` stays empty until measured (FIRST-CONTACT-2.md).
 */
export const firstContact2Faults: Fault[] = [
  {
    // §4 Business endpoints: "The update sends a JSON body, and the fields in it are changed." A value
    // stored cut is not the value sent, and 200 says it was (bounds are not shown: refusing would be the product's right, cutting silently is not).
    name: 'business-long-text-truncated',
    description: 'A business string longer than 100 characters is stored cut to its first 100 (a VARCHAR(100) in a lenient database), and the update answers 200 with the cut value.',
    explore: { commands: 10, seed: 1 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 1: EXPLORE-UPDATE-APPLIES failed (2 of 3 full runs; exploration alone 1 of 3)', note: '\'the business\'s name reads "…right-to", not "…"\': the cut value is shown. Only the exploration sends a text over 100 characters (a long Unicode string, or a URL made long by the run marker), so the catch depends on the seed. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 1, 2, 3 of 1-3 at the default budget.' },
  },
  {
    // §4: "the fields in it are changed"; businessHours is "array of WorkHours" (§2): a list of one element is a list like any other.
    name: 'business-hours-one-element-lost',
    description: 'An update of businessHours to a list of exactly one WorkHours stores an empty list (a form binder flattens a one-element array into an object, which the mapper drops), and answers 200.',
    explore: { commands: 10, seed: 1 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs, 0 of 3 exploration alone)', note: 'The suite sends businessHours of 0, 2, 3 and 4 elements (exploration: 3 and 4), never exactly one. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 1, 3 of 1-3 at the default budget.' },
  },
  {
    // §5.2 / §7: "A missing, expired or invalid key gives status 401" for the update: a refused update is not an update.
    name: 'business-refused-null-applied',
    description: 'An update refused for its key (401) still clears the fields it sends as null (a "sanitize" step that writes nulls runs before the key check).',
    explore: { commands: 10, seed: 2 },
    kills: ['EXPLORE-REFUSED'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs); exploration alone: EXPLORE-REFUSED in 1 of 3', note: 'The refusal checks never send a null in a refused body; the exploration did once: \'PATCH {"phoneNumber":null} without Authorization → 401, and then phoneNumber reads null\' (right reason), but not in any full run. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-REFUSED) on seeds 2, 3 of 1-3 at the default budget.' },
  },
  {
    // §2: "A request may send a subset of them (partial update)": the fields not sent keep their values, including those another update just changed.
    name: 'business-update-base-from-last-read',
    description: 'An update merges its fields into the record as the last retrieval read it (a per-process cache filled by GET only): two updates with no retrieval between them, the second puts back what the first changed.',
    explore: { commands: 10, seed: 1 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs, 0 of 3 exploration alone)', note: 'Every successful business update of the run is preceded by a retrieval (no two successful PATCHes without a GET between them), so a lost update against the last read never shows. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 1, 2, 3 of 1-3 at the default budget.' },
  },
  {
    // §4: Update Customer answers "the updated customer": the changes as sent, each field to its own field.
    name: 'customer-update-swaps-names',
    description: 'An update of a customer that sends firstName and lastName together stores each in the other (positional parameters of an UPDATE written in the other order); one name alone is stored right.',
    explore: { commands: 10, seed: 1 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs, 0 of 3 exploration alone)', note: 'No customer update sends firstName and lastName together (0 of 10 in a full run); the exploration made 9 customer updates over 33 runs. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 1, 3 of 1-3 at the default budget.' },
  },
  {
    // §4: Delete Customer is "a deletion of that customer"; List Customers is "list of all customers" and Find "the customer with that id": a deleted one is neither.
    name: 'customer-deleted-reappears-on-create',
    description: 'The first customer create after a delete brings the deleted customers back under their ids (a soft-delete flag kept in a cache that the create reloads from a stale copy).',
    kills: ['CUS-DELETE:stays-deleted'],    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 2 INCOMPLETE (3 of 3 full runs): a suite error, no check failed; exploration alone: exit 0 (3 of 3)', note: 'The revival is seen only by the clean-up (\'left on the target, could not be deleted: customer … (still found after its delete answered 2xx)\'), reported as the suite\'s inability, with \'Left on the target: nothing\' beside it; no check reads a deleted customer after a later create. After (CUS-DELETE:stays-deleted, which finds again every customer a delete of the run answered 2xx for, after the other customer checks): exit 1 on seeds 1-3, that check alone.' },
  },
  {
    // §4: Update Customer answers "the updated customer", and Find "the customer with that id": a text cut before its first character outside the BMP is not the text sent.
    name: 'customer-update-astral-cut',
    description: 'An update of a customer stores a text holding a character outside the Basic Multilingual Plane (an emoji) cut before that character (a utf8mb3 column in a non-strict MySQL), and answers the stored customer.',
    explore: { commands: 10, seed: 2 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs, 0 of 3 exploration alone)', note: 'No customer update carries a character outside the BMP: the Unicode strings go to the business (exploration), customer updates are rare in exploration. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 2, 3 of 1-3 at the default budget.' },
  },
  {
    // §4: Update Customer's success response is "the updated customer", not the customer as it was.
    name: 'customer-update-answers-previous',
    description: 'Update Customer stores the change but answers the customer as it was before it (findOneAndUpdate without returning the new document).',
    kills: ['CUS-UPDATE'],    firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 1: CUS-UPDATE failed (3 of 3 full runs); exploration alone: exit 0 (3 of 3)', note: '\'the update\'s answer shows other values than those sent: firstName: expected "Changed", got "Conformance"\'.' },
  },
  {
    // §4: List Customers is the "list of all customers": each as it is, not as a search index last saw it.
    name: 'customer-list-phone-stale',
    description: 'The customer list is served from a search index refreshed only when a name or the email changes: after an update that changes other fields only (the phone number), the list still shows their old values; Find shows the new ones.',
    kills: ['CUS-LIST:each-field-change'],    firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 1: CUS-LIST:each-field-change failed (3 of 3 full runs); exploration alone: exit 0 (3 of 3)', note: '\'phoneNumber set to "+14155551000": listed with phoneNumber "+14155550123", found with "+14155551000"\'.' },
  },
  {
    // §4: Update Customer sends "changes to the customer"; List / Find Team Member show "the team member with that id", which no write addressed.
    name: 'customer-update-every-3rd-hits-member',
    description: 'Every third customer update also writes its changes into the last team member (a batched writer flushing its third statement to the wrong table).',
    kills: ['WRITE-FRAME'],    firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 1: WRITE-FRAME failed (3 of 3 full runs); exploration alone: exit 0 (3 of 3)', note: '\'records changed that no write of the run addressed: /api/v1/team-members/… changed (firstName, phoneNumber)\'; the field the fault added to the member (phoneNumber) is reported as left (\'value before the run unknown\').' },
  },
  {
    // §4: Update Team Member answers "the updated team member" for "changes to the team member": an empty string is a change like any other.
    name: 'team-member-update-drops-empty-string',
    description: 'Update Team Member ignores the fields sent as the empty string (a truthiness test in the merge), and answers the member as stored, with the old values.',
    explore: { commands: 10, seed: 1 },
    kills: ['EXPLORE-UPDATE-APPLIES'],
    firstContact: { round: '2026-11-29 (round 2)', outcome: 'wrong', verdict: 'exit 0 CONFORMANT (3 of 3 full runs); exploration alone: EXPLORE-UPDATE-APPLIES in 2 of 3', note: 'The hand-written member checks never send the empty string; the exploration does (\'{"email":""} → 200, … email reads "maria@example.com", not ""\', right reason), but not in any full run measured. After (exploration with lists of 0, 1, 2 and many elements, nulls in refused bodies, two updates before one read, customer and member bodies of the fields a client sends, the marker field among them): exploration alone (EXPLORE-UPDATE-APPLIES) on seeds 1, 2, 3 of 1-3 at the default budget.' },
  },
];
