/**
 * Legitimate variations: ways an implementation may fill in what the contract leaves open.
 * The suite must pass the reference implementation with any of them switched on.
 */
import type { CheckId, CheckIdOf, NotShownKey, ShouldRequirementId } from '../helpers/contract/catalog.ts';
import { seedBusiness } from './seed.ts';
import type { FirstContact } from './faults/fault.ts';

export interface Variation {
  name: string;
  description: string;
  /** The statement the contract leaves open (not-checked in spec/requirements.yaml) that this choice fills in. */
  notShown: NotShownKey;
  /**
   * What within its open point this variation fills in (a field, or what of it: the values it
   * accepts, how it stores them), when a product may fill in other things of the same point
   * besides: two variations of one point that name none in common may be one product
   * (test/support/variation-matrix.ts). Without it, and without volatileFields (the fields it
   * adds), a variation fills in its whole point.
   */
  fills?: string[];
  /** Vendor configuration the suite needs to test this variation (as a vendor would give it). */
  vendorConfig?: Record<string, unknown>;
  /** Server-managed fields that legitimately change when the suite restores a record. */
  volatileFields?: string[];
  /**
   * SHOULD checks this variation legitimately warns on: it departs from a strong inference the
   * contract does not state. The variations test accepts exactly these warnings, no other.
   */
  expectWarnings?: CheckIdOf<ShouldRequirementId>[];
  /**
   * Business checks this variation makes not applicable, with the reason in the variation. The
   * variations test otherwise holds every variation to none: the record is documented.
   */
  expectNotApplicable?: CheckId[];
  /** How the suite judged this variation at first contact (FIRST-CONTACT.md). */
  firstContact?: FirstContact;
}

/** The fields the seed business record holds as null. */
const NULL_IN_SEED = Object.entries(seedBusiness('email')).filter(([, v]) => v === null).map(([f]) => f);

/**
 * What the variations of `values` fill in: one field's accepted values or stored form, or the
 * fields a product adds. A product has one of each, and any number of them at once.
 */
const FILLS = {
  currencies: 'the currencies accepted', zones: 'the time zones accepted', phones: 'the phone numbers accepted',
  socialLinks: 'the social links accepted', text: 'the characters of business text accepted',
  phonesStored: 'how phone numbers are stored', urlsStored: 'how URLs are stored', textStored: 'how business text is stored',
  hours: 'businessHours: their elements, which are accepted, how they are stored', unset: 'which nullable business fields are filled in',
  customerFields: 'the names of customer fields', customerEmails: 'how customer emails are stored',
} as const;

/** What the variations of the other open points fill in, each one thing of its point: a product fills in each its own way, all at once. */
const SHAPE = {
  createStatus: 'the status a customer create answers', deleteAnswer: 'what a customer delete answers', deleteUnknown: 'what a delete of an id no customer holds answers',
  memberRefusal: 'how a team member create or delete is refused', list: 'the shape of a list answer', order: 'the order of a list',
  customerFields: 'the names of customer fields', record: 'the shape of a one-record answer', role: "how a member's role is answered",
  derived: 'the read-only fields a customer or member adds', memberUnknownFields: 'what a member update does with fields the member lacks',
} as const;
const ERRORS = {
  body: 'the body of an error answer', businessValidation: 'which business updates are refused, and how',
  mediaTypes: 'which media types a request may carry, and when they are checked', customerEmails: 'which customer emails are refused',
  customerPhones: 'which customer phone numbers are refused', memberUpdates: 'which member updates are refused',
} as const;
/** Paged lists seed the customers their pages need, in their order and shape: those are theirs too. */
const LIMITS = { paging: 'how a list is paged', customers: 'how many customers there are', rate: 'how often a request is refused for its rate', body: 'how large a request body may be' } as const;
const BODIES = { envelope: 'the envelope of a business answer', updateAnswer: 'what an update answers', nulls: 'how null fields are answered' } as const;

