import type { Fault } from './fault.ts';
import { encodingFaults, protocolFaults } from './protocol.ts';
import { businessFaults } from './business.ts';
import { customerFaults } from './customers.ts';
import { teamMemberFaults } from './team-members.ts';

/** The fault catalog: every fault of the reference implementation (see fault.ts). */
export type { Fault } from './fault.ts';

export const FAULTS: Fault[] = [...protocolFaults, ...encodingFaults, ...businessFaults, ...customerFaults, ...teamMemberFaults];

export function faultNamed(name: string): Fault | undefined {
  return FAULTS.find((f) => f.name === name);
}
