import { BroadcastChannel } from 'node:worker_threads';

/** Checks blocked by the environment one after another before the run stops. */
export const BLOCKS_BEFORE_STOP = 3;
/** A sentinel's answer is reused for this long by requests that meet trouble at the same time (less than the first backoff: a retry asks anew). */
const SENTINEL_FRESH_MS = 200;

/** What a lane that gives up on the environment tells the others and the main thread. */
export interface EnvironmentGone {
  reason: string;
}

/** The channel one run's threads share (the lanes in their workers, the command in the main thread). */
export const environmentChannel = (runId: string): BroadcastChannel => new BroadcastChannel(`scheduling-conformance:${runId}:environment`);

/**
 * Whether the environment around the target (its gateway, the network, the key) is working, as
 * the sentinel says: the preflight's known-good request, asked again when a check meets an
 * anomaly. One per run and thread, shared by every client of the run in it.
 */
export class Environment {
  /** When the sentinel first failed in the current outage; undefined while it answers. */
  downSince?: number;
  /** Checks blocked by the environment since the last healthy answer. */
  private blockedInARow = 0;
  /** Why the run gave up on the environment; every later request of a check is blocked at once. */
  gone?: string;
  private asked = new Map<string, { at: number; result: Promise<string | undefined> }>();
  private channel?: BroadcastChannel;

  constructor(private readonly runId: string) {}

  /** A healthy answer: the outage, if there was one, is over. */
  healthy(): void {
    this.downSince = undefined;
    this.blockedInARow = 0;
  }

  /**
   * Asks the sentinel at `path` (`ask` sends it and says what is wrong, or undefined): requests
   * that meet trouble together share one answer. Returns why the environment is down, if it is.
   */
  async sentinel(path: string, ask: () => Promise<string | undefined>): Promise<string | undefined> {
    const fresh = this.asked.get(path);
    const entry = fresh && Date.now() - fresh.at < SENTINEL_FRESH_MS ? fresh : { at: Date.now(), result: ask() };
    this.asked.set(path, entry);
    const down = await entry.result;
    if (down === undefined) this.healthy();
    else this.downSince ??= entry.at;
    return down;
  }

  /** A check is blocked by the environment; after BLOCKS_BEFORE_STOP in a row the run stops, told to every thread. */
  blocked(reason: string): void {
    this.blockedInARow += 1;
    if (this.blockedInARow < BLOCKS_BEFORE_STOP || this.gone) return;
    this.gone = reason;
    this.listen().postMessage({ reason } satisfies EnvironmentGone);
  }

  /** Stops listening: the run is over in this thread. */
  close(): void {
    this.channel?.close();
    this.channel = undefined;
  }

  /** Listens for another thread of the run giving up (idempotent). */
  listen(): BroadcastChannel {
    if (this.channel) return this.channel;
    this.channel = environmentChannel(this.runId);
    this.channel.onmessage = (message) => void (this.gone ??= ((message as { data: EnvironmentGone }).data.reason));
    // A worker must be free to exit with the channel open.
    this.channel.unref();
    return this.channel;
  }
}

const environments = new Map<string, Environment>();

/**
 * The environment of the run `runId` in this thread. A thread serves one run at a time (a suites'
 * worker kept for the next run takes it once idle): the first ask of a new run closes the runs
 * before it here, whose channels would otherwise stay open, one a run, for the thread's life.
 */
export function environmentOf(runId: string): Environment {
  let env = environments.get(runId);
  if (!env) {
    for (const ended of environments.values()) ended.close();
    environments.clear();
    env = new Environment(runId);
    env.listen();
    environments.set(runId, env);
  }
  return env;
}
