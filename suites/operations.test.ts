/** Section 4 and 9: every documented operation answers its documented success (helpers/registries/operations.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { operationsChecks } from '../helpers/registries/operations.ts';

register(operationsChecks, await loadSpec());

// The lanes' registries (suites/resources.test.ts) load while this pass waits on the target,
// not between the two files (~60 ms of this worker, a round trip at 50 ms, before the lanes start).
void Promise.all([import('../helpers/registries/business.ts'), import('../helpers/registries/customers.ts'), import('../helpers/registries/team-members.ts')]).catch(() => {});
