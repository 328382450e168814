import type { CheckId, MustRequirementId } from '../../helpers/contract/catalog.ts';
import type { Fault } from './fault.ts';

// Kill lists are written out, field by field: a list is a claim a reviewer reads and diffs, not
// something computed from the seed record or the order the lane runs in. The fault matrix holds
// each list to what a run against the fault flags.
const ids = (prefix: CheckId, variants: string[]) => variants.map((v): CheckId => `${prefix}:${v}`);
/** The near misses of "Bearer <key>" (helpers/http/authorization.ts), each a case of the 401 matrix. */
const NEAR_MISSES = [
  'no-scheme', 'basic-scheme', 'token-scheme', 'xbearer-scheme', 'bearerx-scheme', 'bearer-colon-scheme', 'no-separator', 'scheme-only', 'empty-token',
  'unknown-key', 'key-with-characters-before', 'key-with-extra-characters', 'key-then-space-and-junk', 'key-without-first-character',
  'key-without-last-character', 'key-with-middle-character-changed', 'key-with-one-character-changed', 'key-with-case-changed',
];
/** Every case of one operation's 401 matrix: the missing key, each near miss, the expired key. */
/** The refusals the other inputs of a request are crossed with: one of each kind (business-auth.ts's carriers). */
const eachKind = (op: 'retrieveBusiness' | 'updateBusiness'): CheckId[] => [`BUS-AUTH-MISSING:${op}`, `BUS-AUTH-INVALID:${op}:unknown-key`, `BUS-AUTH-EXPIRED:${op}`];
const bothOps = (...names: string[]) => (['retrieveBusiness', 'updateBusiness'] as const).flatMap((op) => names.map((name): CheckId => `BUS-AUTH-INVALID:${op}:${name}`));
/** The documented fields under the reference's names: one wrong-type fault each. */
/** The nullable fields the seed holds a string in: their null goes alone, before their update step. */
const NULLABLE_HOLDING_STRINGS = ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl'];
const FIELDS = [
  'name', 'email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'privacyPolicyUrl',
  'useGdprCompliance', 'instagramUrl', 'tikTokUrl', 'youTubeUrl', 'twitterUrl', 'linkedInUrl', 'facebookUrl',
];
/** MUST requirements checked on one field only. */
const ONLY_FIELD_OF: Record<string, MustRequirementId> = { currencyIso: 'BUS-UPDATE-CURRENCY-ONLY', useGdprCompliance: 'BUS-UPDATE-BOOLEAN' };

/**
 * Faults of the business record and its authentication (sections 2, 4, 5, 7). Each `kills` list
 * names the checks that must flag the fault, including those that honestly depend on it; a
 * field-level check whose precondition the fault takes away is not applicable, not killed.
 */
