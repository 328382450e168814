/** Sections 1 and 4: team members, in one ordered lane (helpers/registries/team-members.ts). */
import { register } from '../helpers/vitest/check.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import { teamMemberChecks } from '../helpers/registries/team-members.ts';

register(teamMemberChecks, await loadSpec());
