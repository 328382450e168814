/**
 * Legitimate variations: ways an implementation may fill in what the contract leaves open.
 * The suite must pass the reference implementation with any of them switched on.
 */
export interface Variation {
  name: string;
  description: string;
  /** Vendor configuration the suite needs to test this variation (as a vendor would give it). */
  vendorConfig?: Record<string, unknown>;
  /** Server-managed fields that legitimately change when the suite restores a record. */
  volatileFields?: string[];
}

export const VARIATIONS: Variation[] = [
  { name: 'ids-integer', description: 'Ids are JSON integers.' },
  { name: 'ids-prefixed', description: 'Ids are prefixed strings such as cus_000123.' },
  { name: 'create-200', description: 'Create Customer answers 200 instead of 201.' },
  { name: 'delete-200-body', description: 'Delete Customer answers 200 with the deleted customer instead of 204.' },
  { name: 'auth-everywhere', description: 'Every endpoint, not only the business, requires the bearer key.' },
  { name: 'patch-answers-changes', description: 'Every PATCH answers only the fields it changed.' },
  { name: 'patch-answers-empty', description: 'Every PATCH answers {}.' },
  {
    name: 'timestamps',
    description: 'Records carry createdAt / updatedAt, and updatedAt changes on every write.',
    volatileFields: ['updatedAt'],
  },
  {
    name: 'strict-validation',
    description: 'Unknown business fields, non-ISO currencies, non-IANA zones, wrong types and malformed URLs answer 422.',
  },
  { name: 'tm-forbidden-403', description: 'Creating or deleting a team member answers 403.' },
  { name: 'tm-unknown-404', description: 'Creating or deleting a team member answers 404.' },
  { name: 'many-customers', description: 'Three hundred customers exist before the run.' },
  {
    name: 'email-field-renamed',
    description: 'The business email field is called contactEmail.',
    vendorConfig: { businessEmailField: 'contactEmail' },
  },
];

export function variationNamed(name: string): Variation | undefined {
  return VARIATIONS.find((v) => v.name === name);
}
