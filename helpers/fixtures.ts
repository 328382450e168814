import type { TargetConfig } from './target.ts';

const NAME_FIELDS = ['lastName', 'name', 'firstName', 'fullName'];

/** The fixture field that carries the run marker: configured, or the first name-like string field. */
export function markerField(target: TargetConfig): string | undefined {
  const fixture = target.vendor.customerFixture;
  if (target.vendor.markerField) return target.vendor.markerField;
  return NAME_FIELDS.find((f) => typeof fixture[f] === 'string');
}

/**
 * A customer body to create: the vendor's fixture with the run's marker appended to a name
 * field, so that what this run creates can be told apart from everything else on the target.
 */
export function customerFixture(target: TargetConfig, label = ''): Record<string, unknown> {
  const body = structuredClone(target.vendor.customerFixture);
  const field = markerField(target);
  if (field) body[field] = `${String(body[field] ?? '')} ${target.runId}${label ? ` ${label}` : ''}`.trim();
  return body;
}
