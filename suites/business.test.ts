/** Sections 2, 4, 5 and 7: the business record, one ordered lane (helpers/registries/business.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { businessChecks } from '../helpers/registries/business.ts';

register(businessChecks, await loadSpec());