/** The edges of a type a product that validates its values refuses (bounds are not shown): those checks are not applicable. */
const REFUSES_EMPTY = {
  currency: ['BUS-UPDATE-BOUNDARY:currencyIso:empty'],
  zone: ['BUS-UPDATE-BOUNDARY:timeZone:empty'],
  validated: ['BUS-UPDATE-BOUNDARY:email:empty', 'BUS-UPDATE-BOUNDARY:currencyIso:empty', 'BUS-UPDATE-BOUNDARY:timeZone:empty'],
} satisfies Record<string, CheckId[]>;

/** Variations of what a product accepts where section 2 shows no formats: the suite learns values, it does not invent them. */
const VALUES_ACCEPTED: Variation[] = [
  {
    name: 'social-links-own-domain', notShown: 'values', fills: [FILLS.socialLinks],
    description: 'Each social link must be an https URL on that network\'s own domain (instagram.com, tiktok.com, …); anything else answers 422.',
  },
  { name: 'currency-whitelist', notShown: 'values', fills: [FILLS.currencies], description: 'Only the currencies of a North American product are accepted (USD, CAD, MXN); others answer 422.', expectNotApplicable: REFUSES_EMPTY.currency },
  { name: 'time-zone-whitelist', notShown: 'values', fills: [FILLS.zones], description: 'Only time zones of the Americas the product serves are accepted; others answer 422.', expectNotApplicable: REFUSES_EMPTY.zone },
  { name: 'phone-one-region', notShown: 'values', fills: [FILLS.phones], description: 'A UK product: phone numbers must be UK numbers (+44 and ten digits); the business holds one.' },
  {
    name: 'currency-own-list', notShown: 'values', fills: [FILLS.currencies],
    description: 'Only USD and ISK are accepted, a list no one could guess; the vendor gives ISK in businessValues.',
    vendorConfig: { businessValues: { currencyIso: ['ISK'] } },
    expectNotApplicable: REFUSES_EMPTY.currency,
  },
  {
    name: 'currency-single', notShown: 'values', fills: [FILLS.currencies],
    description: 'A single-currency product: only the currency the business holds is accepted.',
    // Every other currency is refused: the change checks of currencyIso are not applicable, with
    // the values tried and how to give one (businessValues); writing back USD is still checked.
    expectNotApplicable: ['BUS-UPDATE-200:currencyIso', 'BUS-UPDATE-APPLIES:currencyIso', 'BUS-UPDATE-PARTIAL:currencyIso', ...REFUSES_EMPTY.currency],
  },
];

/** Section 4: the bodies of the retrieval and the update are not shown; the record may come wrapped. */
const ENVELOPES: Variation[] = [
  { name: 'business-envelope-data', notShown: 'business-bodies', fills: [BODIES.envelope], description: 'The business retrieval and update answer {"data": {...}}.' },
  { name: 'business-envelope-business', notShown: 'business-bodies', fills: [BODIES.envelope], description: 'The business retrieval and update answer {"business": {...}}.' },
  {
    name: 'business-envelope-result', notShown: 'business-bodies', fills: [BODIES.envelope],
    description: 'The business retrieval and update answer {"result": {...}}, named by the vendor (businessEnvelope).',
    vendorConfig: { businessEnvelope: 'result' },
  },
];
/**
 * Red-team round 2026-11-29: choices written from the contract alone, as implementers of real
 * products would fill its open points; firstContact records how the suite judged each at first.
 */
