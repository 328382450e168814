import { hashPair } from './print-buckets.ts';

/** The share of slots taken before the table grows: linear probing stays short (~2 probes a hit) up to it. */
const LOAD = 0.7;
/** A value kept beside the table (a page number past what 16 bits hold: a list of more than 65 534 pages). */
const ASIDE = 0xffff;

/**
 * The ids of a long list, each with a small number (the page it was on), in 10 bytes a slot (14 to
 * 29 an id: the table is 70 % full at most, and made at the size the list had) rather than a
 * string and a map entry (issue 35: a million ids in about 15 MB). An id is kept as a 64-bit digest
 * (hashPair): two ids taken for one has a chance of about n²/2^65, one in 30 million for a million
 * ids, against which the suite would call a record named twice or listed.
 */
export class DigestMap {
  private lo: Uint32Array;
  private hi: Uint32Array;
  /** The value plus one: 0 marks an empty slot, ASIDE one whose value is in `aside`. */
  private values: Uint16Array;
  private aside = new Map<number, number>();
  size = 0;

  /** `expected`: about how many ids it will hold (a list's length when last read), so that it is made at its size and never grown (growing holds both sizes at once). */
  constructor(expected = 0) {
    const slots = Math.max(1 << 10, Math.ceil((expected * 1.02) / LOAD));
    [this.lo, this.hi, this.values] = [new Uint32Array(slots), new Uint32Array(slots), new Uint16Array(slots)];
  }

  /** The slot of the digest: where it is, or the empty one where it goes. */
  private slot(lo: number, hi: number): number {
    const slots = this.values.length;
    let i = ((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0) % slots;
    while (this.values[i] !== 0 && (this.lo[i] !== lo || this.hi[i] !== hi)) i = i + 1 === slots ? 0 : i + 1;
    return i;
  }

  get(key: string): number | undefined {
    const [lo, hi] = hashPair(key);
    const i = this.slot(lo, hi);
    const v = this.values[i];
    return v === 0 ? undefined : v === ASIDE ? this.aside.get(i) : v - 1;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value = 0): this {
    const [lo, hi] = hashPair(key);
    const i = this.slot(lo, hi);
    if (this.values[i] === 0) this.size += 1;
    this.put(i, lo, hi, value);
    if (this.size > this.values.length * LOAD) this.grow();
    return this;
  }

  private put(i: number, lo: number, hi: number, value: number): void {
    [this.lo[i], this.hi[i]] = [lo, hi];
    if (value + 1 < ASIDE) {
      this.values[i] = value + 1;
      this.aside.delete(i);
    } else {
      this.values[i] = ASIDE;
      this.aside.set(i, value);
    }
  }

  private grow(): void {
    const [lo, hi, values, aside] = [this.lo, this.hi, this.values, this.aside];
    this.lo = new Uint32Array(values.length * 2);
    this.hi = new Uint32Array(values.length * 2);
    this.values = new Uint16Array(values.length * 2);
    this.aside = new Map();
    for (let j = 0; j < values.length; j++) {
      if (values[j] === 0) continue;
      this.put(this.slot(lo[j], hi[j]), lo[j], hi[j], values[j] === ASIDE ? aside.get(j)! : values[j] - 1);
    }
  }
}
