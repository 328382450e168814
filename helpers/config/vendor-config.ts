import { readFileSync } from 'node:fs';
import { vendorConfigSchemaPath } from '../core/paths.ts';
import { readValidatedJson } from './json-file.ts';
import { UsageError } from '../core/errors.ts';

/** What a vendor tells the suite about the parts of its API the contract does not show. */
export interface VendorConfig {
  businessEmailField: string;
  idField: string;
  customerFixture: Record<string, unknown>;
  /** Default: one of the fixture's own string fields changed (customerPatchOf, records/fixtures.ts). */
  customerPatch?: Record<string, unknown>;
  markerField?: string;
  teamMemberPatch?: Record<string, unknown>;
  /** Values the implementation accepts, per business field (the email field under its own name). */
  businessValues?: Record<string, unknown[]>;
  /** Fields the suite must not change when it changes each field a record shows (risky on a shared staging). */
  fieldsNotToChange?: { customers?: string[]; teamMembers?: string[] };
  /** The property of the retrieval's answer that holds the business record. */
  businessEnvelope?: string;
  /** Page-number paging of the lists, for a target whose answers name no next page (see list-reader.ts). */
  listPaging?: { pageParam: string; firstPage?: number; sizeParam?: string; size?: number };
  product?: { vendor?: string; product?: string; version?: string; contact?: string };
}

/** Values a strict implementation accepts: lower-case email on a reserved domain, E.164 phone. */
export const DEFAULT_VENDOR_CONFIG: VendorConfig = {
  businessEmailField: 'email',
  idField: 'id',
  customerFixture: {
    firstName: 'Conformance',
    lastName: 'Customer',
    email: 'conformance.customer@example.com',
    phoneNumber: '+14155550123',
  },
  // The built-in fixture's own change; a vendor's fixture without one gets one of its own fields (customerPatchOf).
  customerPatch: { firstName: 'Changed' },
};

/** The vendor configuration from --config, validated against spec/vendor-config.schema.json. */
export function loadVendorConfig(file: string | undefined): VendorConfig {
  if (!file) return { ...DEFAULT_VENDOR_CONFIG };
  const raw = readValidatedJson(file, vendorConfigSchemaPath, 'config') as Partial<VendorConfig> & { $schema?: string };
  const { $schema: _, ...config } = raw;
  // A fixture of the vendor's own is patched by its own fields, never the built-in fixture's names.
  const merged = { ...DEFAULT_VENDOR_CONFIG, ...(config.customerFixture && !config.customerPatch ? { customerPatch: undefined } : {}), ...config };
  // The marker is how this run's customers are told apart (and swept after a crash): it must land.
  if (merged.markerField !== undefined && typeof merged.customerFixture[merged.markerField] !== 'string') {
    throw new UsageError(`config ${file}: markerField "${merged.markerField}" is not a string field of customerFixture`);
  }
  // The schema lists the documented fields; the email field's name is the vendor's own.
  const documented = Object.keys(JSON.parse(readFileSync(vendorConfigSchemaPath, 'utf8')).properties.businessValues.properties);
  const unknown = Object.keys(merged.businessValues ?? {}).filter((f) => !documented.includes(f) && f !== merged.businessEmailField);
  if (unknown.length) {
    throw new UsageError(`config ${file}: businessValues: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a documented business field that takes values (the email field is named by businessEmailField, "${merged.businessEmailField}")`);
  }
  return merged;
}
