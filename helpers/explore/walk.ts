// The exploration pass: fast-check draws sequences of commands from the seed, runs them against
// the target through its model (fc.asyncModelRun), and on a broken promise shrinks the sequence,
// replaying shorter ones against the target, each from the state exploration began in, within a
// bound of replays and time. What it finds is the shortest sequence that still breaks that promise.
import fc from 'fast-check';
import { Broken, commandArbitraries, type Model, type Property, type Step, type World } from './commands.ts';
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
 * Runs `budget` commands drawn from `seed` (several sequences, each from the state exploration
 * began in, until the budget is spent), and shrinks the first broken promise.
 */
export async function walk(w: World, budget: number, seed: number, start: () => Promise<Model>, reset: (m: Model) => Promise<void>): Promise<Walk> {
  const result: Walk = { seed, budget, commands: 0, recorded: [] };
  let failed: { property: Property; commands: number } | undefined;
  let replays = 0;
  let shrinkUntil = 0;
  let dirty: Model | undefined;
  const property = fc.asyncProperty(fc.commands(commandArbitraries(w), { maxCommands: Math.max(budget, 1), size: 'max' }), async (cmds) => {
    if (result.stopped) return true;
    let run = [...cmds];
    if (failed) {
      // Shrinking: a replay past the bound is taken as passing, which ends the shrinking at the shortest found.
      if (replays >= SHRINK_BOUND.replays || Date.now() > shrinkUntil) return true;
      replays++;
    } else {
      if (result.commands >= budget) return true;
      run = run.slice(0, budget - result.commands);
      result.commands += run.length;
    }
    let model: Model | undefined;
    try {
      if (dirty) await reset(dirty);
      dirty = undefined;
      model = dirty = await start();
      const started = model;
      await fc.asyncModelRun(() => ({ model: started, real: w }), run);
      if (!failed) result.recorded.push(...model.steps.flatMap((s) => (s.recorded ? [`${s.text}: ${s.recorded}`] : [])));
      return true;
    } catch (e) {
      if (!(e instanceof Broken)) {
        // In a replay, anything but the promise being shrunk is not a reproduction.
        if (!failed) result.stopped = e;
        return true;
      }
      if (failed && e.property !== failed.property) return true;
      if (!failed) {
        failed = { property: e.property, commands: model!.steps.length };
        shrinkUntil = Date.now() + SHRINK_BOUND.ms;
      }
      result.failure = { property: e.property, message: e.message, steps: model!.steps, replays, commandsFirst: failed.commands };
      return false;
    }
  });
  try {
    await fc.check(property, { seed, numRuns: Math.max(budget, 1), endOnFailure: false });
  } finally {
    if (dirty) await reset(dirty);
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
  return { business, snapshot, customers: [], members: members.map((r) => ({ ...r })), membersFound: new Map(), memberIds: members.map((r) => String(r[idField])), steps: [] };
}
