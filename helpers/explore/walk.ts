// The exploration pass: fast-check draws sequences of commands from the seed, runs them against
// the target through its model (fc.asyncModelRun), and on a broken promise shrinks the sequence,
// replaying shorter ones against the target, each from the state exploration began in, within a
// bound of replays and time. What it finds is the shortest sequence that still breaks that promise.
import fc from 'fast-check';
import { Broken, commandArbitraries, everyRefusal, type Model, type Property, type Step, type World } from './commands.ts';
import type { Row } from '../contract/record.ts';

/** How far shrinking goes: replays against the target, and time. */
export const SHRINK_BOUND = { replays: 40, ms: 60_000 };

export interface Walk {
  seed: number;
  /** The commands asked for (--explore). */
  budget: number;
  /** Commands run, the shrinking's replays not counted. */
  commands: number;
  /** The promise broken, with the shortest sequence found that breaks it. */
  failure?: { property: Property; message: string; steps: Step[]; replays: number; commandsFirst: number };
  /** The suite's own inability, or the environment (a request turned away, another writer): ends exploration unjudged. */
  stopped?: unknown;
  /** What the target chose where the contract is silent, by the command that met it. */
  recorded: string[];
}

/**
 * Runs `budget` commands drawn from `seed`, and shrinks the first broken promise. A command counts
 * when it runs (one whose precondition fails sends nothing); the sequences fast-check draws follow
 * one another from the state the last left, so that what one wrote a later one reads, and the
 * state exploration began in is set up once, not before each. Shrinking replays a failing
 * sequence from that state, each replay after a restore.
 */
export async function walk(w: World, budget: number, seed: number, start: () => Promise<Model>, reset: (m: Model, last: boolean) => Promise<void>): Promise<Walk> {
  const result: Walk = { seed, budget, commands: 0, recorded: [] };
  let failed: { property: Property; commands: number } | undefined;
  let replays = 0;
  let shrinkUntil = 0;
  let dirty: Model | undefined;
  let carried: Model | undefined;
  // Every near miss of the key, once per walk: first in the first sequence, and in the replays of a failure it showed.
  const first = everyRefusal(w);
  let firstBroke = false;
  const property = fc.asyncProperty(fc.commands(commandArbitraries(w), { maxCommands: Math.max(budget, 1), size: 'max' }), async (cmds) => {
    if (result.stopped) return true;
    if (failed) {
      // Shrinking: a replay past the bound is taken as passing, which ends the shrinking at the shortest found.
      if (replays >= SHRINK_BOUND.replays || Date.now() > shrinkUntil) return true;
      replays++;
    } else if (result.commands >= budget) return true;
    let model: Model | undefined;
    let from = 0;
    let withFirst = false;
    try {
      if (failed || !carried) {
        withFirst = Boolean(first) && (failed ? firstBroke : result.commands === 0);
        if (dirty) await reset(dirty, false);
        dirty = carried = undefined;
        model = dirty = await start();
      } else model = carried;
      from = model.steps.length;
      const started = model;
      const left = () => (failed ? Infinity : budget - result.commands);
      // The budget bounds the commands that run: one past it is not sent, as one whose precondition fails.
      // A round of commands side by side (Together) counts each that runs, and runs no more than are left.
      const sized = (c: fc.AsyncCommand<Model, World>) => c as fc.AsyncCommand<Model, World> & { size?: (m: Readonly<Model>) => number; run(m: Model, w: World, limit?: number): Promise<void> };
      const run = [...(withFirst ? [first!] : []), ...cmds].map(sized).map((c) => ({
        check: (m: Readonly<Model>) => left() > 0 && c.check(m),
        run: async (m: Model, real: World) => {
          const n = Math.min(c.size?.(m) ?? 1, left());
          if (!failed) result.commands += n;
          await c.run(m, real, n);
        },
        toString: () => c.toString(),
      }));
      await fc.asyncModelRun(() => ({ model: started, real: w }), run);
      if (!failed) {
        result.recorded.push(...model.steps.slice(from).flatMap((s) => (s.recorded ? [`${s.text}: ${s.recorded}`] : [])));
        carried = model;
      }
      return true;
    } catch (e) {
      if (!(e instanceof Broken)) {
        // In a replay, anything but the promise being shrunk is not a reproduction.
        if (!failed) result.stopped = e;
        return true;
      }
      if (failed && e.property !== failed.property) return true;
      if (!failed) {
        firstBroke = withFirst && model!.steps.length === from + 1;
        failed = { property: e.property, commands: model!.steps.length };
        shrinkUntil = Date.now() + SHRINK_BOUND.ms;
      }
      // The first failure's story is every step since the state exploration began in; a replay's, its own.
      result.failure = { property: e.property, message: e.message, steps: model!.steps, replays, commandsFirst: failed.commands };
      return false;
    }
  });
  try {
    // Sequences until the budget is spent: a drawn sequence may be short, or hold commands that do not run.
    await fc.check(property, { seed, numRuns: Math.max(budget, 1) * 4, endOnFailure: false });
  } finally {
    if (dirty) await reset(dirty, true);
  }
  if (result.failure) result.failure.replays = replays;
  return result;
}

/** The story of a failure: the shortest sequence, numbered, each request with its answer. */
export function story(walk: Walk): string {
  const f = walk.failure!;
  const lines = f.steps.map((s, i) => `  ${i + 1}. ${s.text}`);
  return [
    f.message,
    `the shortest sequence found (${f.steps.length} command(s), from ${f.commandsFirst} after ${f.replays} replay(s) of shrinking):`,
    ...lines,
    `replay it with --explore ${walk.budget} --explore-seed ${walk.seed}`,
  ].join('\n');
}

/** Model of a fresh start: the business as read now, the members as listed now, no customers. */
export function freshModel(business: Row, snapshot: Row, members: Row[], idField: string): Model {
  return { business, snapshot, customers: [], members: members.map((r) => ({ ...r })), memberIds: members.map((r) => String(r[idField])), membersFound: {}, steps: [] };
}
