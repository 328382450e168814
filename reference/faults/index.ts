import { encodingFaults, protocolFaults } from './protocol.ts';
import { businessFaults } from './business.ts';
import { customerFaults } from './customers.ts';
import { teamMemberFaults } from './team-members.ts';

/**
 * The fault catalog: each fault breaks exactly one thing in the reference implementation, and
 * names the checks that must fail because of it (`kills`: check ids; a trailing "*" matches a
 * prefix). The project's tests run the suite against each fault and hold it to exactly that list.
 */
export interface Fault {
  name: string;
  description: string;
  kills: string[];
}

export const FAULTS: Fault[] = [...protocolFaults, ...encodingFaults, ...businessFaults, ...customerFaults, ...teamMemberFaults];

export function faultNamed(name: string): Fault | undefined {
  return FAULTS.find((f) => f.name === name);
}
