import type { Fault, KillPattern } from './fault.ts';
import { CUSTOMER_CHECKS_NEEDING } from './customers.ts';
import { TEAM_MEMBER_CHECKS_NEEDING } from './team-members.ts';

/** Operations the reference serves; a "route-missing" fault takes one of them away (404). */
const OPERATIONS = [
  'listCustomers', 'createCustomer', 'findCustomer', 'updateCustomer', 'deleteCustomer',
  'retrieveBusiness', 'updateBusiness', 'listTeamMembers', 'findTeamMember', 'updateTeamMember',
];

/**
 * Which checks fail when an operation is not served, besides its own OP-DOCUMENTED. The
 * operations that need it first (a record to address, a read to write back) are blocked, not
 * failed: one root cause, one failure.
 */
const ALSO_KILLS: Record<string, KillPattern[]> = {
  // Without a retrieval there is no snapshot to restore, so the business lane changes nothing:
  // the checks that need one are blocked, and only those that observe the retrieval fail.
  retrieveBusiness: ['BUS-GET-200', 'BUS-AUTH-MISSING:retrieveBusiness', 'BUS-AUTH-INVALID:retrieveBusiness:*', 'BUS-AUTH-EXPIRED:retrieveBusiness'],
  updateBusiness: ['BUS-UPDATE-*', 'BUS-AUTH-MISSING:updateBusiness', 'BUS-AUTH-INVALID:updateBusiness:*', 'BUS-AUTH-EXPIRED:updateBusiness'],
};

/** What needs the operation first is blocked by the check that found it missing. */
const BLOCKS: Record<string, Fault['blocks']> = {
  listTeamMembers: { 'TM-FIND': 'TM-LIST', 'TM-ISOLATION': 'TM-LIST', 'TM-UPDATE:change': 'TM-LIST', 'TM-NO-CREATE': 'TM-LIST', 'TM-NO-DELETE': 'TM-LIST' },
  findTeamMember: { 'TM-ISOLATION': 'TM-FIND', 'TM-UPDATE:write-back': 'TM-FIND', 'TM-NO-DELETE': 'TM-FIND' },
  updateTeamMember: { 'TM-ISOLATION': 'TM-UPDATE:change' },
  deleteCustomer: { 'CUS-DELETE-404': 'CUS-DELETE', 'CUS-ISOLATION:delete': 'CUS-DELETE', 'CUS-UNKNOWN-NOT-2XX:find': 'CUS-DELETE', 'CUS-UNKNOWN-404:update': 'CUS-DELETE' },
  updateCustomer: { 'CUS-ISOLATION:update': 'CUS-UPDATE' },
};

export const protocolFaults: Fault[] = OPERATIONS.map((op): Fault => ({
  name: `route-missing:${op}`,
  description: `${op} is not served (404 at its documented path).`,
  kills: [`OP-DOCUMENTED:${op}`, ...(ALSO_KILLS[op] ?? []), ...(CUSTOMER_CHECKS_NEEDING[op] ?? []), ...(TEAM_MEMBER_CHECKS_NEEDING[op] ?? [])],
  ...(BLOCKS[op] && { blocks: BLOCKS[op] }),
}));

/** Faults in the encoding of answers and in the version prefix. */
export const encodingFaults: Fault[] = [
  {
    name: 'html:listTeamMembers',
    description: 'List Team Members answers an HTML page instead of JSON.',
    kills: ['OP-DOCUMENTED:listTeamMembers', ...TEAM_MEMBER_CHECKS_NEEDING.listTeamMembers],
  },
  {
    name: 'server-error:findCustomer',
    description: 'Find Customer answers 500 where it would answer the customer, while every other operation (the sentinel too) works.',
    kills: ['OP-DOCUMENTED:findCustomer', 'CUS-FIND', 'CUS-UPDATE', 'CUS-ISOLATION:update', 'CUS-ISOLATION:delete'],
  },
  {
    name: 'truncated-json:findCustomer',
    description: 'Find Customer answers a truncated JSON body.',
    // Every customer check that reads a customer back; a deleted one is still answered 404.
    // (The operations suite's update is blocked: its write-back needs the read.)
    kills: ['OP-DOCUMENTED:findCustomer', 'CUS-FIND', 'CUS-UPDATE', 'CUS-ISOLATION:update', 'CUS-ISOLATION:delete'],
  },
];
