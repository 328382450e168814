/** Sections 1 and 4: customers, each check on customers it created itself (helpers/registries/customers.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { customerChecks } from '../helpers/registries/customers.ts';

register(customerChecks, await loadSpec());
