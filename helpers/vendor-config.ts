import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { vendorConfigSchemaPath } from './paths.ts';
import { UsageError } from './errors.ts';

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

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function validateVendorConfig(raw: unknown, source: string): VendorConfig {
  const schema = JSON.parse(readFileSync(vendorConfigSchemaPath, 'utf8'));
  const ajv = addFormats(new Ajv({ allErrors: true }));
  const validate = ajv.compile(schema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const where = e.instancePath || '(top level)';
      if (e.keyword === 'additionalProperties') return `${where}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      return `${where} ${e.message}`;
    });
    throw new UsageError(`config ${source}: ${problems.join('; ')}`);
  }
  return { ...DEFAULT_VENDOR_CONFIG, ...(raw as Partial<VendorConfig>) };
}

export function loadVendorConfig(file: string | undefined): VendorConfig {
  if (!file) return { ...DEFAULT_VENDOR_CONFIG };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`config ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`config ${file}: not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
  return validateVendorConfig(raw, file);
}
