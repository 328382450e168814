/** Exploration, after the lanes: a stateful walk of generated operations, judged by the contract's promises (helpers/registries/explore.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { exploreChecks } from '../helpers/registries/explore.ts';

register(exploreChecks, await loadSpec(), 'exploration');
