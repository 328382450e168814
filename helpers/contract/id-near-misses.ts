/**
 * Near misses of a record's id in the path ({id}, section 4), each made from an id the target
 * gave: the id with a character after it or before it (`1x`, `x1`: another id, which names no
 * record), with a leading zero or its letters in another case (`01`, `CUS_1`: maybe the same id
 * written another way, since a target may canonicalise ids; never another record's).
 */
export interface IdMiss {
  name: 'suffix' | 'prefix' | 'leading-zero' | 'other-case';
  description: string;
  /** Whether the target may take it for the id it was made from (canonical forms). */
  canonical: boolean;
  of(id: unknown): { id: string } | { unavailable: string };
}

export const ID_NEAR_MISSES: IdMiss[] = [
  { name: 'suffix', description: 'the id with a character after it', canonical: false, of: (id) => ({ id: `${String(id)}x` }) },
  { name: 'prefix', description: 'the id with a character before it', canonical: false, of: (id) => ({ id: `x${String(id)}` }) },
  {
    name: 'leading-zero', description: 'the id with a zero before its number', canonical: true,
    // The number of an id that ends in one ("7", "cus_000007"); else a zero before the whole id.
    of: (id) => ({ id: /^\D*\d+$/.test(String(id)) ? String(id).replace(/(\d+)$/, '0$1') : `0${String(id)}` }),
  },
  {
    name: 'other-case', description: 'the id with its letters in another case', canonical: true,
    of: (id) => {
      const text = String(id);
      const swapped = [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
      return swapped === text ? { unavailable: `the id ${text} has no letters whose case could change` } : { id: swapped };
    },
  },
];