export const businessFaults: Fault[] = [
  {
    // Of a kind no hand-written check names: found by exploration alone (the fault matrix runs it with --only EXPLORE on a fixed seed).
    name: 'business-patch-two-fields-drops-second',
    explore: { commands: 10, seed: 2 },
    description: 'An update whose body holds exactly two fields applies the first and answers 200.',
    kills: ['EXPLORE-UPDATE-APPLIES'],
  },
  {
    // Of a kind no hand-written check names: found by exploration alone (the fault matrix runs it with --only EXPLORE on a fixed seed).
    name: 'business-refused-many-fields-applied',
    explore: { commands: 10, seed: 2 },
    description: 'An update refused for its key (401) is applied all the same when its body holds two fields or more.',
    kills: ['EXPLORE-REFUSED'],
  },
  {
    // Of a kind no hand-written check names: found by exploration alone (the fault matrix runs it with --only EXPLORE on a fixed seed).
    name: 'business-refusal-shows-record',
    explore: { commands: 10, seed: 2 },
    description: 'An update refused for its key whose body holds two fields or more answers 401 with the business record.',
    kills: ['EXPLORE-REFUSED-NO-RECORD'],
  },
  // --- Retrieval ------------------------------------------------------------------------
  {
    name: 'business-get-stale',
    description: 'GET /api/v1/business serves the record as first read, never refreshed after an update.',
    leftUnseen: { record: '/api/v1/business', why: 'every read shows the record as it was first read: a change another fault lets through (an update with a wrong key applied) is never seen' },
    kills: [
      ...ids('BUS-UPDATE-APPLIES', ['name', 'email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'useGdprCompliance', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      ...ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      'BUS-UPDATE-BOOLEAN:useGdprCompliance:true-to-false',
      ...ids('BUS-UPDATE-BOUNDARY:businessHours', ['empty', 'more']), ...ids('BUS-UPDATE-BOUNDARY', ['name:empty', 'email:empty', 'currencyIso:empty', 'timeZone:empty']),
      'BUS-UPDATE-MEDIA-TYPE',
    ],
  },
  {
    // No pass without proof: a target that hides its data must not certify by making every
    // update check not applicable.
    name: 'business-get-hides-fields',
    description: 'The retrieval answers 200 with an object that shows none of the documented fields.',
    kills: [],
    untested: [
      'BUS-UPDATE-200', 'BUS-UPDATE-APPLIES', 'BUS-UPDATE-PARTIAL', 'BUS-UPDATE-NULLABLE', 'BUS-UPDATE-BOOLEAN', 'BUS-UPDATE-CURRENCY-ONLY',
      'BUS-UPDATE-WRITEBACK', 'BUS-UPDATE-MULTI', 'BUS-AUTH-MISSING', 'BUS-AUTH-INVALID', 'BUS-AUTH-EXPIRED', 'BUS-AUTH-REJECTED-NO-CHANGE',
      // No value of the record shows, so none can be looked for in a refusal; no edge can be read back.
      'BUS-AUTH-NO-RECORD', 'BUS-UPDATE-BOUNDARY',
      // No field shows whether an update applied, nor what an update with no field changed.
      'BUS-UPDATE-MEDIA-TYPE', 'BUS-UPDATE-EMPTY',
    ],
  },
  {
    name: 'business-get-text-plain',
    description: 'The retrieval labels its JSON answer text/plain.',
    kills: ['BUS-GET-CONTENT-TYPE'],
  },
  // One per field: the retrieval serves that field with a wrong JSON type (a boolean as a
  // string, an array as its JSON text, a string or null wrapped in an array), and its update takes
  // that form back. The field's update checks are then not applicable (a value of another type
  // cannot be written back), so only its type check flags it.
  // Where the field is the only one a MUST requirement is checked on, that requirement is left
  // without proof: the run ends INCOMPLETE rather than conformant.
  ...FIELDS.map((f): Fault => ({
    name: `business-get-wrong-type:${f}`,
    description: `The retrieval serves ${f} with a wrong JSON type (its update takes that form back).`,
    kills: [`BUS-GET-TYPES:${f}`],
    ...(ONLY_FIELD_OF[f] ? { untested: [ONLY_FIELD_OF[f]] } : {}),
  })),

  // --- Partial update ---------------------------------------------------------------------
  {
    name: 'business-patch-405',
    description: 'PATCH /api/v1/business is not supported: 405 before any authentication.',
    kills: [
      ...ids('BUS-UPDATE-200', ['name', 'email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'useGdprCompliance', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      ...ids('BUS-UPDATE-APPLIES', ['name', 'email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'useGdprCompliance', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      ...ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      'BUS-UPDATE-BOOLEAN:useGdprCompliance:true-to-false',
      'BUS-UPDATE-WRITEBACK', 'BUS-UPDATE-CURRENCY-ONLY', 'BUS-AUTH-MISSING:updateBusiness', 'BUS-AUTH-EXPIRED:updateBusiness', ...ids('BUS-AUTH-INVALID:updateBusiness', NEAR_MISSES),
      'OP-DOCUMENTED:updateBusiness',
    ],
  },
  {
    name: 'business-patch-replaces',
    description: 'An update replaces the whole record with the body: fields not sent are dropped.',
    // A nullable field holding a string is replaced first by its null alone (so its value's
    // update finds nothing left to drop); {} drops everything.
    kills: [...ids('BUS-UPDATE-PARTIAL', FIELDS.filter((f) => !NULLABLE_HOLDING_STRINGS.includes(f))), ...NULLABLE_HOLDING_STRINGS.map((f) => `BUS-UPDATE-PARTIAL:${f}:null` as const), 'BUS-UPDATE-PARTIAL:operations-write-back', 'BUS-UPDATE-EMPTY'],
  },
  {
    // twitterUrl holds a string before the run and goes string to string: the faults that act on
    // a field filled in from null, or on every field not sent, pass over its update.
    name: 'business-twitter-url-copied',
    description: 'An update that sends twitterUrl without facebookUrl also writes its value to facebookUrl.',
    kills: ['BUS-UPDATE-PARTIAL:twitterUrl'],
  },
  {
    name: 'business-field-ignored',
    description: 'An update of address answers 200 but is not applied.',
    kills: ['BUS-UPDATE-APPLIES:address', 'BUS-UPDATE-NULLABLE:address'],
  },
  {
    name: 'business-name-required',
    description: 'An update without name is refused (422): no partial update of any other field.',
    // The operations suite's write-back is a body with only currencyIso, refused too. Each null
    // goes alone, without name, and is refused: the fields null in the seed are not changed (null
    // might not put them back). The body of several fields lacks name (put back before it).
    kills: [
      ...ids('BUS-UPDATE-200', ['email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'useGdprCompliance', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      ...ids('BUS-UPDATE-APPLIES', ['email', 'phoneNumber', 'address', 'currencyIso', 'websiteUrl', 'timeZone', 'businessHours', 'termsAndConditionsUrl', 'useGdprCompliance', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      ...ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
      'BUS-UPDATE-BOOLEAN:useGdprCompliance:true-to-false',
      'BUS-UPDATE-CURRENCY-ONLY', 'BUS-UPDATE-MULTI', 'OP-DOCUMENTED:updateBusiness',
    ],
  },
  {
    name: 'business-fields-crossed',
    description: 'instagramUrl and facebookUrl are written into each other.',
    // The body of every field and the write-back come after the lane has given the two fields
    // values of their own, and put back their values from before the run, which differ.
    kills: [...ids('BUS-UPDATE-APPLIES', ['instagramUrl', 'facebookUrl']), ...ids('BUS-UPDATE-PARTIAL', ['instagramUrl', 'facebookUrl', 'instagramUrl:null', 'facebookUrl:null']), ...ids('BUS-UPDATE-NULLABLE', ['instagramUrl', 'facebookUrl']), 'BUS-UPDATE-MULTI', 'BUS-UPDATE-WRITEBACK'],
  },
  {
    name: 'business-patch-first-field-only',
    description: 'An update applies only the first field of its body and answers 200.',
    kills: ['BUS-UPDATE-MULTI'],
  },
  {
    name: 'business-patch-many-fields-ignored',
    description: 'An update of more than four fields answers 200 and applies none of them.',
    kills: ['BUS-UPDATE-MULTI'],
  },
  {
    name: 'business-unset-fields-500',
    description: 'Fields that were empty (null) when the business was set up fail to save any value but null (500).',
    // Reached once null has been shown to round-trip: the lane then changes the fields null in the seed.
    // Their null round trips are then not applicable (no string of theirs was accepted), not failed.
    kills: [...ids('BUS-UPDATE-200', ['privacyPolicyUrl', 'tikTokUrl', 'youTubeUrl', 'linkedInUrl']), ...ids('BUS-UPDATE-APPLIES', ['privacyPolicyUrl', 'tikTokUrl', 'youTubeUrl', 'linkedInUrl'])],
  },
  {
    name: 'business-true-ignored',
    description: 'A boolean sent as true is ignored (the value is only ever cleared); the record cannot be restored.',
    // The body of every field sends useGdprCompliance back to true.
    kills: ['BUS-UPDATE-BOOLEAN:useGdprCompliance:false-to-true', 'BUS-UPDATE-MULTI'],
  },
  {
    name: 'business-false-ignored',
    description: 'A boolean sent as false is ignored (a truthiness test on the value).',
    kills: ['BUS-UPDATE-APPLIES:useGdprCompliance', 'BUS-UPDATE-BOOLEAN:useGdprCompliance:true-to-false'],
  },
  {
    name: 'business-null-ignored',
    description: 'A field sent as null is ignored: a nullable field cannot be cleared.',
    kills: ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
  },
  {
    name: 'business-null-ignored-when-unset',
    description: 'A null sent to a field the business was set up without (null in the seed) is ignored once the field holds a value.',
    // The fields set in the seed show null round-tripping first, so the lane goes on to change these.
    // The body of every field sends them back to null.
    kills: [...ids('BUS-UPDATE-NULLABLE', ['privacyPolicyUrl', 'tikTokUrl', 'youTubeUrl', 'linkedInUrl']), 'BUS-UPDATE-MULTI'],
  },
  {
    name: 'business-null-rejected',
    description: 'A field sent as null is refused (422), although the contract documents "string or null".',
    kills: ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
  },
  {
    name: 'business-null-as-empty-string',
    description: 'A field sent as null is stored as the empty string: the empty string and null are confused.',
    // Fields null in the seed stay unchanged: null is never shown to round-trip.
    kills: ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
  },
  {
    name: 'business-null-as-text',
    description: 'A field sent as null is stored as the text "null".',
    kills: ids('BUS-UPDATE-NULLABLE', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'instagramUrl', 'twitterUrl', 'facebookUrl']),
  },
  {
    name: 'business-empty-list-ignored',
    description: 'An update of businessHours to the empty list answers 200 and is ignored.',
    kills: ['BUS-UPDATE-BOUNDARY:businessHours:empty'],
  },
  {
    name: 'business-empty-string-ignored',
    description: 'A field sent as the empty string answers 200 and is ignored.',
    kills: ids('BUS-UPDATE-BOUNDARY', ['name:empty', 'email:empty', 'currencyIso:empty', 'timeZone:empty']),
  },
  {
    // The null of each nullable field goes alone: one clearing its neighbour shows where that holds a string.
    name: 'business-null-clears-previous',
    description: 'A null sent to a nullable business field also clears the nullable field before it (address clears phoneNumber, …).',
    kills: ['BUS-UPDATE-PARTIAL:phoneNumber:null', 'BUS-UPDATE-PARTIAL:address:null', 'BUS-UPDATE-PARTIAL:websiteUrl:null', 'BUS-UPDATE-PARTIAL:termsAndConditionsUrl:null', 'BUS-UPDATE-PARTIAL:privacyPolicyUrl:null', 'BUS-UPDATE-PARTIAL:tikTokUrl:null', 'BUS-UPDATE-PARTIAL:linkedInUrl:null'],
  },
  {
    // Each nullable field's value follows its null (sent alone before it), so every such update
    // fills a field in, while the field set just before holds a string.
    name: 'business-filled-field-clears-others',
    description: 'An update that turns a nullable field from null into a string empties every other text field it does not send (taken for a one-field form).',
    kills: [...ids('BUS-UPDATE-PARTIAL', ['phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'privacyPolicyUrl', 'tikTokUrl', 'linkedInUrl']), 'BUS-UPDATE-MULTI'],
  },
  {
    name: 'business-hours-three-at-most',
    description: 'Only the first three WorkHours of businessHours are stored; the update answers 200.',
    kills: ['BUS-UPDATE-BOUNDARY:businessHours:more'],
  },
  {
    // Sorting alone is a form of the list (its order is not shown); dropping an element sent is not.
    name: 'business-hours-one-per-day',
    description: 'businessHours are stored in weekday order, one element per day: a second element of a day is dropped; the update answers 200.',
    kills: ['BUS-UPDATE-BOUNDARY:businessHours:more'],
  },
  {
    name: 'business-hours-reset',
    description: 'An update that does not send businessHours empties them.',
    // The lane changes the fields in the order of the update schema (spec/openapi.yaml): seen by
    // the first (name), which goes before the edges empty businessHours; by the first update after
    // the lane has set businessHours again (the null of the field after it, sent alone); by the
    // update with no field; and by the operations pass's write-back (currencyIso alone) before the lane.
    kills: ['BUS-UPDATE-PARTIAL:name', 'BUS-UPDATE-PARTIAL:termsAndConditionsUrl:null', 'BUS-UPDATE-PARTIAL:operations-write-back', 'BUS-UPDATE-EMPTY'],
  },
  {
    // Found by mutation testing: the first update (the operations pass's currency-only write-back)
    // empties them, every later check starts from the emptied record, and no restore can refill them.
    name: 'business-hours-always-reset',
    description: 'Every update empties businessHours, also one that sends them.',
    kills: ['BUS-UPDATE-PARTIAL:operations-write-back'],
  },

  // --- Authentication ---------------------------------------------------------------------
  {
    name: 'business-get-without-key',
    description: 'GET /api/v1/business without an Authorization header answers 200.',
    kills: ['BUS-AUTH-MISSING:retrieveBusiness'],
  },
  {
    name: 'business-patch-without-key',
    description: 'PATCH /api/v1/business without an Authorization header is applied.',
    kills: ['BUS-AUTH-MISSING:updateBusiness'],
  },
  // The key's verdict depends on something besides the key: each case is crossed with the other
  // inputs its request carries, and every case meets each of them (helpers/registries/business-auth.ts).
  {
    name: 'auth-json-accept-only',
    description: 'GET /api/v1/business is served without a valid key when Accept does not ask for application/json (absent, */*, text/html, application/xml).',
    kills: eachKind('retrieveBusiness'),
  },
  {
    name: 'auth-json-content-type-only',
    description: 'PATCH /api/v1/business without a valid key is applied (200) when Content-Type is not application/json (absent, application/merge-patch+json, text/plain).',
    kills: eachKind('updateBusiness'),
  },
  {
    name: 'auth-cached-on-connection',
    description: 'The key check is cached on the connection: once a connection carried the valid key, later requests on it need none.',
    kills: [...eachKind('retrieveBusiness'), ...eachKind('updateBusiness')],
  },
  {
    name: 'auth-empty-token-accepted',
    description: '"Bearer " with an empty token, or "Bearer" alone, is accepted.',
    kills: bothOps('empty-token', 'scheme-only'),
  },
  {
    name: 'auth-any-token-accepted',
    description: 'Any bearer token is accepted (only the expired key is refused).',
    kills: bothOps(
      'unknown-key', 'key-with-characters-before', 'key-with-extra-characters', 'key-without-first-character', 'key-without-last-character',
      'key-with-middle-character-changed', 'key-with-one-character-changed', 'key-with-case-changed',
    ),
  },
  {
    name: 'auth-key-prefix-match',
    description: 'A token is accepted when it starts with the key: the key with extra characters passes.',
    kills: bothOps('key-with-extra-characters'),
  },
  {
    name: 'auth-key-suffix-match',
    description: 'A token is accepted when it ends with the key: the key after extra characters passes.',
    kills: bothOps('key-with-characters-before'),
  },
  {
    name: 'auth-key-prefix-compare',
    description: 'The token is compared over its own length only: any start of the key passes.',
    kills: bothOps('key-without-last-character'),
  },
  {
    name: 'auth-key-suffix-compare',
    description: 'The token is compared from the end, over its own length only: any end of the key passes.',
    kills: bothOps('key-without-first-character'),
  },
  {
    name: 'auth-key-last-character-ignored',
    description: 'The comparison stops one character short: a key of the right length with another last character passes.',
    kills: bothOps('key-with-one-character-changed'),
  },
  {
    name: 'auth-key-ends-compared',
    description: 'Only the length and the first and last four characters of the key are compared: a key changed in its middle passes.',
    kills: bothOps('key-with-middle-character-changed'),
  },
  {
    name: 'auth-key-case-insensitive',
    description: 'The key is compared ignoring case.',
    kills: bothOps('key-with-case-changed'),
  },
  {
    name: 'auth-any-scheme-accepted',
    description: 'The key is accepted under any scheme, not only Bearer.',
    kills: bothOps('basic-scheme', 'token-scheme', 'xbearer-scheme', 'bearerx-scheme', 'bearer-colon-scheme'),
  },
  {
    name: 'auth-no-scheme-accepted',
    description: 'The key alone, without a scheme, is accepted.',
    kills: bothOps('no-scheme'),
  },
  {
    name: 'auth-scheme-unanchored',
    description: 'The header is matched by a pattern without its start anchor: "XBearer <key>" is accepted.',
    kills: bothOps('xbearer-scheme'),
  },
  {
    name: 'auth-scheme-prefix-match',
    description: 'The scheme is checked with startsWith("Bearer") and the key taken as the last word: "Bearerx <key>" and "Bearer: <key>" are accepted.',
    kills: bothOps('bearerx-scheme', 'bearer-colon-scheme'),
  },
  {
    name: 'auth-separator-optional',
    description: 'The space after Bearer is optional: "Bearer<key>" is accepted.',
    kills: bothOps('no-separator'),
  },
  {
    name: 'auth-trailing-junk-accepted',
    description: 'The header is matched by a pattern without its end anchor: "Bearer <key> junk" is accepted.',
    kills: bothOps('key-then-space-and-junk'),
  },
  {
    name: 'auth-expired-key-accepted',
    description: 'The expired key is accepted.',
    kills: ['BUS-AUTH-EXPIRED:retrieveBusiness', 'BUS-AUTH-EXPIRED:updateBusiness'],
  },
  {
    name: 'auth-403-instead-of-401',
    description: 'A missing, expired or invalid key gives 403 instead of 401.',
    kills: ['BUS-AUTH-MISSING:*', 'BUS-AUTH-INVALID:*', 'BUS-AUTH-EXPIRED:*'],
  },
  {
    name: 'business-rejected-patch-applied',
    description: 'An update refused with 401 is applied all the same.',
    kills: ids('BUS-AUTH-REJECTED-NO-CHANGE', ['missing', ...NEAR_MISSES, 'expired-key']),
  },
  {
    name: 'auth-401-carries-record',
    description: 'Every 401 answer carries the whole business record in its body.',
    kills: ['BUS-AUTH-NO-RECORD:retrieveBusiness', 'BUS-AUTH-NO-RECORD:updateBusiness'],
  },
  {
    name: 'auth-401-echoes-key',
    description: 'The 401 body quotes the Authorization header it refused, key included.',
    // Every case whose request carries a key: all but the missing header, the empty token and the scheme alone.
    kills: ['retrieveBusiness', 'updateBusiness'].flatMap((op) => ids(`BUS-AUTH-NO-ECHO:${op}`, [...NEAR_MISSES.filter((c) => !['scheme-only', 'empty-token'].includes(c)), 'expired-key'])),
  },
];
