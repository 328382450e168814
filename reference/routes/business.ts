import { requireKey } from './auth.ts';
import { seedBusiness } from '../seed.ts';
import { error, json, type RefContext, type RefRequest, type Route } from '../types.ts';
import { isRecord } from '../../helpers/contract/record.ts';
import { htmlEscape } from '../../helpers/core/html-escape.ts';

export const NULLABLE_STRINGS = [
  'phoneNumber', 'address', 'websiteUrl', 'termsAndConditionsUrl', 'privacyPolicyUrl',
  'instagramUrl', 'tikTokUrl', 'youTubeUrl', 'twitterUrl', 'linkedInUrl', 'facebookUrl',
];
const URL_FIELDS = NULLABLE_STRINGS.filter((f) => f.endsWith('Url'));
/** Fault business-unset-fields-500: the fields the business was set up without. */
const UNSET_IN_SEED = Object.entries(seedBusiness('email')).filter(([, v]) => v === null).map(([f]) => f);

/** The documented update fields and a validator for each (section 2). */
function fieldRules(ctx: RefContext): Record<string, (v: unknown) => boolean> {
  const isString = (v: unknown) => typeof v === 'string';
  const rules: Record<string, (v: unknown) => boolean> = {
    name: isString,
    [ctx.state.emailField]: isString,
    currencyIso: (v) => isString(v) && (!served(ctx, 'currencies') || served(ctx, 'currencies')!.includes(v as string)),
    timeZone: (v) => isString(v) && (!served(ctx, 'zones') || served(ctx, 'zones')!.includes(v as string)),
    businessHours: (v) => Array.isArray(v) && v.every(isRecord) && (!ctx.varies('business-hours-every-day') || sameDays(v, ctx.state.business.businessHours)),
    useGdprCompliance: (v) => typeof v === 'boolean',
  };
  for (const f of NULLABLE_STRINGS) rules[f] = (v) => v === null || (isString(v) && ownRule(ctx, f, v as string));
  if (ctx.varies('strict-validation') || ctx.varies('validation-400')) return strictly(rules, ctx.state.emailField);
  // Variation business-update-unvalidated: no field checks a value's type (a string is checked as before).
  if (ctx.varies('business-update-unvalidated')) return Object.fromEntries(Object.entries(rules).map(([f, valid]) => [f, (v: unknown) => typeof v !== 'string' || valid(v)]));
  return rules;
}

/** Variations strict-validation and validation-400: a string must have its field's format too. */
/** The formats a strictly validating product holds business fields to (strict-validation variations). */
export function businessFormats(emailField: string): Record<string, (v: string) => boolean> {
  return {
    [emailField]: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
    currencyIso: (v) => Intl.supportedValuesOf('currency').includes(v),
    timeZone: (v) => Intl.supportedValuesOf('timeZone').includes(v),
    ...Object.fromEntries(URL_FIELDS.map((f) => [f, (v: string) => /^https?:\/\/[^\s/]+/.test(v)])),
  };
}

function strictly(rules: Record<string, (v: unknown) => boolean>, emailField: string): Record<string, (v: unknown) => boolean> {
  const formats = businessFormats(emailField);
  return Object.fromEntries(Object.entries(rules).map(([f, valid]) => [f, (v: unknown) => valid(v) && (typeof v !== 'string' || !formats[f] || formats[f](v))]));
}

/** Variations in what a product accepts, where the contract shows no formats (section 2). */
const SERVED = {
  // A North American product; a single-currency one; one whose list the suite cannot guess.
  currencies: [['currency-whitelist', ['USD', 'CAD', 'MXN']], ['currency-single', ['USD']], ['currency-own-list', ['USD', 'ISK']]],
  zones: [['time-zone-whitelist', ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'America/Toronto']]],
} as const;
function served(ctx: RefContext, what: keyof typeof SERVED): readonly string[] | undefined {
  return SERVED[what].find(([variation]) => ctx.varies(variation))?.[1];
}

