/** What spec/explore-proof.json holds (written by scripts/explore-proof.ts), and the share it gives. */
export interface ProofEntry {
  observable: boolean;
  /** Why exploration could not show this fault, when it could not. */
  why?: string;
  /** The seeds on which an EXPLORE-* check failed, and which. */
  found: Record<string, string[]>;
}
export interface Proof {
  budget: number;
  seeds: number[];
  faults: Record<string, ProofEntry>;
}

/** Of the observable faults: found on every seed, on any, and on each seed. */
export function proofShare(p: Proof) {
  const entries = Object.values(p.faults);
  const observable = entries.filter((e) => e.observable);
  return {
    observable: observable.length,
    everySeed: observable.filter((e) => p.seeds.every((s) => e.found[String(s)])).length,
    anySeed: observable.filter((e) => Object.keys(e.found).length).length,
    perSeed: p.seeds.map((s) => observable.filter((e) => e.found[String(s)]).length),
    foundUnobservable: entries.filter((e) => !e.observable && Object.keys(e.found).length).length,
  };
}
