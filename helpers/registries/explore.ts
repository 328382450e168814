/**
 * Exploration (helpers/explore/): after the lanes, a stateful walk of generated operations over
 * the three resources, judged by the promises the checks state. Each promise is a check of its
 * own; the walk runs once, for the first check that asks, and a broken promise is told as the
 * shortest sequence found that breaks it, with the seed that replays it.
 */
import type { Check, Registry } from '../checks/definition.ts';
import { asBlocked } from '../checks/definition.ts';
import { sharedStep } from '../checks/shared-step.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { journalledClient } from '../safety/journal.ts';
import { CreatedRecords } from '../safety/created-records.ts';
import { headerNearMisses } from '../http/authorization.ts';
import { recordExchange } from '../http/exchanges.ts';
import { businessOps, requireOps, resourceOps } from '../contract/resource-ops.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { windowOf } from '../core/converge.ts';
import { BusinessLane } from '../resources/business-lane.ts';
import { CustomerLane } from '../resources/customer-lane.ts';
import { TeamMemberLane } from '../resources/team-member-lane.ts';
import { namedBusinessFields } from '../resources/business-values.ts';
import type { Row } from '../contract/record.ts';
import type { Model, Property, World } from '../explore/commands.ts';
import type { Walk } from '../explore/walk.ts';

/**
 * The walk and its generators (fast-check, and the tables its arbitraries build at load, ~5 MiB
 * of heap) load in the thread that walks, when it first walks: the command's main thread reads
 * these declarations only to count and list the checks.
 */
const walking = () => import('../explore/walk.ts');

/** What the promises' checks share: the world exploration acts on, and its one walk. */
interface Exploring {
  world: World;
  walked: () => Promise<Walk | undefined>;
  close(): Promise<void>;
}

/** A promise's check: judged on the one walk, failed with the shortest sequence that breaks it. */
function exploreCheck(def: { id: Property; title: string }): Check<Exploring> {
  return {
    ...def,
    async run({ walked }, run) {
      const explored = await walked();
      if (!explored) return run.notApplicable('exploration is off (--explore 0)');
      if (explored.stopped) throw asBlocked(explored.stopped, 'the suite');
      run.note(`${explored.commands} command(s) explored, seed ${explored.seed} (replay: --explore ${explored.commands} --explore-seed ${explored.seed})`);
      const f = explored.failure;
      if (f?.property === def.id) {
        for (const step of f.steps) for (const e of step.exchanges) recordExchange(e);
        throw new Error((await walking()).story(explored));
      }
      if (f) run.note(`exploration stopped at ${f.property}: this promise was judged on the commands before it`);
      for (const r of explored.recorded.slice(0, 5)) run.note(`recorded: ${r}`);
    },
  };
}