/** Variation social-links-own-domain: each social link must be an https URL on that network's own domain. */
export const SOCIAL_DOMAINS: Record<string, RegExp> = {
  instagramUrl: /^(www\.)?instagram\.com$/, tikTokUrl: /^(www\.)?tiktok\.com$/, youTubeUrl: /^(www\.)?youtube\.com$/,
  twitterUrl: /^(www\.)?(twitter|x)\.com$/, linkedInUrl: /^(www\.)?linkedin\.com$/, facebookUrl: /^(www\.)?facebook\.com$/,
};

function ownRule(ctx: RefContext, field: string, value: string): boolean {
  if (ctx.varies('social-links-own-domain') && SOCIAL_DOMAINS[field]) {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && SOCIAL_DOMAINS[field].test(url.hostname) && url.pathname.length > 1;
    } catch {
      return false;
    }
  }
  // Variation phone-one-region: a UK product takes UK numbers only (+44 and ten digits).
  if (ctx.varies('phone-one-region') && field === 'phoneNumber') return /^\+44\d{10}$/.test(value);
  return true;
}

/** What a variation's business record holds instead of the seed's, so that it keeps its own rules. */
export function seedChanges(varies: RefContext['varies']): Record<string, unknown> {
  return {
    ...(varies('social-links-own-domain') && {
      instagramUrl: 'https://www.instagram.com/referencebarbers', twitterUrl: 'https://x.com/referencebarbers', facebookUrl: 'https://www.facebook.com/referencebarbers',
    }),
    ...(varies('phone-one-region') && { phoneNumber: '+442079460000' }),
    // Variation business-nullable-unset: a business just set up, with none of its nullable fields filled in.
    ...(varies('business-nullable-unset') && Object.fromEntries(NULLABLE_STRINGS.map((f) => [f, null]))),
    // Variation business-hours-one-day: open one day a week.
    ...(varies('business-hours-one-day') && { businessHours: (seedBusiness('email').businessHours as unknown[]).slice(0, 1) }),
    // Variation work-hours-seconds: the business holds its hours with seconds.
    ...(varies('work-hours-seconds') && { businessHours: hoursWithSeconds(seedBusiness('email').businessHours as unknown[]) }),
    // A product that canonicalises its URLs holds them canonical.
    ...(varies('urls-canonical') && { websiteUrl: 'https://www.example.com/' }),
  };
}

const WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
/** A WorkHours element's place in the week: a named day (the seed's) or an ISO weekday number (work-hours-minutes). */
const weekday = (e: unknown) => (isRecord(e) ? (typeof e.day === 'number' ? e.day - 1 : WEEK.indexOf(String(e.dayOfWeek))) : -1);
/** businessHours in weekday order (variation business-hours-weekday-order; fault business-hours-one-per-day). */
const byWeekday = (hours: unknown[]) => [...hours].sort((a, b) => weekday(a) - weekday(b));

/** Variations business-envelope-*: the retrieval and the update answer the record inside an envelope. */
function enveloped(ctx: RefContext, record: Record<string, unknown>): unknown {
  const name = (['data', 'business', 'result'] as const).find((n) => ctx.varies(`business-envelope-${n}`));
  return name ? { [name]: record } : record;
}

/** Variation business-hours-every-day: an update of businessHours must name the same days as before. */
function sameDays(next: unknown[], current: unknown): boolean {
  const days = (v: unknown) => (Array.isArray(v) ? v.map((e) => (isRecord(e) ? String(e.dayOfWeek) : '')).sort().join() : '');
  return days(next) === days(current);
}

/**
 * Fault business-get-wrong-type:<field>: the retrieval serves the field with a wrong JSON type
 * (a boolean as "true"/"false", an array as its JSON text, a string or null wrapped in an array),
 * and its update takes that form back, so that the fault breaks the representation only.
 */
