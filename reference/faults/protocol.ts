import type { Fault, KillPattern } from './fault.ts';
import { CUSTOMER_CHECKS_NEEDING } from './customers.ts';
import { TEAM_MEMBER_CHECKS_NEEDING } from './team-members.ts';

/** Operations the reference serves; a "route-missing" fault takes one of them away (404). */
const OPERATIONS = [
  'listCustomers', 'createCustomer', 'findCustomer', 'updateCustomer', 'deleteCustomer',
  'retrieveBusiness', 'updateBusiness', 'listTeamMembers', 'findTeamMember', 'updateTeamMember',
];

/** Which checks lose their footing when an operation is not served, besides its own OP-DOCUMENTED. */
const ALSO_KILLS: Record<string, KillPattern[]> = {
  createCustomer: ['OP-DOCUMENTED:findCustomer', 'OP-DOCUMENTED:updateCustomer', 'OP-DOCUMENTED:deleteCustomer'],
  findCustomer: ['OP-DOCUMENTED:updateCustomer'],
  listTeamMembers: ['OP-DOCUMENTED:findTeamMember', 'OP-DOCUMENTED:updateTeamMember'],
  findTeamMember: ['OP-DOCUMENTED:updateTeamMember'],
  // Without a retrieval there is no snapshot to restore, so the business lane changes nothing.
  retrieveBusiness: [
    'OP-DOCUMENTED:updateBusiness', 'BUS-GET-*', 'BUS-UPDATE-*', 'BUS-AUTH-MISSING:*', 'BUS-AUTH-INVALID:*',
    'BUS-AUTH-EXPIRED:*', 'BUS-AUTH-REJECTED-NO-CHANGE:*', 'BUS-AUTH-NO-ECHO:updateBusiness:*',
  ],
  updateBusiness: ['BUS-UPDATE-*', 'BUS-AUTH-MISSING:updateBusiness', 'BUS-AUTH-INVALID:updateBusiness:*', 'BUS-AUTH-EXPIRED:updateBusiness'],
};

export const protocolFaults: Fault[] = OPERATIONS.map((op): Fault => ({
  name: `route-missing:${op}`,
  description: `${op} is not served (404 at its documented path).`,
  kills: [`OP-DOCUMENTED:${op}`, ...(ALSO_KILLS[op] ?? []), ...(CUSTOMER_CHECKS_NEEDING[op] ?? []), ...(TEAM_MEMBER_CHECKS_NEEDING[op] ?? [])],
}));

/** Faults in the encoding of answers and in the version prefix. */
export const encodingFaults: Fault[] = [
  {
    name: 'wrong-prefix',
    description: 'The interface is served under /api/v2 instead of the documented /api/v1.',
    kills: ['*'],
  },
  {
    name: 'html:listTeamMembers',
    description: 'List Team Members answers an HTML page instead of JSON.',
    kills: ['OP-DOCUMENTED:listTeamMembers', 'OP-DOCUMENTED:findTeamMember', 'OP-DOCUMENTED:updateTeamMember', ...TEAM_MEMBER_CHECKS_NEEDING.listTeamMembers],
  },
  {
    name: 'truncated-json:findCustomer',
    description: 'Find Customer answers a truncated JSON body.',
    // Every customer check that reads a customer back; a deleted one is still answered 404.
    kills: ['OP-DOCUMENTED:findCustomer', 'OP-DOCUMENTED:updateCustomer', 'CUS-FIND', 'CUS-UPDATE', 'CUS-ISOLATION:update', 'CUS-ISOLATION:delete'],
  },
];
