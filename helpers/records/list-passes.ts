import { AsyncLocalStorage } from 'node:async_hooks';
import { IncompleteList, type ListEnd } from './list-reader.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { readingList } from '../core/check-clock.ts';

/** Stands for the reader's own words in what the shared read throws: each reader gets the error in its words. */
const DOING = '\u0000list pass\u0000';

interface Reader {
  doing: string;
  visit: (item: unknown) => boolean | void;
  whole: boolean;
  stopped: boolean;
  failed?: unknown;
  /** Where the read's requests are logged for this reader's report. */
  log: Exchange[];
  settle: { resolve(end: ListEnd): void; reject(e: unknown): void };
}

/**
 * The moments of a run at which its checks read a list (issue 35: at most once each, whatever the
 * list's length): before the run's writes, after its creates and changes. (After its deletes is
 * the after-delete batch's own read: helpers/resources/after-delete.ts.)
 */
export const LIST_PHASES = ['before', 'after-changes'] as const;
export type ListPhase = (typeof LIST_PHASES)[number];

/** A step that takes part in the phased reads: how far it got (the index of the last phase it asked at). */
interface Member {
  reached: number;
}

/**
 * Whole-list reads that several readers share (issue 35: a list of 100 000 customers read once
 * per moment, not once per check). A reader asks for a read that starts after it asked (after the
 * write it wants the list to show); the readers asking in one turn of the event loop (checks
 * going at once, a shared step's readers) get one read together: one walk from the first page,
 * each row handed to each of them, each keeping what it needs. So each reader gets exactly what a
 * read of its own would give it, a read begun after it asked, at the pace it asked. The walk stops
 * early only when every reader stopped. (Readers asking while a read goes could wait for the
 * next one together, fewer reads still; that holds checks up and moves when their writes land,
 * which changes what an order-dependent fault shows: see docs/environment.md.)
 */
export class ListPasses {
  private waiting: Reader[] = [];
  private gathering = false;
  /**
   * Phased reads: the steps taking part (see member), the readers held for each phase, and the
   * phases whose read went. A phase's read starts once every member still going asked at it, or
   * at a later one: one read answers every check that judges the list at that moment. A reader
   * asking at a phase whose read went (a read again: its write had not shown yet) reads at once.
   */
  private readonly members = new Set<Member>();
  private readonly held = new Map<ListPhase, Reader[]>();
  private readonly went = new Set<ListPhase>();
  private readonly step = new AsyncLocalStorage<Member>();

  constructor(private readonly read: (doing: string, visit: (item: unknown) => boolean) => Promise<ListEnd>) {}

  /**
   * Runs `work` as a member of the phased reads: each phase's read waits for it to ask at that
   * phase (or a later one), or to end. A member never waits for another's later phase, so none
   * waits for itself; one whose work does not read at a phase holds that phase's read until it
   * ends, so a member's work between its reads must not wait on another member's read.
   */
  async member<T>(work: () => Promise<T>): Promise<T> {
    const m: Member = { reached: -1 };
    this.members.add(m);
    try {
      return await this.step.run(m, work);
    } finally {
      this.members.delete(m);
      this.release();
    }
  }

  /** Marks the current member as at `phase` (it reads there, or has nothing to read before it): true if that phase's read is still to go. */
  reach(phase: ListPhase): boolean {
    const arrived = this.arrive(phase);
    this.release();
    return arrived;
  }

  /** Whether the current member's read at `phase` would be that phase's shared read (it has not gone yet). */
  pending(phase: ListPhase): boolean {
    return this.step.getStore() !== undefined && !this.went.has(phase);
  }

  private arrive(phase: ListPhase): boolean {
    const m = this.step.getStore();
    if (!m || this.went.has(phase)) return false;
    m.reached = Math.max(m.reached, LIST_PHASES.indexOf(phase));
    return true;
  }

  /** Like ListReader.each (`whole`: like whole), on a read shared with the readers asking beside; `at`: a member's phase (see member). */
  async pass(doing: string, visit: (item: unknown) => boolean | void, whole = false, at?: ListPhase): Promise<ListEnd> {
    const log: Exchange[] = [];
    const phased = at !== undefined && this.arrive(at);
    try {
      return await readingList(() => new Promise<ListEnd>((resolve, reject) => {
        const reader = { doing, visit, whole, stopped: false, log, settle: { resolve, reject } };
        if (phased) {
          this.held.set(at, [...(this.held.get(at) ?? []), reader]);
          this.release();
        } else {
          this.waiting.push(reader);
          this.next();
        }
      }));
    } finally {
      // Each reader's report holds the read's requests, as if it had sent them (see sharedStep).
      for (const e of log) recordExchange(e);
    }
  }

  /** Starts each phase's read whose members all reached it, in the phases' order. */
  private release(): void {
    for (const [i, phase] of LIST_PHASES.entries()) {
      if (this.went.has(phase)) continue;
      if ([...this.members].some((m) => m.reached < i)) return;
      const readers = this.held.get(phase) ?? [];
      this.went.add(phase);
      this.held.delete(phase);
      if (readers.length) void this.walk(readers);
    }
  }

  private next(): void {
    if (this.gathering) return;
    this.gathering = true;
    // Those asking in the same turn of the event loop go together; one asking later does not wait
    // for a read going (the checks keep their pace), it starts the next.
    setImmediate(() => {
      this.gathering = false;
      void this.walk(this.waiting.splice(0));
    });
  }

  private async walk(readers: Reader[]): Promise<void> {
    let live = readers.length;
    const stop = (r: Reader) => ((r.stopped = true), (live -= 1));
    const log: Exchange[] = [];
    let end: ListEnd;
    try {
      end = await withExchangeLog(log, () => this.read(DOING, (item) => {
        for (const r of readers) {
          if (r.stopped) continue;
          try {
            if (r.visit(item)) stop(r);
          } catch (e) {
            r.failed = e;
            stop(r);
          }
        }
        return live === 0;
      }));
    } catch (e) {
      for (const r of readers) {
        r.log.push(...log);
        r.settle.reject(r.failed ?? inWords(e, r.doing));
      }
      return;
    }
    for (const r of readers) {
      r.log.push(...log);
      if (r.failed !== undefined) r.settle.reject(r.failed);
      else if (r.stopped) r.settle.resolve({ complete: false, stopped: true, pages: end.pages });
      else if (r.whole && !end.complete) r.settle.reject(new IncompleteList(`${r.doing}: ${end.unknown}`));
      else r.settle.resolve({ ...end, stopped: false });
    }
  }
}

/** The shared read's error as the reader's own read would have thrown it: its words in the message. */
function inWords(e: unknown, doing: string): unknown {
  if (!(e instanceof Error) || !e.message.includes(DOING)) return e;
  const copy = Object.create(Object.getPrototypeOf(e) as object) as Error;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(e));
  copy.message = e.message.replaceAll(DOING, doing);
  return copy;
}
