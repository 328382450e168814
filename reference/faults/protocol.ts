import type { Fault } from './index.ts';
import { CUSTOMER_CHECKS_NEEDING } from './customers.ts';
import { TEAM_MEMBER_CHECKS_NEEDING } from './team-members.ts';

/** Operations the reference serves; a "route-missing" fault takes one of them away (404). */
const OPERATIONS = [
  'listCustomers', 'createCustomer', 'findCustomer', 'updateCustomer', 'deleteCustomer',
  'retrieveBusiness', 'updateBusiness', 'listTeamMembers', 'findTeamMember', 'updateTeamMember',
];

/** Which checks lose their footing when an operation is not served, besides its own OP-DOCUMENTED. */
const ALSO_KILLS: Record<string, string[]> = {
  createCustomer: ['OP-DOCUMENTED:findCustomer', 'OP-DOCUMENTED:updateCustomer', 'OP-DOCUMENTED:deleteCustomer'],
  findCustomer: ['OP-DOCUMENTED:updateCustomer'],
  listTeamMembers: ['OP-DOCUMENTED:findTeamMember', 'OP-DOCUMENTED:updateTeamMember'],
  findTeamMember: ['OP-DOCUMENTED:updateTeamMember'],
  retrieveBusiness: ['OP-DOCUMENTED:updateBusiness'],
};

export const protocolFaults: Fault[] = OPERATIONS.map((op) => ({
  name: `route-missing:${op}`,
  description: `${op} is not served (404 at its documented path).`,
  kills: [`OP-DOCUMENTED:${op}`, ...(ALSO_KILLS[op] ?? []), ...(CUSTOMER_CHECKS_NEEDING[op] ?? []), ...(TEAM_MEMBER_CHECKS_NEEDING[op] ?? [])],
}));
