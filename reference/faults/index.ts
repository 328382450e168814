import type { Fault } from './fault.ts';
import type { FaultName } from './fault-names.generated.ts';
import { encodingFaults, protocolFaults } from './protocol.ts';
import { businessFaults } from './business.ts';
import { customerFaults } from './customers.ts';
import { teamMemberFaults } from './team-members.ts';
import { firstContactFaults } from './first-contact.ts';
import { firstContact2Faults } from './first-contact-2.ts';
import { firstContact4Faults } from './first-contact-4.ts';

export type { Fault } from './fault.ts';
export type { FaultName } from './fault-names.generated.ts';

/** A fault of the catalog, under its name as the compiler knows it. */
export type CatalogFault = Fault & { name: FaultName };

/**
 * The fault catalog: every fault of the reference implementation (see fault.ts). FaultName is
 * generated from this list (`npm run generate`), and a project test fails when it is out of date,
 * so the names here are the names of the type.
 */
export const FAULTS = [...protocolFaults, ...encodingFaults, ...businessFaults, ...customerFaults, ...teamMemberFaults, ...firstContactFaults, ...firstContact2Faults, ...firstContact4Faults] as CatalogFault[];

export function faultNamed(name: string): CatalogFault | undefined {
  return FAULTS.find((f) => f.name === name);
}

/** Whether a name from outside the code (a command line) is a fault of the catalog. */
export function isFaultName(name: string): name is FaultName {
  return faultNamed(name) !== undefined;
}
