/**
 * Legitimate variations: ways an implementation may fill in what the contract leaves open.
 * The suite must pass the reference implementation with any of them switched on.
 */
import type { CheckId, CheckIdOf, ShouldRequirementId } from '../helpers/contract/catalog.ts';
import { seedBusiness } from './seed.ts';

export interface Variation {
  name: string;
  description: string;
  /** Vendor configuration the suite needs to test this variation (as a vendor would give it). */
  vendorConfig?: Record<string, unknown>;
  /** Server-managed fields that legitimately change when the suite restores a record. */
  volatileFields?: string[];
  /**
   * SHOULD checks this variation legitimately warns on: it departs from a strong inference the
   * contract does not state. The variations test accepts exactly these warnings, no other.
   */
  expectWarnings?: CheckIdOf<ShouldRequirementId>[];
  /**
   * Business checks this variation makes not applicable, with the reason in the variation. The
   * variations test otherwise holds every variation to none: the record is documented.
   */
  expectNotApplicable?: CheckId[];
}

/** The fields the seed business record holds as null. */
const NULL_IN_SEED = Object.entries(seedBusiness('email')).filter(([, v]) => v === null).map(([f]) => f);

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
    name: 'unique-customer-email',
    description: 'Customer emails are unique: a create (or update) with an email another customer holds answers 409.',
  },
  {
    name: 'delete-idempotent',
    description: 'Delete Customer of an id that names no customer (any more) answers 204.',
    // 404 for an unknown id is a SHOULD; an idempotent delete departs from it, legitimately.
    expectWarnings: ['CUS-UNKNOWN-404:delete'],
  },
  {
    name: 'omit-null-fields',
    description: 'The business retrieval leaves out the fields that are null.',
    // A field null at the start is not in the retrieval: its value cannot be read, so it cannot
    // be restored either, and its type and update checks are not applicable (with that reason).
    expectNotApplicable: NULL_IN_SEED.flatMap((f): CheckId[] => [
      `BUS-GET-TYPES:${f}`, `BUS-UPDATE-200:${f}`, `BUS-UPDATE-APPLIES:${f}`, `BUS-UPDATE-PARTIAL:${f}`, `BUS-UPDATE-NULLABLE:${f}`,
    ]),
  },
  {
    name: 'business-hours-every-day',
    description: 'An update of businessHours must name the same days as the record holds (422 otherwise).',
    // The element rules are not shown: the changed list the suite derives may be refused.
    expectNotApplicable: ['BUS-UPDATE-200:businessHours', 'BUS-UPDATE-APPLIES:businessHours', 'BUS-UPDATE-PARTIAL:businessHours'],
  },
  { name: 'list-envelope', description: 'List Customers and List Team Members answer {"data": [...]} instead of a bare array.' },
  {
    name: 'email-field-renamed',
    description: 'The business email field is called contactEmail.',
    vendorConfig: { businessEmailField: 'contactEmail' },
  },
];

export function variationNamed(name: string): Variation | undefined {
  return VARIATIONS.find((v) => v.name === name);
}
