import { IncompleteList, type ListEnd } from './list-reader.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';

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

  constructor(private readonly read: (doing: string, visit: (item: unknown) => boolean) => Promise<ListEnd>) {}

  /** Like ListReader.each (`whole`: like whole), on a read shared with the readers asking beside. */
  async pass(doing: string, visit: (item: unknown) => boolean | void, whole = false): Promise<ListEnd> {
    const log: Exchange[] = [];
    try {
      return await new Promise<ListEnd>((resolve, reject) => {
        this.waiting.push({ doing, visit, whole, stopped: false, log, settle: { resolve, reject } });
        this.next();
      });
    } finally {
      // Each reader's report holds the read's requests, as if it had sent them (see sharedStep).
      for (const e of log) recordExchange(e);
    }
  }

  private next(): void {
    if (this.gathering) return;
    this.gathering = true;
    // Those asking in the same turn of the event loop go together; one asking later does not wait
    // for a read going (the checks keep their pace), it starts the next.
    setImmediate(() => {
      this.gathering = false;
      void this.walk();
    });
  }

  private async walk(): Promise<void> {
    const readers = this.waiting.splice(0);
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
