/**
 * Legitimate variations: ways an implementation may fill in what the contract leaves open.
 * The suite must pass the reference implementation with any of them switched on.
 */
export interface Variation {
  name: string;
  description: string;
  /** Vendor configuration the suite needs to test this variation (as a vendor would give it). */
  vendorConfig?: Record<string, unknown>;
}

export const VARIATIONS: Variation[] = [
  { name: 'ids-integer', description: 'Ids are JSON integers.' },
  { name: 'ids-prefixed', description: 'Ids are prefixed strings such as cus_000123.' },
  { name: 'create-200', description: 'Create Customer answers 200 instead of 201.' },
  { name: 'delete-200-body', description: 'Delete Customer answers 200 with the deleted customer instead of 204.' },
  { name: 'patch-answers-changes', description: 'The business update answers only the changed fields.' },
  { name: 'patch-answers-empty', description: 'The business update answers {}.' },
  { name: 'strict-validation', description: 'Unknown business fields, non-ISO currencies, non-IANA zones and malformed URLs answer 422.' },
  {
    name: 'email-field-renamed',
    description: 'The business email field is called contactEmail.',
    vendorConfig: { businessEmailField: 'contactEmail' },
  },
];

export function variationNamed(name: string): Variation | undefined {
  return VARIATIONS.find((v) => v.name === name);
}
