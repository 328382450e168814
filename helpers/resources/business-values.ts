import { isDeepStrictEqual } from 'node:util';
import type { BusinessField, Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { businessFieldName } from '../records/record-shapes.ts';
import { markValue } from '../records/run-marker.ts';
import { sameValue } from '../records/equivalence.ts';

/** A documented business field under the name the target uses for it. */
export interface NamedField {
  field: BusinessField;
  /** The name on the wire: the spec's, or the vendor's for the email field. */
  name: string;
}

export function namedBusinessFields(spec: Spec, target: TargetConfig): NamedField[] {
  return spec.businessFields.map((field) => ({ field, name: businessFieldName(field.specName, field.vendorConfigKey, target) }));
}

/** A value to try, and where it came from (for the report when the target refuses them all). */
export interface Candidate {
  value: unknown;
  source: 'vendor' | 'derived' | 'plausible';
}

/** Each social link on the network's own domain: a product that checks them accepts nothing else. */
const SOCIAL: Record<string, string[]> = {
  instagramUrl: ['https://www.instagram.com/conformance', 'https://www.instagram.com/conformance2'],
  tikTokUrl: ['https://www.tiktok.com/@conformance', 'https://www.tiktok.com/@conformance2'],
  youTubeUrl: ['https://www.youtube.com/@conformance', 'https://www.youtube.com/@conformance2'],
  twitterUrl: ['https://twitter.com/conformance', 'https://x.com/conformance'],
  linkedInUrl: ['https://www.linkedin.com/company/conformance', 'https://www.linkedin.com/company/conformance2'],
  facebookUrl: ['https://www.facebook.com/conformance', 'https://www.facebook.com/conformance2'],
};

// Values plausible for the field's meaning under any format a product may require: common ISO
// 4217 codes, common IANA zones, E.164 numbers of several regions (fictional ranges where the
// region has them). A product serving fewer accepts one of them, or the vendor gives one.
const PLAUSIBLE: Record<string, unknown[]> = {
  currencyIso: ['EUR', 'USD', 'GBP', 'CAD', 'AUD', 'CHF', 'JPY', 'SEK', 'NZD', 'INR', 'BRL', 'ZAR'],
  timeZone: ['Europe/London', 'America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Europe/Berlin', 'Europe/Paris', 'Asia/Tokyo', 'Australia/Sydney', 'UTC'],
  phoneNumber: ['+14155550199', '+442079460199', '+61255501999', '+4930901820', '+33142685300', '+81312345678'],
  address: ['2 Example Road, Springfield', '3 Example Road, Springfield'],
  name: ['Conformance Check Business', 'Conformance Check Business 2'],
  ...SOCIAL,
};

/**
 * Text beyond ASCII: letters with accents, a non-Latin script, and a character outside the Basic
 * Multilingual Plane (a surrogate pair in UTF-16). A string reads back as sent whatever its
 * characters, so free text the suite writes carries these first; a target that refuses them (4xx:
 * formats are not shown) is given the same value without them, as before.
 */
export const BEYOND_ASCII = 'Zürich Ελλάδα 東京 𝄞';

/**
 * The characters that markup, quoting and escaping give a meaning of their own (both angle
 * brackets, the ampersand, both quotes, the backslash, the percent sign): in a JSON string they
 * are text like any other, and read back as sent. Free text the suite writes carries them too, so
 * that a product escaping or stripping them on the way in or out is seen; one that refuses them
 * (4xx) is given the text without them.
 */
export const MARKUP_AND_QUOTES = `<&> "'\\ %`;

function plausible({ field, name }: NamedField): unknown[] {
  if (PLAUSIBLE[field.specName]) return PLAUSIBLE[field.specName];
  if (field.vendorConfigKey === 'businessEmailField') return ['conformance@example.com', 'conformance@example.org'];
  if (/url$/i.test(field.specName)) return [`https://www.example.com/conformance/${name}`, `https://www.example.org/conformance/${name}`];
  return [`Conformance ${name}`, `Conformance ${name} 2`];
}

/** Where a run marker fits in a value of the field (see markValue): never in a fixed-form value. */
export function markerKind({ field }: NamedField): 'email' | 'url' | 'text' | 'fixed' {
  if (field.vendorConfigKey === 'businessEmailField') return 'email';
  if (/url$/i.test(field.specName)) return 'url';
  if (['currencyIso', 'timeZone', 'phoneNumber'].includes(field.specName)) return 'fixed';
  return 'text';
}

/** The last digit of a text changed: another phone number or house number of the same form. */
function otherDigit(text: string): string | undefined {
  const at = text.search(/\d(?=\D*$)/);
  if (at < 0) return undefined;
  return text.slice(0, at) + String((Number(text[at]) + 1) % 10) + text.slice(at + 1);
}

/**
 * Values of the same form as the target's own: a URL on the same scheme and host with another
 * path, an email at the same domain, a phone number or address with another last digit. A
 * product that validates a format accepts what it already holds, so these are its best guess.
 */
function derived({ field }: NamedField, current: unknown): unknown[] {
  if (typeof current !== 'string' || current === '') return [];
  if (/url$/i.test(field.specName)) {
    try {
      const url = new URL(current);
      const last = url.pathname.split('/').filter(Boolean).at(-1);
      const paths = last ? [`${url.pathname.replace(/\/$/, '')}2`] : ['/conformance'];
      return paths.map((path) => {
        const other = new URL(current);
        other.pathname = path;
        return other.href;
      });
    } catch {
      return [];
    }
  }
  if (field.vendorConfigKey === 'businessEmailField') {
    const at = current.lastIndexOf('@');
    return at > 0 ? [`conformance${current.slice(at)}`, `conformance2${current.slice(at)}`] : [];
  }
  if (field.specName === 'phoneNumber' || field.specName === 'address') return [otherDigit(current)].filter((v) => v !== undefined);
  return [];
}

/**
 * The values to try for a field, best first, none equal to `current` or `original`: the vendor's
 * (businessValues: the one source that knows what the implementation accepts, so it goes first
 * and spares the target writes it would refuse), then values derived from the target's own
 * (`original`, as read before the run), then values plausible for the field's meaning. With
 * `runId`, the suite's own string values carry the run marker where the field takes it (see
 * markerKind), so that another run can tell they are not a baseline; the vendor's are sent as
 * given, since only the vendor knows their form. Booleans have one other value; arrays whose
 * element structure is not shown are learned from the target: a subset of the elements it
 * returned, all of them when it has since lost some, or all and a copy of the first.
 */
export function candidateValues(nf: NamedField, vendorValues: Record<string, unknown[]> | undefined, current: unknown, original: unknown = current, runId?: string): Candidate[] | { unavailable: string } {
  const { field, name } = nf;
  if (field.types.includes('boolean')) {
    return typeof current === 'boolean' ? [{ value: !current, source: 'derived' }] : { unavailable: `${name} does not read as a boolean` };
  }
  const vendor: Candidate[] = (vendorValues?.[name] ?? []).map((value) => ({ value, source: 'vendor' }));
  let own: Candidate[];
  if (field.types.includes('array')) {
    if (!Array.isArray(original) && !vendor.length) return { unavailable: `${name} does not read as an array, so no element can be learned from it` };
    if (Array.isArray(original) && original.length === 0 && !vendor.length) return { unavailable: `${name} reads as an empty array: its element structure is not shown, so no other value can be derived (give one in the vendor config, businessValues.${name})` };
    // The list one element shorter, else one longer (the edge BUS-UPDATE-BOUNDARY:more sends):
    // a list of one element has no shorter one but the empty edge, which is sent before the step.
    const more = Array.isArray(original) ? oneMore(original, vendorElements(vendorValues?.[name])) : undefined;
    own = Array.isArray(original) && original.length ? [original.slice(0, -1), original, ...(more === undefined ? [] : [[...original, more]])].map((value) => ({ value, source: 'derived' })) : [];
  } else if (field.types.includes('string')) {
    const mark = (value: unknown) => (runId && typeof value === 'string' ? (markValue(value, runId, markerKind(nf)) ?? value) : value);
    const ascii = [
      ...derived(nf, original).map((value): Candidate => ({ value, source: 'derived' })),
      ...plausible(nf).map((value): Candidate => ({ value, source: 'plausible' })),
    ];
    const widened = (...parts: string[]) => ({ ...ascii[0], value: [ascii[0].value as string, ...parts].join(' ') });
    own = [...(markerKind(nf) === 'text' && ascii.length ? [widened(MARKUP_AND_QUOTES, BEYOND_ASCII), widened(BEYOND_ASCII)] : []), ...ascii].map((c) => ({ ...c, value: mark(c.value) }));
  } else {
    return { unavailable: `no valid value can be derived for the documented type ${field.types.join(' or ')} of ${name}` };
  }
  // Neither the value held now nor the one from before the run (an edge may stand between them).
  const seen: unknown[] = [current, original];
  const out: Candidate[] = [];
  for (const c of [...vendor, ...own]) {
    if (seen.some((v) => isDeepStrictEqual(v, c.value))) continue;
    seen.push(c.value);
    out.push(c);
  }
  return out.length ? out : { unavailable: `${name}: no value to try differs from the current one` };
}

/** The elements of the lists the vendor gives for a field (businessValues): elements the target accepts. */
export const vendorElements = (values: unknown[] | undefined): unknown[] => (values ?? []).flatMap((v) => (Array.isArray(v) ? v : []));

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A value's form: its type, and for a string its letters and digits as classes ("09:00" and "17:00" share one, "MONDAY" has another). */
const formOf = (v: unknown) => (typeof v === 'string' ? `s${v.replace(/\p{L}/gu, 'a').replace(/\d/g, '9')}` : jsonType(v));

/**
 * An element the list does not hold, under the equivalence table (a copy, or one the target could
 * read back as one it holds, is no element more: whether a list of WorkHours may hold one twice is
 * not shown, so a list with a repeated element is never sent). Their structure is not shown, so it
 * is made of the target's own values: an element of `known` (a list the vendor gives, which the
 * target accepts) that the list lacks; else an element of the list with one property's value taken
 * from another element (the day of another, its start time…), the first such that is new; else,
 * for a list of one element, that element with two of its properties of one form exchanged (its
 * start and end time). Undefined when none can be made.
 */
export function oneMore(list: unknown[], known: unknown[] = []): unknown {
  const isNew = (e: unknown) => !list.some((x) => sameValue(e, x) || sameValue(x, e));
  const fromKnown = known.find(isNew);
  if (fromKnown !== undefined) return fromKnown;
  const elements = [...list, ...known].filter(isObject);
  for (const base of list.filter(isObject)) {
    for (const [k, v] of Object.entries(base)) {
      for (const other of elements) {
        if (!(k in other) || jsonType(other[k]) !== jsonType(v) || sameValue(other[k], v)) continue;
        const made = { ...base, [k]: other[k] };
        if (isNew(made)) return made;
      }
    }
  }
  for (const base of list.filter(isObject)) {
    const keys = Object.keys(base);
    for (const [i, a] of keys.entries()) {
      for (const b of keys.slice(i + 1)) {
        if (formOf(base[a]) !== formOf(base[b]) || sameValue(base[a], base[b])) continue;
        const made = { ...base, [a]: base[b], [b]: base[a] };
        if (isNew(made)) return made;
      }
    }
  }
  return undefined;
}

/** The JSON type of a value, in the spec's vocabulary. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function hasDocumentedType(field: BusinessField, value: unknown): boolean {
  const type = jsonType(value);
  if (type === 'number' && Number.isInteger(value) && field.types.includes('integer')) return true;
  return field.types.includes(type);
}

/** A value at an edge of a field's documented type (section 2): the empty list, a longer one, the empty string. */
export interface Boundary {
  name: 'empty' | 'more';
  description: string;
  /**
   * The value, from the field's value before the run and the elements known to be accepted (see
   * oneMore); undefined when none can be made from them.
   */
  valueFrom(original: unknown, known?: unknown[]): unknown;
}

/**
 * The edges of a field's documented type: an array may be empty or hold one element more (an
 * element it does not hold, see oneMore); a string that cannot be null may be empty (a nullable
 * one's edge is null, BUS-UPDATE-NULLABLE's). A boolean's two values are BUS-UPDATE-BOOLEAN's.
 */
export function typeBoundaries({ field }: NamedField): Boundary[] {
  if (field.types.includes('array')) {
    return [
      { name: 'empty', description: 'the empty list', valueFrom: () => [] },
      { name: 'more', description: 'its list with one element more', valueFrom: (v, known) => {
        const more = Array.isArray(v) && v.length ? oneMore(v, known) : undefined;
        return more === undefined ? undefined : [...(v as unknown[]), more];
      } },
    ];
  }
  if (field.types.includes('string') && !field.nullable) return [{ name: 'empty', description: 'the empty string', valueFrom: () => '' }];
  return [];
}
