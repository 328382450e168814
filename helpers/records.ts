import type { Spec, Operation } from './spec.ts';
import type { TargetConfig } from './target.ts';

type Row = Record<string, unknown>;

export const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The business field names as the target uses them: the email field's name comes from the vendor. */
export function businessFieldName(specName: string, vendorConfigKey: string | undefined, target: TargetConfig): string {
  if (vendorConfigKey === 'businessEmailField') return target.vendor.businessEmailField;
  return specName;
}

/**
 * A PATCH body that writes back what was read: for the business, every documented update field
 * the retrieval exposes with a value other than null; for other records (fields not shown), one string field other than the id.
 */
export function writeBackBody(read: unknown, spec: Spec, target: TargetConfig, op: Operation): Row {
  if (!isRecord(read)) throw new Error(`${op.method} ${op.path}: the record read back is not a JSON object`);
  if (op.resource === 'business') {
    const body: Row = {};
    for (const f of spec.businessFields) {
      const name = businessFieldName(f.specName, f.vendorConfigKey, target);
      // Nulls stay out: a target that mishandles null (stores "" instead) could not be put back.
      if (name in read && read[name] !== null) body[name] = read[name];
    }
    return body;
  }
  const field = Object.keys(read).find((k) => k !== target.vendor.idField && typeof read[k] === 'string');
  if (!field) throw new Error(`${op.method} ${op.path}: the record has no string field to write back`);
  return { [field]: read[field] };
}