export function exploreChecks(spec: Spec, target: TargetConfig): Registry<Exploring> {
  const { retrieve: retrieveOp, update: updateOp } = businessOps(spec);
  const customerOps = requireOps(resourceOps(spec, 'customers'), 'customers', ['list', 'create', 'find', 'update', 'remove']);
  const memberOps = requireOps(resourceOps(spec, 'team-members'), 'team-members', ['list', 'find', 'update']);
  const fields = namedBusinessFields(spec, target);
  const entries = [
    exploreCheck({ id: 'EXPLORE-UPDATE-APPLIES', title: 'in generated sequences, an update answered with success changes exactly the fields sent (business, customers, team members)' }),
    exploreCheck({ id: 'EXPLORE-REFUSED', title: 'in generated sequences, a business request without a valid key answers 401 and changes nothing' }),
    exploreCheck({ id: 'EXPLORE-REFUSED-NO-RECORD', title: 'in generated sequences, a refusal carries no value of the business record, nor the key it refused' }),
    exploreCheck({ id: 'EXPLORE-CUSTOMER-LIFECYCLE', title: 'in generated sequences, a created customer is found (under its id, not a near miss of it) and listed with what was sent, a deleted one neither' }),
    exploreCheck({ id: 'EXPLORE-TEAM-FIXED', title: 'in generated sequences, no team member comes or goes' }),
  ];
  return {
    // Exploration turned off (--explore 0) has no checks: its promises are outside the run, as checks --only leaves out.
    entries: target.explore?.commands === 0 ? [] : entries,
    open() {
      const client = journalledClient(target);
      const journal = currentJournal(target);
      // Each sequence starts with lanes of its own: a lane's restore is its last write, and what it knows of the records (their history, the interference watch) starts from that.
      const businessLane = () => {
        const lane = new BusinessLane(client, retrieveOp, updateOp, fields, target.runId, target.vendor.businessEnvelope, journal);
        lane.convergeWindowMs = windowOf(target);
        return lane;
      };
      const business = businessLane();
      const customers = new CustomerLane(client, customerOps, target, new CreatedRecords(journal));
      const members = new TeamMemberLane(client, memberOps, target);
      const secured = retrieveOp.secured && updateOp.secured;
      const refusals = secured
        ? [
            { name: 'without Authorization', auth: 'none' as const, keys: [] },
            ...(target.expiredKey ? [{ name: 'with the expired key', auth: 'expired' as const, keys: [] }] : []),
            ...headerNearMisses(target.apiKey).flatMap((m) => (m.authorization ? [{ name: `${m.description} (${m.name})`, auth: { authorization: m.authorization }, keys: m.key ? [m.key] : [] }] : [])),
          ]
        : [];
      // A member as a find showed it before exploration first changed it (a list may show a member in another form; putBack compares finds).
      const originals = new Map<string, Row>();
      const world: World = { client, target, business, customers, members, fields, retrieveOp, updateOp, refusals, memberFieldsTaken: new Set(), memberOriginals: originals };
      // The first listing goes out beside the business's snapshot: one round trip.
      let listing: Promise<Row[]> | undefined;
      const start = async (): Promise<Model> => {
        // No snapshot, nothing to restore to: blocked by the check that judges the retrieval, not by a read failing again.
        const before = world.business.before();
        // Two resources, read side by side: one round trip (the business as the snapshot just read it, if nothing was sent since).
        const [listed, business] = await Promise.all([listing ?? world.members.readList('listing the team members exploration starts from'), world.business.current()]);
        listing = undefined;
        return (await walking()).freshModel(business, before, listed, members.idField);
      };
      // Back to where exploration began: its customers deleted, the business and the members put back; the state taken again unless it is the last.
      const reset = async (m: Model, last: boolean) => {
        // Each resource put back side by side with the others: one writer each, as during the walk.
        const [, left, problems] = await Promise.all([
          Promise.all(m.customers.filter((c) => !c.gone).map((c) => customers.remove(c.id).catch(() => undefined))),
          world.business.restore(),
          // Only the members exploration changed: the others it never wrote.
          Promise.all([...originals.values()].map((original) => world.members.putBack(original))).then((all) => all.filter((p) => p !== undefined)),
        ]);
        if (left.length) throw new Error(`the business record could not be put back before the next sequence: ${left.join(', ')} still differ`);
        if (problems.length) throw new Error(`a team member could not be put back before the next sequence: ${problems[0]}`);
        // A lane of its own for what follows: the last one's restore, done, is not sent again at the close.
        world.business = businessLane();
        if (last) return;
        await world.business.take();
        world.members = new TeamMemberLane(client, memberOps, target);
      };
      const config = target.explore;
      let began = false;
      const walked = sharedStep(async () => {
        if (!config?.commands) return undefined;
        began = true;
        listing = world.members.readList('listing the team members exploration starts from');
        // Awaited by the first start; marked handled now, so that a failure while the snapshot is taken is not an unhandled one.
        listing.catch(() => undefined);
        await world.business.take();
        return (await walking()).walk(world, config.commands, config.seed, start, reset);
      });
      return {
        world, walked,
        async close() {
          if (!began) return;
          const [business, others] = await Promise.all([world.business.restore(), customers.finish()]);
          const left = [...business.map((f) => `the business's ${f}`), ...others];
          if (left.length) throw new Error(`left on the target after exploration: ${left.join('; ')}`);
        },
      };
    },
    close: async (ctx) => {
      try {
        await ctx.close();
      } finally {
        await ctx.world.client.close();
      }
    },
  };
}
