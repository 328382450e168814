import type { TargetConfig } from '../config/target.ts';

/**
 * The fixture field that carries the run marker: the one the vendor marks (markerField), else the
 * longest free-text string of the fixture (fields are not shown, so no name says which holds a
 * name): one holding a letter and no '@' (an email is varied per create) nor '://', and not one
 * customerPatch names (an update would take the marker away). The first on a tie.
 */
export function markerField(target: TargetConfig): string | undefined {
  const { customerFixture: fixture, customerPatch: patch, markerField: marked } = target.vendor;
  if (marked) return marked;
  const text = (v: unknown): v is string => typeof v === 'string' && /\p{L}/u.test(v) && !v.includes('@') && !v.includes('://');
  const fields = Object.keys(fixture).filter((f) => text(fixture[f]));
  const free = fields.filter((f) => !(f in (patch ?? {})));
  return (free.length ? free : fields).reduce<string | undefined>((best, f) => (best === undefined || String(fixture[f]).length > String(fixture[best]).length ? f : best), undefined);
}

/** The fields the vendor's customer fixture names, the one carrying the run marker first (see markerField). */
export function fixtureFields(target: TargetConfig): string[] {
  const fields = Object.keys(target.vendor.customerFixture);
  const marked = markerField(target);
  return marked ? [marked, ...fields.filter((f) => f !== marked)] : fields;
}