const FIRST_CONTACT: Variation[] = [
  {
    name: 'customer-fields-snake-case', notShown: 'customer-team-member-shapes', fills: [SHAPE.customerFields],
    description: 'Customers have snake_case fields (first_name, last_name, email_address, phone_number); other fields sent are dropped (strong parameters). The vendor gives its customer body.',
    vendorConfig: { customerFixture: { first_name: 'Conformance', last_name: 'Customer', email_address: 'conformance@example.com' }, markerField: 'last_name' },
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1 (with the vendor customerFixture): CUS-UPDATE failed", note: "The suite patched firstName, a field the target never showed (its fixture and records are snake_case), instead of a field the customer holds; strong parameters drop it, so 'a find after the update does not show the change: firstName: expected 'Changed', got nothing'. Without the config: CUS-CREATE and CUS-CREATE-ONE fail too (no hint to give customerFixture)." },
  },
  {
    name: 'customer-create-requires-phone', notShown: 'errors', fills: [ERRORS.customerPhones],
    description: 'A customer must have a phone number: a create without a non-empty phoneNumber, or an update clearing it, answers 422. The vendor gives its customer body.',
    vendorConfig: { customerFixture: { firstName: 'Conformance', lastName: 'Customer', email: 'conformance@example.com', phoneNumber: '+14155550199' } },
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 0 (with and without the vendor customerFixture)", note: "The default fixture already carries a phoneNumber; nothing clears it." },
  },
  {
    name: 'customer-record-envelope', notShown: 'customer-team-member-shapes', fills: [SHAPE.record],
    description: 'One-record answers are wrapped, Rails-style: {"customer": {...}} for create, find and update of a customer, {"team_member": {...}} for find and update of a member; a request body may come wrapped the same way or bare.',
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: CUS-CREATE failed, TM-FIND failed, 30 checks blocked", note: "{'customer': {...}} is read as a record without an id ('set idField in the vendor config'), {'team_member': {...}} as a member 'with id undefined'. The business envelope is understood (businessEnvelope), the customer / team member one is not, and no setting names it." },
  },
  {
    name: 'list-hal', notShown: 'customer-team-member-shapes', fills: [SHAPE.list],
    description: 'The lists answer HAL: {"_embedded": {"customers": [...]}, "_links": {"self": {"href": ...}}, "count": n} (teamMembers for the members).',
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: OP-DOCUMENTED:listCustomers, :listTeamMembers, CUS-LIST:array, TM-LIST and 6 more failed", note: "'neither a JSON array nor an object holding exactly one array': the array is one level deeper (_embedded.customers); no setting names where the list is. The clean-up also could not verify by listing (left-on-target note), though nothing was left." },
  },
  {
    name: 'list-pages-has-more', notShown: 'limits', fills: [LIMITS.paging, LIMITS.customers, SHAPE.order, SHAPE.list],
    description: 'The lists answer pages of 10 customers (2 team members) chosen by ?page=N, as {"data": [...], "has_more": true|false}, newest last; 30 customers exist before the run. The vendor names the page parameter.',
    vendorConfig: { listPaging: { pageParam: 'page', firstPage: 1 } },
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 0 with the vendor listPaging {pageParam: page}", note: "Without the config: exit 1, CUS-CREATE-ONE, CUS-LIST:new-and-existing and CUS-LIST:each-field-change FAIL ('the list does not hold the customer just created'): the suite reads page 1 only although the body says has_more: true, and fails instead of asking for listPaging." },
  },
  {
    name: 'lock-version', notShown: 'states',
    description: 'Customers and team members carry lock_version (optimistic locking, Rails-style): every write adds one; an update whose body carries a lock_version other than the current one answers 409 and changes nothing.',
    volatileFields: ['lock_version'],
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: CUS-UPDATE, CUS-UPDATE:each-field, TM-UPDATE:* (6), TM-ISOLATION failed; lock_version reported as left changed", note: "A server-managed version counter is taken for 'fields not sent changed: lock_version: was 0, now 1'; the write-back sends the old lock_version (409), and the run reports 'lock_version still differs from before the run'. updatedAt (variation timestamps) is tolerated, a counter is not." },
  },
  {
    name: 'phone-numbers-e164', notShown: 'values', fills: [FILLS.phonesStored],
    description: 'Phone numbers (business and customers) are stored in E.164 without separators: "+1 (415) 555-0100" is stored and answered as "+14155550100".',
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 0", note: "The suite sends phone numbers in the target's own form (+1415...), so the normalisation is never visible." },
  },
  {
    name: 'urls-canonical', notShown: 'values', fills: [FILLS.urlsStored],
    description: 'The business URL fields are stored canonicalised as WHATWG URLs: lower-case scheme and host, "/" as the path of a bare origin ("HTTPS://Example.com" is stored as "https://example.com/").',
    firstContact: { round: '2026-11-29', outcome: 'right', verdict: "exit 0", note: "The suite sends URLs with a path, already canonical; never a bare origin or an upper-case host." },
  },
  // A refusal of a value, of a spelling of the media type or of an empty update is the target's
  // choice (formats and validation errors are not shown): the suite tries another value, or
  // judges only that the refused request changed nothing.
  { name: 'business-text-ascii-only', notShown: 'values', fills: [FILLS.text], description: 'Business strings must be ASCII (a single-byte column): a value with any other character answers 422.' },
  { name: 'business-media-type-exact', notShown: 'errors', fills: [ERRORS.mediaTypes], description: 'An update whose Content-Type is not exactly "application/json" (a charset parameter too) answers 415 and changes nothing.' },
  { name: 'business-empty-update-refused', notShown: 'errors', fills: [ERRORS.businessValidation], description: 'An update with no field ({}) answers 422 and changes nothing.' },
  {
    name: 'business-hours-as-set', notShown: 'values', fills: [FILLS.hours],
    description: 'businessHours are stored as a set: identical elements once, ordered by day of the week and start time.',
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: BUS-UPDATE-BOUNDARY:businessHours:more failed", note: "The 'more' boundary appends a copy of the first WorkHours (a duplicate element); a product that keeps hours as a set stores three, and the check fails although the element rules are not shown." },
  },
  {
    name: 'team-member-role-object', notShown: 'customer-team-member-shapes', fills: [SHAPE.role],
    description: 'Find and Update Team Member answer role as an object {"key": "staff", "name": "Staff"}; the list answers it as the key; an update takes the key or the object.',
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: TM-FIND failed", note: "'answered other values than the list shows for it (role: was 'owner', now {'key':'owner',...})': the suite holds list items and find to the same representation, which the contract does not state (shapes not shown)." },
  },
  {
    name: 'full-name-derived', notShown: 'customer-team-member-shapes', fills: [SHAPE.derived],
    description: 'Customers and team members answer a read-only fullName derived from firstName and lastName; a fullName sent is ignored.',
    firstContact: { round: '2026-11-29', outcome: 'wrong', verdict: "exit 1: CUS-UPDATE, CUS-UPDATE:each-field, TM-UPDATE:change, TM-UPDATE:each-field failed", note: "A derived read-only field is taken for 'fields not sent changed: fullName'; changing fullName alone is judged 'a find does not show it'." },
  },
];

