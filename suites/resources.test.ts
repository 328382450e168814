/**
 * Sections 1, 2, 4, 5 and 7, resource by resource, each a lane of records of its own, side by
 * side (--concurrency): the business record, one ordered lane (helpers/registries/business.ts);
 * customers, each check on customers it created itself (customers.ts); team members, in one
 * ordered lane (team-members.ts); then the frame over them all (frame.ts).
 */
import { registerLanes } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { businessChecks } from '../helpers/registries/business.ts';
import { customerChecks } from '../helpers/registries/customers.ts';
import { teamMemberChecks } from '../helpers/registries/team-members.ts';
import { frameChecks } from '../helpers/registries/frame.ts';
import { register } from '../helpers/vitest/check.ts';

const spec = await loadSpec();
registerLanes(spec, { business: businessChecks, customers: customerChecks, 'team-members': teamMemberChecks });
// After every lane (it runs alone, not beside them): what changed that no write of the run addressed.
register(frameChecks, spec, 'frame');
