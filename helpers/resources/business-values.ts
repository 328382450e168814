import { isDeepStrictEqual } from 'node:util';
import type { BusinessField, Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { businessFieldName } from './record-shapes.ts';
import { markValue } from '../safety/run-marker.ts';

/** A documented business field under the name the target uses for it. */
export interface NamedField {
  field: BusinessField;
  /** The name on the wire: the spec's, or the vendor's for the email field. */
  name: string;
}

export function namedBusinessFields(spec: Spec, target: TargetConfig): NamedField[] {
  return spec.businessFields.map((field) => ({ field, name: businessFieldName(field.specName, field.vendorConfigKey, target) }));
}

/** A new value for a field, or why none can be derived. */
export type Derived = { value: unknown } | { unavailable: string };

// Candidates any implementation accepts: the contract shows no formats, so only values that
// are valid under every plausible one (ISO 4217 codes, IANA zones, E.164 numbers, reserved
// example domains). Two or more per kind, so one always differs from the current value.
const CANDIDATES: Record<string, unknown[]> = {
  currencyIso: ['EUR', 'GBP', 'USD'],
  timeZone: ['Europe/London', 'Asia/Tokyo', 'America/New_York'],
  phoneNumber: ['+14155550199', '+14155550198'],
  address: ['2 Example Road, Springfield', '3 Example Road, Springfield'],
  name: ['Conformance Check Business', 'Conformance Check Business 2'],
};

function candidates({ field, name }: NamedField): unknown[] {
  if (CANDIDATES[field.specName]) return CANDIDATES[field.specName];
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

/**
 * A valid value for the field that differs from `current`. With `runId`, a string value carries
 * the run marker where the field takes it, so that another run can tell it is not a baseline. Strings and booleans come from the
 * documented type; arrays whose element structure is not shown are learned from the target:
 * a subset of the elements it returned in `original` (a subset keeps any order the target
 * imposes), or all of them when the target has since lost some.
 */
export function newValue(nf: NamedField, current: unknown, original: unknown = current, runId?: string): Derived {
  const { field, name } = nf;
  if (field.types.includes('boolean')) {
    return typeof current === 'boolean' ? { value: !current } : { unavailable: `${name} does not read as a boolean` };
  }
  if (field.types.includes('array')) {
    if (!Array.isArray(original)) return { unavailable: `${name} does not read as an array, so no element can be learned from it` };
    if (original.length === 0) return { unavailable: `${name} reads as an empty array: its element structure is not shown, so no other value can be derived` };
    const value = [original.slice(0, -1), original].find((c) => !isDeepStrictEqual(c, current));
    return value ? { value } : { unavailable: `${name}: no subset of the elements read differs from the current value` };
  }
  if (field.types.includes('string')) {
    const marked = candidates(nf).map((c) => (runId && typeof c === 'string' ? (markValue(c, runId, markerKind(nf)) ?? c) : c));
    const value = marked.find((c) => !isDeepStrictEqual(c, current));
    return { value };
  }
  return { unavailable: `no valid value can be derived for the documented type ${field.types.join(' or ')} of ${name}` };
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

/** Names (among `names`) whose values differ between two reads, presence included. */
export function differingFields(a: Record<string, unknown>, b: Record<string, unknown>, names: string[]): string[] {
  return names.filter((n) => n in a !== n in b || !isDeepStrictEqual(a[n], b[n]));
}
