/**
 * Legitimate variations: ways an implementation may fill in what the contract leaves open.
 * The suite must pass the reference implementation with any of them switched on.
 */
import type { CheckId, CheckIdOf, NotShownKey, ShouldRequirementId } from '../helpers/contract/catalog.ts';
import { seedBusiness } from './seed.ts';

export interface Variation {
  name: string;
  description: string;
  /** The statement the contract leaves open (not-checked in spec/requirements.yaml) that this choice fills in. */
  notShown: NotShownKey;
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
}

/** The fields the seed business record holds as null. */
const NULL_IN_SEED = Object.entries(seedBusiness('email')).filter(([, v]) => v === null).map(([f]) => f);

/** The edges of a type a product that validates its values refuses (bounds are not shown): those checks are not applicable. */
const REFUSES_EMPTY = {
  currency: ['BUS-UPDATE-BOUNDARY:currencyIso:empty'],
  zone: ['BUS-UPDATE-BOUNDARY:timeZone:empty'],
  validated: ['BUS-UPDATE-BOUNDARY:email:empty', 'BUS-UPDATE-BOUNDARY:currencyIso:empty', 'BUS-UPDATE-BOUNDARY:timeZone:empty'],
} satisfies Record<string, CheckId[]>;

/** Variations of what a product accepts where section 2 shows no formats: the suite learns values, it does not invent them. */
const VALUES_ACCEPTED: Variation[] = [
  {
    name: 'social-links-own-domain', notShown: 'values',
    description: 'Each social link must be an https URL on that network\'s own domain (instagram.com, tiktok.com, …); anything else answers 422.',
  },
  { name: 'currency-whitelist', notShown: 'values', description: 'Only the currencies of a North American product are accepted (USD, CAD, MXN); others answer 422.', expectNotApplicable: REFUSES_EMPTY.currency },
  { name: 'time-zone-whitelist', notShown: 'values', description: 'Only time zones of the Americas the product serves are accepted; others answer 422.', expectNotApplicable: REFUSES_EMPTY.zone },
  { name: 'phone-one-region', notShown: 'values', description: 'A UK product: phone numbers must be UK numbers (+44 and ten digits); the business holds one.' },
  {
    name: 'currency-own-list', notShown: 'values',
    description: 'Only USD and ISK are accepted, a list no one could guess; the vendor gives ISK in businessValues.',
    vendorConfig: { businessValues: { currencyIso: ['ISK'] } },
    expectNotApplicable: REFUSES_EMPTY.currency,
  },
  {
    name: 'currency-single', notShown: 'values',
    description: 'A single-currency product: only the currency the business holds is accepted.',
    // Every other currency is refused: the change checks of currencyIso are not applicable, with
    // the values tried and how to give one (businessValues); writing back USD is still checked.
    expectNotApplicable: ['BUS-UPDATE-200:currencyIso', 'BUS-UPDATE-APPLIES:currencyIso', 'BUS-UPDATE-PARTIAL:currencyIso', ...REFUSES_EMPTY.currency],
  },
];

