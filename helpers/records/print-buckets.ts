import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { eachLine } from '../core/lines.ts';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Issue 35: what a comparison of two readings of a whole list keeps in memory. Each reading's
 * prints (a record's key and fingerprint) go to a file as they come; in memory stay, per group
 * (the list or singleton read), a digest per bucket of keys (the XOR of a digest of each key and
 * print in it): two readings whose bucket digests agree hold the same records with the same
 * prints there. Only the buckets that differ are read back from the files, record by record. A
 * comparison of a million records keeps the few buckets the run's writes touched.
 */
const BUCKETS = 1 << 16;

/** Two 32-bit string hashes of different families (FNV-1a, a multiply-rotate mix): together a 64-bit key, with no object per key. */
export function hashPair(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  b = Math.imul(b ^ (b >>> 15), 0x27d4eb2d);
  return [a >>> 0, (b ^ (b >>> 16)) >>> 0];
}

const bucketOf = (key: string) => hashPair(key)[0] & (BUCKETS - 1);

/** The folder of a run's readings, beside its journal in the report directory: the run removes it at its end (removeReadings), and a run cut off harder leaves it there, not in the machine's temporary folder. */
export const READINGS_DIR = 'readings';

/**
 * Where a reading's file goes: the run's readings folder when the run has a journal, else a
 * folder of this thread's own, removed when it exits. Named by thread: a run's main thread and
 * its suites' thread write in one folder.
 */
function folderFor(journalFile: string | undefined): string {
  if (journalFile !== undefined) {
    const made = join(dirname(journalFile), READINGS_DIR);
    mkdirSync(made, { recursive: true });
    return made;
  }
  if (ownFolder === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'scr-prints-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    ownFolder = made;
  }
  return ownFolder;
}
let ownFolder: string | undefined;
let files = 0;

/** Takes away the run's readings (the run's end, whatever way it ended). */
export function removeReadings(journalFile: string): void {
  rmSync(join(dirname(journalFile), READINGS_DIR), { recursive: true, force: true });
}

/** A reading: keys with their prints, in a file (line: [key, print, group]), and the bucket digests in memory. */
export class PrintFile {
  readonly file: string;
  private readonly digests = new Map<string, Uint32Array>();
  private fd: number | undefined;
  private buffered: string[] = [];
  private bufferedChars = 0;
  size = 0;

  /** `at`: the run's journal (the reading goes to its readings folder), or a file of its own; `keep`: an existing file to read, not write. */
  constructor(at: { journalFile?: string } | string, keep = false) {
    this.file = typeof at === 'string' ? at : join(folderFor(at.journalFile), `reading-${process.pid}-${threadId}-${++files}.jsonl`);
    if (!keep) this.fd = openSync(this.file, 'w');
  }

  /** A file written before (by this process or another): its digests taken again from its lines; other lines (not arrays) go to `other`. */
  static load(file: string, other?: (value: unknown) => void): PrintFile {
    const prints = new PrintFile(file, true);
    eachLine(file, (text) => {
      const value = JSON.parse(text) as unknown;
      if (Array.isArray(value)) prints.digest(...(value as [string, string, string]));
      else other?.(value);
    });
    return prints;
  }

  add(key: string, print: string, group = ''): void {
    this.digest(key, print, group);
    this.line(JSON.stringify([key, print, group]));
  }

  /** A line of another kind, kept in the file (the baseline's roots). */
  line(text: string): void {
    this.buffered.push(text);
    this.bufferedChars += text.length;
    if (this.bufferedChars > 1 << 20) this.flush();
  }

  private digest(key: string, print: string, group: string): void {
    let d = this.digests.get(group);
    if (!d) this.digests.set(group, (d = new Uint32Array(BUCKETS * 2)));
    const h = createHash('sha1').update(key).update('\u0000').update(print).digest();
    const b = bucketOf(key) * 2;
    d[b] ^= h.readUInt32LE(0);
    d[b + 1] ^= h.readUInt32LE(4);
    this.size += 1;
  }

  private flush(): void {
    if (this.fd === undefined || !this.buffered.length) return;
    writeSync(this.fd, `${this.buffered.join('\n')}\n`);
    this.buffered = [];
    this.bufferedChars = 0;
  }

  /** Done writing: the file is whole. */
  close(): this {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return this;
  }

  remove(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  /**
   * The records of the buckets where two readings differ, in `groups` (all when not given), and
   * those of the buckets of the keys `also`: each reading's prints there, by key. Every key
   * outside these buckets has the same print in both.
   */
  static differing(a: PrintFile, b: PrintFile, groups?: string[], also: Iterable<string> = []): [Map<string, string>, Map<string, string>] {
    const dirty = new Set<number>();
    for (const g of groups ?? new Set([...a.digests.keys(), ...b.digests.keys()])) {
      const [x, y] = [a.digests.get(g), b.digests.get(g)];
      for (let i = 0; i < BUCKETS; i++) if ((x?.[2 * i] ?? 0) !== (y?.[2 * i] ?? 0) || (x?.[2 * i + 1] ?? 0) !== (y?.[2 * i + 1] ?? 0)) dirty.add(i);
    }
    for (const key of also) dirty.add(bucketOf(key));
    return [a.among(dirty), b.among(dirty)];
  }

  /** Every key with its print, read back from the file. */
  each(visit: (key: string, print: string) => void): void {
    this.flush();
    eachLine(this.file, (text) => {
      const value = JSON.parse(text) as unknown;
      if (Array.isArray(value)) visit(value[0] as string, value[1] as string);
    });
  }

  /** The prints of the keys in these buckets. */
  private among(buckets: Set<number>): Map<string, string> {
    const found = new Map<string, string>();
    if (!buckets.size) return found;
    this.flush();
    eachLine(this.file, (text) => {
      const value = JSON.parse(text) as unknown;
      if (Array.isArray(value) && buckets.has(bucketOf(value[0] as string))) found.set(value[0] as string, value[1] as string);
    });
    return found;
  }
}