/**
 * Red-team round 2 (first contact): correct choices written from the contract alone where it
 * shows nothing (formats, shapes, errors); measured in FIRST-CONTACT-2.md.
 */
const FIRST_CONTACT_2: Variation[] = [
  // Section 2: "formats and bounds of values: not shown": a product may keep its texts without surrounding blanks.
  { name: 'business-text-trimmed', notShown: 'values', fills: [FILLS.textStored], description: 'Business strings are stored without leading and trailing whitespace (" Acme " is stored and answered as "Acme").', firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 0 (3 of 3)', note: 'not exercised: no value the suite sent had surrounding blanks' } },
  // Section 2: customer fields (and so their formats) are not shown: an email address kept in one case.
  { name: 'customer-email-lowercased', notShown: 'values', fills: [FILLS.customerEmails], description: 'Customer emails are stored lower-cased ("Ada@Example.COM" is stored and answered as "ada@example.com").', firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 0 (3 of 3)', note: 'not exercised: no customer email the suite sent had an upper-case letter' } },
  // Section 7: status codes and error conditions of the team member endpoints are not shown.
  { name: 'team-member-email-read-only', notShown: 'errors', fills: [ERRORS.memberUpdates], description: 'A team member\'s email is managed by the sign-in provider: an update that changes it answers 422 and changes nothing; sending the same email is accepted.', firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 0 (3 of 3)', note: 'exercised: the member email changes were answered 422 and judged a refusal' } },
  // Section 2: the element structure of WorkHours is not shown: times kept with their seconds.
  { name: 'work-hours-seconds', notShown: 'values', fills: [FILLS.hours], description: 'WorkHours times are stored and answered with seconds: "09:00" is stored as "09:00:00" (the business holds its hours that way).', firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 0 (3 of 3)', note: 'exercised: the hours the suite derives from the record carry seconds' } },
  // Section 4: payload shapes of the team member endpoints are not shown: a product keeps only the fields a member has.
  { name: 'team-member-unknown-fields-dropped', notShown: 'customer-team-member-shapes', fills: [SHAPE.memberUnknownFields], description: 'Update Team Member ignores fields the member does not have (strong parameters): they are neither stored nor answered.', firstContact: { round: '2026-11-29 (round 2)', outcome: 'right', verdict: 'exit 0 (3 of 3)', note: 'not exercised: no member update sent a field the member lacks' } },
];

export const VARIATIONS: Variation[] = [
  { name: 'ids-integer', notShown: 'id-format', description: 'Ids are JSON integers.' },
  { name: 'ids-prefixed', notShown: 'id-format', description: 'Ids are prefixed strings such as cus_000123.' },
  { name: 'ids-canonical-case', notShown: 'id-format', description: 'Ids are prefixed strings such as cus_000123, found in any case: /customers/CUS_000123 is the same customer.' },
  { name: 'ids-canonical-zeros', notShown: 'id-format', description: 'Ids are integers, found with leading zeros too: /customers/007 is customer 7.' },
  { name: 'create-200', notShown: 'customer-team-member-shapes', fills: [SHAPE.createStatus], description: 'Create Customer answers 200 instead of 201.' },
  { name: 'delete-200-body', notShown: 'customer-team-member-shapes', fills: [SHAPE.deleteAnswer], description: 'Delete Customer answers 200 with the deleted customer instead of 204.' },
  { name: 'auth-everywhere', notShown: 'undocumented-auth', description: 'Every endpoint, not only the business, requires the bearer key.' },
  { name: 'auth-writes-only', notShown: 'undocumented-auth', description: 'Every write (POST, PATCH, DELETE) requires the bearer key; reads of customers and team members do not.' },
  { name: 'patch-answers-changes', notShown: 'business-bodies', fills: [BODIES.updateAnswer], description: 'Every PATCH answers only the fields it changed.' },
  { name: 'patch-answers-empty', notShown: 'business-bodies', fills: [BODIES.updateAnswer], description: 'Every PATCH answers {}.' },
  {
    // Every value of every record is its own: no other variation of values shares its product (no fills).
    name: 'sparse-records', notShown: 'values',
    description: "Records hold little: the business's strings are empty, it has no business hours and GDPR off; seeded customers and the first team member hold nothing but their ids, the others empty strings.",
    // Its members' strings are all empty: no value tells a free-text field, and the suite asks for
    // the member change (TM-ISOLATION not applicable without it). Alone, the default customer
    // fixture's names found a member's name field; beside a vendor fixture of other names (customer-fields-snake-case) nothing did.
    vendorConfig: { teamMemberPatch: { lastName: 'Changed' } },
    // With no WorkHours on the target there is no element to learn one from (their structure is not shown).
    expectNotApplicable: ['BUS-UPDATE-200:businessHours', 'BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-BOUNDARY:businessHours:more', 'BUS-UPDATE-PARTIAL:businessHours'],
  },
  {
    name: 'timestamps', notShown: 'values', fills: ['createdAt', 'updatedAt'],
    description: 'Records carry createdAt / updatedAt, and updatedAt changes on every write.',
    volatileFields: ['updatedAt'],
  },
  {
    name: 'business-version', notShown: 'values',
    description: 'The business record carries a version the server makes one more on every update (optimistic locking); a version sent is ignored.',
    volatileFields: ['version'],
  },
  {
    name: 'lock-version-etag', notShown: 'values',
    description: 'Customers and team members carry lock_version and an etag, both changed by the server on every write of the record (Rails\' optimistic locking).',
    volatileFields: ['lock_version', 'etag'],
  },
  { name: 'member-last-active', notShown: 'values', fills: ['lastActiveAt'], description: 'Team members carry lastActiveAt, the instant the server last served them: every list or find shows a later one.' },
  {
    name: 'customers-snake-case', notShown: 'values', fills: [FILLS.customerFields],
    description: 'Customers\' fields are snake_case (first_name, last_name, email, phone_number), as the vendor configuration\'s customerFixture names them.',
    vendorConfig: {
      customerFixture: { first_name: 'Conformance', last_name: 'Customer', email: 'conformance.customer@example.com', phone_number: '+14155550123' },
      customerPatch: { first_name: 'Changed' },
    },
  },
  {
    name: 'strict-validation', notShown: 'errors', fills: [ERRORS.businessValidation],
    description: 'Unknown business fields, non-ISO currencies, non-IANA zones, wrong types and malformed URLs answer 422.',
    expectNotApplicable: REFUSES_EMPTY.validated,
  },
  { name: 'tm-forbidden-403', notShown: 'customer-team-member-shapes', fills: [SHAPE.memberRefusal], description: 'Creating or deleting a team member answers 403.' },
  { name: 'tm-unknown-404', notShown: 'customer-team-member-shapes', fills: [SHAPE.memberRefusal], description: 'Creating or deleting a team member answers 404.' },
  { name: 'many-customers', notShown: 'limits', fills: [LIMITS.customers], description: 'Three hundred customers exist before the run.' },
  {
    name: 'unique-customer-email', notShown: 'errors', fills: [ERRORS.customerEmails],
    description: 'Customer emails are unique: a create (or update) with an email another customer holds answers 409.',
  },
  {
    name: 'delete-idempotent', notShown: 'customer-team-member-shapes', fills: [SHAPE.deleteUnknown],
    description: 'Delete Customer of an id that names no customer (any more) answers 204.',
    // 404 for an unknown id is a SHOULD; an idempotent delete departs from it, legitimately.
    expectWarnings: ['CUS-UNKNOWN-404:delete'],
  },
  {
    name: 'omit-null-fields', notShown: 'business-bodies', fills: [BODIES.nulls],
    description: 'The business retrieval leaves out the fields that are null.',
    // A field null at the start is not in the retrieval: its value cannot be read, so it cannot
    // be restored either, and its type and update checks are not applicable (with that reason).
    expectNotApplicable: NULL_IN_SEED.flatMap((f): CheckId[] => [
      `BUS-GET-TYPES:${f}`, `BUS-UPDATE-200:${f}`, `BUS-UPDATE-APPLIES:${f}`, `BUS-UPDATE-PARTIAL:${f}`, `BUS-UPDATE-PARTIAL:${f}:null`, `BUS-UPDATE-NULLABLE:${f}`,
    ]),
  },
  {
    name: 'business-hours-every-day', notShown: 'values', fills: [FILLS.hours],
    description: 'An update of businessHours must name the same days as the record holds (422 otherwise).',
    // The element rules are not shown: the changed list the suite derives may be refused.
    expectNotApplicable: ['BUS-UPDATE-200:businessHours', 'BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-PARTIAL:businessHours', 'BUS-UPDATE-BOUNDARY:businessHours:empty', 'BUS-UPDATE-BOUNDARY:businessHours:more'],
  },
  { name: 'list-envelope', notShown: 'customer-team-member-shapes', fills: [SHAPE.list], description: 'List Customers and List Team Members answer {"data": [...]} instead of a bare array.' },
  {
    name: 'email-field-renamed', notShown: 'email-field',
    description: 'The business email field is called contactEmail.',
    vendorConfig: { businessEmailField: 'contactEmail' },
  },
  {
    name: 'email-field-email-address', notShown: 'email-field',
    description: 'The business email field is called emailAddress.',
    vendorConfig: { businessEmailField: 'emailAddress' },
  },
  ...VALUES_ACCEPTED,
  ...ENVELOPES,

  // --- What the contract leaves open: at least two realistic choices each besides the plain
  // reference (test/variations.test.ts holds every not-checked statement to it). Section 1: other resources.
  { name: 'extra-resources', notShown: 'other-resources', description: 'The platform serves more resources than the three documented (GET /api/v1/services, /api/v1/appointments).' },
  { name: 'api-index', notShown: 'other-resources', description: 'GET /api/v1 answers an index of the resources served, a fourth (locations) among them.' },
  // Section 2: the element structure of WorkHours.
  { name: 'work-hours-minutes', notShown: 'values', fills: [FILLS.hours], description: 'businessHours elements are {day, opensAtMinute, closesAtMinute} with ISO weekday numbers, not named days and times.' },
  // Section 2: the order of businessHours; how many elements they hold; which nullable fields are filled in.
  { name: 'business-hours-weekday-order', notShown: 'values', fills: [FILLS.hours], description: 'businessHours are stored in weekday order, whatever order they are sent in.' },
  { name: 'business-hours-one-day', notShown: 'values', fills: [FILLS.hours], description: 'The business is open one day a week: businessHours hold one element.' },
  { name: 'business-nullable-unset', notShown: 'values', fills: [FILLS.unset], description: 'A business just set up: every nullable field is null (name, email, currency, time zone, hours and GDPR set).' },
  // Section 3: states of a record.
  { name: 'record-state', notShown: 'states', description: 'Every customer carries a state the server keeps ("state": "active").' },
  { name: 'team-member-state', notShown: 'states', description: 'Every team member carries a status and when it last changed, both kept by the server ("status": "active", "statusChangedAt").' },
  // Section 4: paging and ordering of the lists.
  { name: 'list-paged', notShown: 'customer-team-member-shapes', fills: [SHAPE.list], description: 'The lists answer one page with its paging data: {"items": [...], "page", "pageSize", "total", "next"}.' },
  { name: 'list-pages-body-link', notShown: 'limits', fills: [LIMITS.paging, LIMITS.customers, SHAPE.order, SHAPE.list], description: 'The lists answer pages of 10 customers (2 team members), newest last, the next page named in the body: {"items": [...], "next": "/api/v1/customers?page=2"}; 30 customers exist before the run.' },
  { name: 'list-pages-link-header', notShown: 'limits', fills: [LIMITS.paging, LIMITS.customers, SHAPE.order, SHAPE.list], description: 'The lists answer pages of 10 customers (2 team members) as bare arrays, newest last, the next page named by Link: <…>; rel="next"; 30 customers exist before the run.' },
  { name: 'list-pages-cursor-meta', notShown: 'limits', fills: [LIMITS.paging, LIMITS.customers, SHAPE.order, SHAPE.list], description: 'The lists answer pages of 10 customers (2 team members) as {"data": [...], "meta": {"nextCursor": "c2"}}, newest last, the next page at ?cursor=c2 and no link anywhere; 30 customers exist before the run.' },
  { name: 'ids-reused', notShown: 'id-format', description: 'Ids are integers, a new record taking the highest id plus one (json-server\'s way): a deleted top id comes back with the next create.' },
  // Section 3 shows no states, nor when a write shows in later reads.
  { name: 'read-replica-lag', notShown: 'states', description: 'Reads are served by a replica that shows each write 50 ms after it was answered (a read right after a write is stale).' },
  { name: 'read-replicas-alternate', notShown: 'states', description: 'Reads go in turn to the records and to a replica that shows each write 50 ms after it was answered, as behind a load balancer: a read may show a write and the next one not yet.' },
  { name: 'list-newest-first', notShown: 'customer-team-member-shapes', fills: [SHAPE.order], description: 'The lists are ordered newest first.' },
  { name: 'list-sorted-by-name', notShown: 'customer-team-member-shapes', fills: [SHAPE.order], description: 'The lists are ordered by last name, then first name.' },
  // Section 6: events.
  { name: 'event-ids', notShown: 'events', description: 'Every write answers with the id of the event it emitted (X-Event-Id).' },
  { name: 'event-link', notShown: 'events', description: 'Every write links the event it emitted (Link: </api/v1/events/…>; rel="event").' },
  // Section 4 and 5.1: what the grammar of "Bearer <API_KEY>" allows besides that spelling.
  { name: 'auth-scheme-any-case', notShown: 'authorization-leniency', description: 'The scheme is matched ignoring case (RFC 7235 2.1): "bearer <key>" and "BEARER <key>" are accepted.' },
  { name: 'auth-several-spaces', notShown: 'authorization-leniency', description: 'Several spaces between Bearer and the key are accepted (RFC 6750 2.1: "Bearer" 1*SP b64token).' },
  // Section 7: the shape of an error body, the status of a validation error, unknown team members.
  { name: 'tm-unknown-id-400', notShown: 'unknown-team-member', description: 'Finding a team member by an id that names none answers 400.' },
  { name: 'tm-unknown-id-403', notShown: 'unknown-team-member', description: 'Finding a team member by an id that names none of the caller\'s answers 403.' },
  { name: 'errors-problem-json', notShown: 'errors', fills: [ERRORS.body], description: 'Errors answer RFC 9457 problem details (application/problem+json).' },
  { name: 'errors-plain-text', notShown: 'errors', fills: [ERRORS.body], description: 'Errors answer a line of plain text, not JSON.' },
  // Section 4 requires Accept and Content-Type application/json: a request with others may be refused for that before its key is looked at.
  { name: 'media-types-checked-first', notShown: 'errors', fills: [ERRORS.mediaTypes], description: 'Before any key is checked, an Accept that admits no application/json answers 406 and a body not labelled application/json answers 415.' },
  {
    name: 'business-update-unvalidated', notShown: 'errors', fills: [ERRORS.businessValidation],
    description: 'The business update checks no value\'s type: a value that is not a string is stored as sent (strings are checked as before), and a body that is not an object changes nothing (200).',
  },
  { name: 'validation-400', notShown: 'errors', fills: [ERRORS.businessValidation], description: 'Strict validation of the business update, answering 400 (not 422) to an invalid value.', expectNotApplicable: REFUSES_EMPTY.validated },
  // Section 8: rate and size limits.
  { name: 'rate-limited', notShown: 'limits', fills: [LIMITS.rate], description: 'Every 7th request answers 429 with Retry-After: 0; asked again, it is served.' },
  { name: 'small-body-limit', notShown: 'limits', fills: [LIMITS.body], description: 'Request bodies over 16 KiB answer 413.' },
  // Section 9: versioning.
  { name: 'version-headers', notShown: 'versioning', description: 'Every answer carries API-Version and Deprecation headers.' },
  { name: 'version-successor-link', notShown: 'versioning', description: 'Every answer names a successor version and a sunset date (Link rel="successor-version", Sunset).' },
  ...FIRST_CONTACT,
  ...FIRST_CONTACT_2,
];

export function variationNamed(name: string): Variation | undefined {
  return VARIATIONS.find((v) => v.name === name);
}