/** Section 4: the bodies of the retrieval and the update are not shown; the record may come wrapped. */
const ENVELOPES: Variation[] = [
  { name: 'business-envelope-data', notShown: 'business-bodies', description: 'The business retrieval and update answer {"data": {...}}.' },
  { name: 'business-envelope-business', notShown: 'business-bodies', description: 'The business retrieval and update answer {"business": {...}}.' },
  {
    name: 'business-envelope-result', notShown: 'business-bodies',
    description: 'The business retrieval and update answer {"result": {...}}, named by the vendor (businessEnvelope).',
    vendorConfig: { businessEnvelope: 'result' },
  },
];
export const VARIATIONS: Variation[] = [
  { name: 'ids-integer', notShown: 'id-format', description: 'Ids are JSON integers.' },
  { name: 'ids-prefixed', notShown: 'id-format', description: 'Ids are prefixed strings such as cus_000123.' },
  { name: 'ids-canonical-case', notShown: 'id-format', description: 'Ids are prefixed strings such as cus_000123, found in any case: /customers/CUS_000123 is the same customer.' },
  { name: 'ids-canonical-zeros', notShown: 'id-format', description: 'Ids are integers, found with leading zeros too: /customers/007 is customer 7.' },
  { name: 'create-200', notShown: 'customer-team-member-shapes', description: 'Create Customer answers 200 instead of 201.' },
  { name: 'delete-200-body', notShown: 'customer-team-member-shapes', description: 'Delete Customer answers 200 with the deleted customer instead of 204.' },
  { name: 'auth-everywhere', notShown: 'undocumented-auth', description: 'Every endpoint, not only the business, requires the bearer key.' },
  { name: 'auth-writes-only', notShown: 'undocumented-auth', description: 'Every write (POST, PATCH, DELETE) requires the bearer key; reads of customers and team members do not.' },
  { name: 'patch-answers-changes', notShown: 'business-bodies', description: 'Every PATCH answers only the fields it changed.' },
  { name: 'patch-answers-empty', notShown: 'business-bodies', description: 'Every PATCH answers {}.' },
  {
    name: 'sparse-records', notShown: 'values',
    description: "Records hold little: the business's strings are empty, it has no business hours and GDPR off; seeded customers and the first team member hold nothing but their ids, the others empty strings.",
    // With no WorkHours on the target there is no element to learn one from (their structure is not shown).
    expectNotApplicable: ['BUS-UPDATE-200:businessHours', 'BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-BOUNDARY:businessHours:more', 'BUS-UPDATE-PARTIAL:businessHours'],
  },
  {
    name: 'timestamps', notShown: 'values',
    description: 'Records carry createdAt / updatedAt, and updatedAt changes on every write.',
    volatileFields: ['updatedAt'],
  },
  {
    name: 'strict-validation', notShown: 'errors',
    description: 'Unknown business fields, non-ISO currencies, non-IANA zones, wrong types and malformed URLs answer 422.',
    expectNotApplicable: REFUSES_EMPTY.validated,
  },
  { name: 'tm-forbidden-403', notShown: 'customer-team-member-shapes', description: 'Creating or deleting a team member answers 403.' },
  { name: 'tm-unknown-404', notShown: 'customer-team-member-shapes', description: 'Creating or deleting a team member answers 404.' },
  { name: 'many-customers', notShown: 'limits', description: 'Three hundred customers exist before the run.' },
  {
    name: 'unique-customer-email', notShown: 'errors',
    description: 'Customer emails are unique: a create (or update) with an email another customer holds answers 409.',
  },
  {
    name: 'delete-idempotent', notShown: 'customer-team-member-shapes',
    description: 'Delete Customer of an id that names no customer (any more) answers 204.',
    // 404 for an unknown id is a SHOULD; an idempotent delete departs from it, legitimately.
    expectWarnings: ['CUS-UNKNOWN-404:delete'],
  },
  {
    name: 'omit-null-fields', notShown: 'business-bodies',
    description: 'The business retrieval leaves out the fields that are null.',
    // A field null at the start is not in the retrieval: its value cannot be read, so it cannot
    // be restored either, and its type and update checks are not applicable (with that reason).
    expectNotApplicable: NULL_IN_SEED.flatMap((f): CheckId[] => [
      `BUS-GET-TYPES:${f}`, `BUS-UPDATE-200:${f}`, `BUS-UPDATE-APPLIES:${f}`, `BUS-UPDATE-PARTIAL:${f}`, `BUS-UPDATE-NULLABLE:${f}`,
    ]),
  },
  {
    name: 'business-hours-every-day', notShown: 'values',
    description: 'An update of businessHours must name the same days as the record holds (422 otherwise).',
    // The element rules are not shown: the changed list the suite derives may be refused.
    expectNotApplicable: ['BUS-UPDATE-200:businessHours', 'BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-PARTIAL:businessHours', 'BUS-UPDATE-BOUNDARY:businessHours:empty', 'BUS-UPDATE-BOUNDARY:businessHours:more'],
  },
  { name: 'list-envelope', notShown: 'customer-team-member-shapes', description: 'List Customers and List Team Members answer {"data": [...]} instead of a bare array.' },
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
  { name: 'work-hours-minutes', notShown: 'values', description: 'businessHours elements are {day, opensAtMinute, closesAtMinute} with ISO weekday numbers, not named days and times.' },
  // Section 3: states of a record.
  { name: 'record-state', notShown: 'states', description: 'Every customer carries a state the server keeps ("state": "active").' },
  { name: 'team-member-state', notShown: 'states', description: 'Every team member carries a status and when it last changed, both kept by the server ("status": "active", "statusChangedAt").' },
  // Section 4: paging and ordering of the lists.
  { name: 'list-paged', notShown: 'customer-team-member-shapes', description: 'The lists answer one page with its paging data: {"items": [...], "page", "pageSize", "total", "next"}.' },
  { name: 'list-pages-body-link', notShown: 'limits', description: 'The lists answer pages of 10 customers (2 team members), newest last, the next page named in the body: {"items": [...], "next": "/api/v1/customers?page=2"}; 30 customers exist before the run.' },
  { name: 'list-pages-link-header', notShown: 'limits', description: 'The lists answer pages of 10 customers (2 team members) as bare arrays, newest last, the next page named by Link: <…>; rel="next"; 30 customers exist before the run.' },
  { name: 'list-pages-cursor-meta', notShown: 'limits', description: 'The lists answer pages of 10 customers (2 team members) as {"data": [...], "meta": {"nextCursor": "c2"}}, newest last, the next page at ?cursor=c2 and no link anywhere; 30 customers exist before the run.' },
  { name: 'ids-reused', notShown: 'id-format', description: 'Ids are integers, a new record taking the highest id plus one (json-server\'s way): a deleted top id comes back with the next create.' },
  // Section 3 shows no states, nor when a write shows in later reads.
  { name: 'read-replica-lag', notShown: 'states', description: 'Reads are served by a replica that shows each write 50 ms after it was answered (a read right after a write is stale).' },
  { name: 'read-replicas-alternate', notShown: 'states', description: 'Reads go in turn to the records and to a replica that shows each write 50 ms after it was answered, as behind a load balancer: a read may show a write and the next one not yet.' },
  { name: 'list-newest-first', notShown: 'customer-team-member-shapes', description: 'The lists are ordered newest first.' },
  { name: 'list-sorted-by-name', notShown: 'customer-team-member-shapes', description: 'The lists are ordered by last name, then first name.' },
  // Section 6: events.
  { name: 'event-ids', notShown: 'events', description: 'Every write answers with the id of the event it emitted (X-Event-Id).' },
  { name: 'event-link', notShown: 'events', description: 'Every write links the event it emitted (Link: </api/v1/events/…>; rel="event").' },
  // Section 4 and 5.1: what the grammar of "Bearer <API_KEY>" allows besides that spelling.
  { name: 'auth-scheme-any-case', notShown: 'authorization-leniency', description: 'The scheme is matched ignoring case (RFC 7235 2.1): "bearer <key>" and "BEARER <key>" are accepted.' },
  { name: 'auth-several-spaces', notShown: 'authorization-leniency', description: 'Several spaces between Bearer and the key are accepted (RFC 6750 2.1: "Bearer" 1*SP b64token).' },
  // Section 7: the shape of an error body, the status of a validation error, unknown team members.
  { name: 'tm-unknown-id-400', notShown: 'unknown-team-member', description: 'Finding a team member by an id that names none answers 400.' },
  { name: 'tm-unknown-id-403', notShown: 'unknown-team-member', description: 'Finding a team member by an id that names none of the caller\'s answers 403.' },
  { name: 'errors-problem-json', notShown: 'errors', description: 'Errors answer RFC 9457 problem details (application/problem+json).' },
  { name: 'errors-plain-text', notShown: 'errors', description: 'Errors answer a line of plain text, not JSON.' },
  {
    name: 'business-update-unvalidated', notShown: 'errors',
    description: 'The business update checks no value\'s type: a value that is not a string is stored as sent (strings are checked as before), and a body that is not an object changes nothing (200).',
  },
  { name: 'validation-400', notShown: 'errors', description: 'Strict validation of the business update, answering 400 (not 422) to an invalid value.', expectNotApplicable: REFUSES_EMPTY.validated },
  // Section 8: rate and size limits.
  { name: 'rate-limited', notShown: 'limits', description: 'Every 7th request answers 429 with Retry-After: 0; asked again, it is served.' },
  { name: 'small-body-limit', notShown: 'limits', description: 'Request bodies over 16 KiB answer 413.' },
  // Section 9: versioning.
  { name: 'version-headers', notShown: 'versioning', description: 'Every answer carries API-Version and Deprecation headers.' },
  { name: 'version-successor-link', notShown: 'versioning', description: 'Every answer names a successor version and a sunset date (Link rel="successor-version", Sunset).' },
];

export function variationNamed(name: string): Variation | undefined {
  return VARIATIONS.find((v) => v.name === name);
}