function wrongType(value: unknown): unknown {
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  return [value];
}
function rightType(value: unknown, stored: unknown): unknown {
  if (typeof stored === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (Array.isArray(stored) && typeof value === 'string') return JSON.parse(value);
  if (!Array.isArray(stored) && Array.isArray(value) && value.length === 1) return value[0];
  return value;
}
/** The fields the business-get-wrong-type faults switched on serve with another type (the matrix may switch on several). */
const wrongTypeFields = (ctx: RefContext) => Object.keys(ctx.state.business).filter((f) => ctx.fault(`business-get-wrong-type:${f}`));

/** What a stale cache serves (fault business-get-stale): the record as first read, per reference. */
const staleCopies = new WeakMap<object, Record<string, unknown>>();

/** Fault business-hours-read-stale: the hours the retrieval serves, refreshed only by an update of another field too. */
const hoursCache = new WeakMap<object, unknown>();
function cachedHours(ctx: RefContext): unknown {
  if (!hoursCache.has(ctx.state)) hoursCache.set(ctx.state, structuredClone(ctx.state.business.businessHours));
  return hoursCache.get(ctx.state);
}

/** Fault business-update-base-from-last-read: the record as the last retrieval read it, per reference. */
const lastRead = new WeakMap<object, Record<string, unknown>>();

/** Fault business-long-text-truncated: the width of the column a string is stored in. */
const TEXT_COLUMN_WIDTH = 100;

/** Variation work-hours-seconds: a time of day as HH:MM:SS ("09:00" is "09:00:00"). */
const withSeconds = (v: unknown) => (typeof v === 'string' && /^\d\d:\d\d$/.test(v) ? `${v}:00` : v);
export const hoursWithSeconds = (hours: unknown[]) => hours.map((h) => (isRecord(h) ? Object.fromEntries(Object.entries(h).map(([k, v]) => [k, /time$/i.test(k) ? withSeconds(v) : v])) : h));

/** Variations phone-numbers-e164, urls-canonical, business-hours-as-set: how a product normalises a value it stores. */
export function normalised(ctx: RefContext, field: string, value: unknown): unknown {
  if (ctx.varies('phone-numbers-e164') && field === 'phoneNumber' && typeof value === 'string') return value.replace(/[\s().-]/g, '');
  if (ctx.varies('urls-canonical') && URL_FIELDS.includes(field) && typeof value === 'string' && URL.canParse(value)) return new URL(value).href;
  if (ctx.varies('business-hours-as-set') && field === 'businessHours' && Array.isArray(value)) return hoursAsSet(value);
  if (ctx.varies('work-hours-seconds') && field === 'businessHours' && Array.isArray(value)) return hoursWithSeconds(value);
  return value;
}

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
function hoursAsSet(hours: unknown[]): unknown[] {
  const unique = [...new Map(hours.map((h) => [JSON.stringify(h), h])).values()];
  const rank = (h: unknown) => (isRecord(h) ? `${DAYS.indexOf(String(h.dayOfWeek)) + 10}${String(h.startTime)}` : '');
  return unique.toSorted((a, b) => rank(a).localeCompare(rank(b)));
}

function retrieve(req: RefRequest, ctx: RefContext) {
  const keyless = ctx.fault('business-get-without-key') && req.headers.authorization === undefined;
  const denied = keyless ? undefined : requireKey(req, ctx);
  if (denied) return denied;
  // Fault business-escaped-on-read: the record is escaped for rendering, and the escaped record saved.
  if (ctx.fault('business-escaped-on-read')) {
    const escaped = Object.fromEntries(Object.entries(ctx.state.business).map(([f, v]) => [f, typeof v === 'string' ? htmlEscape(v) : v]));
    if (Object.entries(escaped).some(([f, v]) => v !== ctx.state.business[f])) ctx.state.business = escaped;
  }
  let business = ctx.state.business;
  if (ctx.fault('business-get-stale')) {
    if (!staleCopies.has(ctx.state)) staleCopies.set(ctx.state, structuredClone(business));
    business = staleCopies.get(ctx.state)!;
  }
  if (ctx.fault('business-hours-read-stale')) business = { ...business, businessHours: cachedHours(ctx) };
  if (ctx.fault('business-update-base-from-last-read')) lastRead.set(ctx.state, structuredClone(ctx.state.business));
  // Fault business-get-hides-fields: the retrieval shows none of the documented fields.
  if (ctx.fault('business-get-hides-fields')) return json(200, { id: 'business', kind: 'business' });
  for (const wrong of wrongTypeFields(ctx)) business = { ...business, [wrong]: wrongType(business[wrong]) };
  // Variation omit-null-fields: the retrieval leaves out the fields that are null.
  if (ctx.varies('omit-null-fields')) business = Object.fromEntries(Object.entries(business).filter(([, v]) => v !== null));
  if (ctx.fault('business-get-text-plain')) return { status: 200, raw: JSON.stringify(business), headers: { 'content-type': 'text/plain; charset=utf-8' } };
  return json(200, enveloped(ctx, business));
}

/**
 * Fault business-fields-crossed: these two fields are stored under each other's name. Two fields
 * with different values before the run: a body that puts back the values from before the run
 * (the multi-field update, the write-back) can only show a swap of values that differ.
 */
const CROSSED: Record<string, string> = { instagramUrl: 'facebookUrl', facebookUrl: 'instagramUrl' };

/** How a faulty implementation mangles one incoming value; undefined drops it. */
function mangle(field: string, value: unknown, ctx: RefContext): { field: string; value: unknown } | undefined {
  if (ctx.fault('business-field-ignored') && field === 'address') return undefined;
  // Fault business-hours-one-element-lost: a one-element array flattened to its element, which the mapper then drops.
  if (ctx.fault('business-hours-one-element-lost') && Array.isArray(value) && value.length === 1) return { field, value: [] };
  // Fault business-long-text-truncated: a lenient database cuts what does not fit its column.
  if (ctx.fault('business-long-text-truncated') && typeof value === 'string' && value.length > TEXT_COLUMN_WIDTH) return { field, value: value.slice(0, TEXT_COLUMN_WIDTH) };
  // Falsy tests on the value: an empty list or string is taken for "not sent".
  if (ctx.fault('business-empty-list-ignored') && Array.isArray(value) && value.length === 0) return undefined;
  if (ctx.fault('business-empty-string-ignored') && value === '') return undefined;
  // A fixed-size column: only the first three WorkHours are stored.
  if (ctx.fault('business-hours-three-at-most') && Array.isArray(value)) return { field, value: value.slice(0, 3) };
  // One row per weekday: the list sorted, a second element of a day dropped.
  if (ctx.fault('business-hours-one-per-day') && Array.isArray(value)) return { field, value: byWeekday(value).filter((e, i, all) => i === 0 || weekday(all[i - 1]) !== weekday(e)) };
  if (ctx.fault('business-false-ignored') && value === false) return undefined;
  if (ctx.fault('business-null-ignored') && value === null) return undefined;
  if (ctx.fault('business-null-ignored-when-unset') && value === null && UNSET_IN_SEED.includes(field)) return undefined;
  if (ctx.fault('business-null-as-empty-string') && value === null) return { field, value: '' };
  if (ctx.fault('business-null-as-text') && value === null) return { field, value: 'null' };
  // Variation business-hours-weekday-order: the hours are kept in weekday order, whatever order they come in.
  if (ctx.varies('business-hours-weekday-order') && field === 'businessHours' && Array.isArray(value)) return { field, value: byWeekday(value) };
  if (wrongTypeFields(ctx).includes(field)) return { field, value: rightType(value, ctx.state.business[field]) };
  if (ctx.fault('business-fields-crossed') && CROSSED[field]) return { field: CROSSED[field], value };
  // A column in a single-byte charset: what it cannot hold is dropped.
  if (ctx.fault('business-drops-non-ascii') && typeof value === 'string') return { field, value: value.replace(/[^\x00-\x7F]/g, '') };
  // Variation business-text-trimmed: texts kept without surrounding blanks.
  if (ctx.varies('business-text-trimmed') && typeof value === 'string') return { field, value: normalised(ctx, field, value.trim()) };
  return { field, value: normalised(ctx, field, value) };
}

function update(req: RefRequest, ctx: RefContext) {
  if (ctx.fault('business-patch-405')) return error(405, 'method_not_allowed', 'Method not allowed on this path');
  const keyless = ctx.fault('business-patch-without-key') && req.headers.authorization === undefined;
  const denied = keyless ? undefined : requireKey(req, ctx);
  // Fault business-refused-many-fields-applied: a refused update of two fields or more is applied all the same.
  const appliedAnyway = ctx.fault('business-refused-many-fields-applied') && isRecord(req.body) && Object.keys(req.body).length >= 2;
  // Fault business-refusal-shows-record: a refused update of two fields or more answers 401 with the record.
  if (denied && ctx.fault('business-refusal-shows-record') && isRecord(req.body) && Object.keys(req.body).length >= 2) return json(401, { error: 'unauthorized', business: ctx.state.business });
  // Fault business-refused-null-applied: a sanitize step clears the fields sent as null before the key is checked.
  if (denied && ctx.fault('business-refused-null-applied') && isRecord(req.body)) {
    const nulls = Object.entries(req.body).filter(([f, v]) => v === null && NULLABLE_STRINGS.includes(f));
    if (nulls.length) ctx.state.business = { ...ctx.state.business, ...Object.fromEntries(nulls) };
  }
  if (denied && !ctx.fault('business-rejected-patch-applied') && !appliedAnyway) return denied;
  if (ctx.varies('business-media-type-exact') && req.headers['content-type'] !== 'application/json') return error(415, 'unsupported_media_type', 'Content-Type must be application/json');
  if (!isRecord(req.body)) return ctx.varies('business-update-unvalidated') ? json(200, enveloped(ctx, ctx.state.business)) : error(400, 'invalid_body', 'The body must be a JSON object');
  // Fault business-patch-many-fields-ignored: a body of more than four fields is answered, not applied.
  if (ctx.fault('business-patch-many-fields-ignored') && Object.keys(req.body).length > 4) return json(200, enveloped(ctx, ctx.state.business));
  if (ctx.fault('business-name-required') && !('name' in req.body)) return error(422, 'invalid_value', 'name is required');
  // Fault business-patch-charset-ignored: the body is parsed only for a Content-Type of exactly application/json.
  if (ctx.fault('business-patch-charset-ignored') && (req.headers['content-type'] ?? '').includes(';')) return json(200, enveloped(ctx, ctx.state.business));
  // Fault business-empty-body-resets: an empty form is taken for "clear everything".
  if (ctx.fault('business-empty-body-resets') && Object.keys(req.body).length === 0) {
    ctx.state.business = { ...ctx.state.business, ...Object.fromEntries(NULLABLE_STRINGS.map((f) => [f, null])), businessHours: [] };
    return json(200, enveloped(ctx, ctx.state.business));
  }
  if (ctx.varies('business-empty-update-refused') && Object.keys(req.body).length === 0) return error(422, 'invalid_body', 'Nothing to update');
  const rules = fieldRules(ctx);
  const changes: Record<string, unknown> = {};
  // Fault business-patch-first-field-only: only the first field of the body is looked at.
  // Fault business-patch-two-fields-drops-second: a body of exactly two fields applies the first only.
  const firstOnly = ctx.fault('business-patch-first-field-only') || (ctx.fault('business-patch-two-fields-drops-second') && Object.keys(req.body).length === 2);
  let entries = Object.entries(req.body).slice(0, firstOnly ? 1 : undefined);
  // Fault business-wide-patch-misaligned: names sorted, values not (a zip of two orders).
  if (ctx.fault('business-wide-patch-misaligned') && entries.length > 3) {
    const names = entries.map(([f]) => f).sort();
    entries = entries.map(([, v], i) => [names[i], v]);
  }
  for (const [field, value] of entries) {
    const valid = rules[field];
    if (!valid) {
      if (ctx.varies('strict-validation') || ctx.varies('validation-400')) return error(422, 'unknown_field', `Unknown field ${field}`);
      continue;
    }
    if (ctx.varies('business-text-ascii-only') && typeof value === 'string' && /[^\x00-\x7F]/.test(value)) return error(422, 'invalid_value', `${field} must be ASCII`);
    if (ctx.fault('business-null-rejected') && value === null) return error(422, 'invalid_value', `${field} must not be null`);
    if (ctx.fault('business-unset-fields-500') && value !== null && UNSET_IN_SEED.includes(field)) return error(500, 'internal', `${field} could not be saved`);
    if (ctx.fault('business-true-ignored') && value === true) continue;
    const mangled = mangle(field, value, ctx);
    if (!mangled) continue;
    if (!valid(mangled.value)) return error(422, 'invalid_value', `Invalid value for ${field}`);
    changes[mangled.field] = mangled.value;
  }
  const base = ctx.fault('business-patch-replaces') ? {} : ctx.fault('business-update-base-from-last-read') ? (lastRead.get(ctx.state) ?? ctx.state.business) : ctx.state.business;
  // Fault business-twitter-url-copied: a mapper's copy-paste default (facebookUrl = twitterUrl when facebookUrl is not sent).
  if (ctx.fault('business-twitter-url-copied') && typeof changes.twitterUrl === 'string' && !('facebookUrl' in changes)) changes.facebookUrl = changes.twitterUrl;
  // Fault business-null-clears-next: a null also lands in the next nullable field.
  if (ctx.fault('business-null-clears-next')) {
    for (const [f, v] of Object.entries({ ...changes })) if (v === null && NULLABLE_STRINGS.includes(f)) changes[NULLABLE_STRINGS[(NULLABLE_STRINGS.indexOf(f) + 1) % NULLABLE_STRINGS.length]] ??= null;
  }
  // Fault business-null-clears-previous: the same off-by-one the other way.
  if (ctx.fault('business-null-clears-previous')) {
    for (const [f, v] of Object.entries({ ...changes })) if (v === null && NULLABLE_STRINGS.includes(f)) changes[NULLABLE_STRINGS[(NULLABLE_STRINGS.indexOf(f) + NULLABLE_STRINGS.length - 1) % NULLABLE_STRINGS.length]] ??= null;
  }
  // Fault business-filled-field-clears-others: a field filled in (null to a string) is taken for a one-field form, which posts the other text fields empty (null where a field may be null).
  if (ctx.fault('business-filled-field-clears-others') && Object.entries(changes).some(([f, v]) => NULLABLE_STRINGS.includes(f) && typeof v === 'string' && ctx.state.business[f] === null)) {
    for (const [f, v] of Object.entries(ctx.state.business)) if (!(f in changes) && typeof v === 'string') changes[f] = NULLABLE_STRINGS.includes(f) ? null : '';
  }
  if (ctx.fault('business-hours-read-stale')) {
    cachedHours(ctx);
    if (Object.keys(changes).some((f) => f !== 'businessHours')) hoursCache.set(ctx.state, structuredClone(changes.businessHours ?? ctx.state.business.businessHours));
  }
  ctx.state.business = { ...base, ...structuredClone(changes) };
  if (ctx.fault('business-hours-reset') && !('businessHours' in changes)) ctx.state.business.businessHours = [];
  if (ctx.fault('business-hours-always-reset')) ctx.state.business.businessHours = [];
  if (denied) return denied;
  return json(200, enveloped(ctx, ctx.state.business));
}

export const businessRoutes: Route[] = [
  { operationId: 'retrieveBusiness', method: 'GET', path: '/api/v1/business', handler: retrieve },
  { operationId: 'updateBusiness', method: 'PATCH', path: '/api/v1/business', handler: update },
];
