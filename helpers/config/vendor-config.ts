import { vendorConfigSchemaPath } from '../command/paths.ts';
import { readValidatedJson } from './json-file.ts';
import { UsageError } from '../command/errors.ts';

/** What a vendor tells the suite about the parts of its API the contract does not show. */
export interface VendorConfig {
  businessEmailField: string;
  idField: string;
  customerFixture: Record<string, unknown>;
  customerPatch: Record<string, unknown>;
  markerField?: string;
  teamMemberPatch?: Record<string, unknown>;
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
  customerPatch: { firstName: 'Changed' },
};

/** The vendor configuration from --config, validated against spec/vendor-config.schema.json. */
export function loadVendorConfig(file: string | undefined): VendorConfig {
  if (!file) return { ...DEFAULT_VENDOR_CONFIG };
  const raw = readValidatedJson(file, vendorConfigSchemaPath, 'config') as Partial<VendorConfig> & { $schema?: string };
  const { $schema: _, ...config } = raw;
  const merged = { ...DEFAULT_VENDOR_CONFIG, ...config };
  // The marker is how this run's customers are told apart (and swept after a crash): it must land.
  if (merged.markerField !== undefined && typeof merged.customerFixture[merged.markerField] !== 'string') {
    throw new UsageError(`config ${file}: markerField "${merged.markerField}" is not a string field of customerFixture`);
  }
  return merged;
}
