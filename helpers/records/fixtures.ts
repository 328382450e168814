import { DEFAULT_VENDOR_CONFIG } from '../config/vendor-config.ts';
import type { TargetConfig } from '../config/target.ts';
import { markedValue } from './run-marker.ts';
import { markerField } from './marker-field.ts';

export { markerField };


/** How many customer bodies this process has made: each one's email-like fields are its own. */
let made = 0;

/**
 * A customer body to create: the vendor's fixture with the run's marker appended to a name
 * field, so that what this run creates can be told apart from everything else on the target.
 * Every string holding an '@' (an email, whatever its field is called) gets `+<runId>-<n>`
 * before its '@', so that no two creates send the same email: the contract does not say
 * whether a target keeps customer emails unique, and one that does must not answer 409.
 */
export function customerFixture(target: TargetConfig, label = '', tag?: string): Record<string, unknown> {
  const body = structuredClone(target.vendor.customerFixture);
  const field = markerField(target);
  if (field) body[field] = markedValue(String(body[field] ?? ''), target.runId, label.replace(/\s+/g, ' ').trim());
  made += 1;
  // The main process makes bodies too (the run's lease): a tag of its own keeps them apart from a worker's.
  tag ??= String(made);
  for (const [key, value] of Object.entries(body)) {
    if (typeof value !== 'string' || key === field) continue;
    const at = value.lastIndexOf('@');
    if (at > 0) body[key] = `${value.slice(0, at)}+${target.runId}-${tag}${value.slice(at)}`;
  }
  return body;
}

/** The marker field's value in the vendor's fixture: what a marked value starts with (see runIdOf). */
export function markerBase(target: TargetConfig): string {
  const field = markerField(target);
  return field ? String(target.vendor.customerFixture[field] ?? '') : '';
}

/**
 * The change CUS-UPDATE and the customer writes send: the vendor's customerPatch, else one of the
 * fixture's own free-text fields (customer fields are not shown: never a name the target did not
 * show) changed: the first that is not the marker field, nor an email or a URL (a target may hold
 * those unique or of a form).
 */
export function customerPatchOf(target: TargetConfig): Record<string, unknown> {
  const fixture = target.vendor.customerFixture;
  // The built-in patch goes with the built-in fixture only: a vendor's fixture is patched by its own fields.
  const builtIn = target.vendor.customerPatch === DEFAULT_VENDOR_CONFIG.customerPatch && fixture !== DEFAULT_VENDOR_CONFIG.customerFixture;
  if (target.vendor.customerPatch && !builtIn) return target.vendor.customerPatch;
  const marker = markerField(target);
  // Free text the fixture holds (a letter, no '@' nor '://'), not the marker's: fields are not shown, so no name decides.
  const field = Object.keys(fixture).find((f) => f !== marker && typeof fixture[f] === 'string' && /\p{L}/u.test(fixture[f]) && !fixture[f].includes('@') && !fixture[f].includes('://'));
  return field ? { [field]: 'Changed' } : {};
}
