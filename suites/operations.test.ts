/** Section 4 and 9: every documented operation answers its documented success (helpers/registries/operations.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { operationsChecks } from '../helpers/registries/operations.ts';

register(operationsChecks, await loadSpec());
