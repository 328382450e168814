import { is2xx, type ApiClient } from '../http/client.ts';
import { customerFixture, markerBase, markerField } from '../records/fixtures.ts';
import { markedRecords, markedRows, markedValue, type MarkedRecord } from '../records/run-marker.ts';
import { ListBroken } from '../records/list-reader.ts';
import type { Journal } from './journal.ts';
import type { Row } from '../contract/record.ts';
import { recordIn } from '../contract/record-in.ts';
import type { TargetConfig } from '../config/target.ts';
import { resourceOps } from '../contract/resource-ops.ts';
import type { Spec } from '../contract/spec.ts';

/**
 * A run's lease on the target: the one place of its own the contract lets a run keep there is a
 * record it creates, so the lease is a customer, marked like the run's others, whose marker field
 * ends in `lease-<epoch seconds>`: when the run last said it is going. The run refreshes it every
 * LEASE_BEAT_MS; a lease not refreshed for LEASE_TTL_MS stands for a run that was stopped hard.
 * A second run that finds a live lease stops before changing anything; the sweep leaves a live
 * run's customers alone.
 */
export const LEASE_BEAT_MS = 20_000;
/** Six beats: a beat held up by a rate-limited target (retries honour Retry-After) is not a dead run. */
export const LEASE_TTL_MS = 120_000;
const LABEL = /^lease-(\d{9,11})$/;

export const leaseLabel = (now = Date.now()) => `lease-${Math.floor(now / 1000)}`;

/** A lease found on the target: the run, its customer, and when the run last refreshed it (epoch ms). */
export interface SeenLease {
  runId: string;
  path: string;
  seenAt: number;
}

/** The lease a marked customer carries, if its marker field is a lease's (see markedValue). */
export function leaseOf(record: MarkedRecord): SeenLease | undefined {
  const label = record.value.slice(record.value.lastIndexOf(record.runId) + record.runId.length).trim();
  const m = LABEL.exec(label);
  return m ? { runId: record.runId, path: record.path, seenAt: Number(m[1]) * 1000 } : undefined;
}

export const isLive = (lease: SeenLease, now = Date.now()) => now - lease.seenAt < LEASE_TTL_MS;

/** "12 s ago", or "just now" for a clock ahead of this one. */
export const seenAgo = (lease: SeenLease, now = Date.now()) => (now <= lease.seenAt ? 'just now' : `${Math.round((now - lease.seenAt) / 1000)} s ago`);

/** The latest lease of each run among marked customers. */
export function leasesByRun(marked: MarkedRecord[]): Map<string, SeenLease> {
  const leases = new Map<string, SeenLease>();
  for (const lease of marked.map(leaseOf)) {
    if (lease && lease.seenAt > (leases.get(lease.runId)?.seenAt ?? -Infinity)) leases.set(lease.runId, lease);
  }
  return leases;
}

/** Where leases are kept: the customers' list, and how their marker reads. */
export interface LeasePlace {
  listPath: string;
  field: string;
  base: string;
  idField: string;
}

export function leasePlace(spec: Spec, target: TargetConfig): LeasePlace | undefined {
  const field = markerField(target);
  const listPath = resourceOps(spec, 'customers').list?.path;
  return field && listPath ? { listPath, field, base: markerBase(target), idField: target.vendor.idField } : undefined;
}

/** The live leases of other runs among listed customers. */
export function othersLive(rows: Row[], place: LeasePlace, runId: string, now = Date.now()): SeenLease[] {
  return liveOthers(markedRows(rows, place.listPath, place.field, place.base, place.idField), runId, now);
}

const liveOthers = (marked: MarkedRecord[], runId: string, now: number) => [...leasesByRun(marked).values()].filter((l) => l.runId !== runId && isLive(l, now));

/**
 * The look-up of other runs' leases as one more reader of a whole read of the customers taken
 * anyway at that moment (the baseline's): one read of a long list, not two. `row` hears each
 * customer listed; `live`, once that read ended whole, gives what liveLeasesOfOthers would have,
 * as of `now` (when the read began).
 */
export function leaseLookUp(place: LeasePlace, runId: string, now = Date.now()): { row: (row: Row) => void; live: () => SeenLease[] } {
  const marked: MarkedRecord[] = [];
  return {
    row: (row) => void marked.push(...markedRows([row], place.listPath, place.field, place.base, place.idField)),
    live: () => liveOthers(marked, runId, now),
  };
}

/** The live leases of other runs, read from every page of the list; throws, saying why, when it cannot be read whole. */
export async function liveLeasesOfOthers(client: ApiClient, place: LeasePlace, runId: string, now = Date.now()): Promise<SeenLease[]> {
  return liveOthers(await markedRecords(client, client.target, place.listPath, place.field, place.base), runId, now);
}

/**
 * `none`: no lease now (no answer, a redirect, the key refused, "not now", a server error, the
 * suite's own limit): the run writes nothing. `unheld`: the implementation itself answered that
 * its customer list or create does not work as the contract says (a missing route, a list that is
 * no list): no run can hold a lease on it, its checks judge that, and the run goes on, warned.
 */
export type Taken = { lease: Lease } | { busy: SeenLease } | { none: string } | { unheld: string };

/** An answer in which the implementation says it does not do what was asked, the same for every run and every moment. */
const refusedByImplementation = (status: number) => status >= 400 && status < 500 && ![401, 403, 407, 408, 429].includes(status);
/** What a look-up that failed says: the implementation's own breach of the list, or no lease now. */
const lookUpFailed = (e: unknown, doing: string): Taken =>
  e instanceof ListBroken && (e.status === undefined || refusedByImplementation(e.status)) ? { unheld: `${doing}: ${e.message}` } : { none: `${doing}: ${(e as Error).message}` };

/** This run's lease: taken once before the suites, refreshed while they run, given up last. */
export class Lease {
  private beating?: Promise<unknown>;

  private constructor(
    private readonly client: ApiClient,
    private readonly target: TargetConfig,
    private readonly place: LeasePlace,
    readonly path: string,
  ) {}

  /**
   * Takes the lease: another run's live lease means that run is going (`busy`, nothing written).
   * Else this run's lease is created and the list read again: a run that started at the same
   * moment may have created its own meanwhile, and then this one gives way (`busy`; the caller's
   * clean-up deletes its lease). Both may give way; neither ever goes on beside the other. A create
   * answered without its id, or not answered at all, may still have made the lease: the list read
   * again shows it by its marker. `none` and `unheld` say why no lease could be taken (see Taken).
   */
  static async take(client: ApiClient, target: TargetConfig, place: LeasePlace | undefined, journal: Journal, looked?: ReturnType<typeof liveLeasesOfOthers>): Promise<Taken> {
    if (!place) return { none: 'the customer fixture has no marker field to carry one (markerField in the vendor config)' };
    try {
      // `looked`: the first look-up, already read (it only reads), e.g. in the baseline's read.
      const first = await (looked ?? liveLeasesOfOthers(client, place, target.runId));
      if (first.length) return { busy: first[0] };
    } catch (e) {
      return lookUpFailed(e, 'looking for other runs\' leases');
    }
    const sent = customerFixture(target, leaseLabel(), 'lease');
    const created = await client.send({ method: 'POST', path: place.listPath, body: sent }).catch((e: Error) => e);
    if (!(created instanceof Error) && !is2xx(created)) {
      const why = `creating it (POST ${place.listPath}) answered ${created.status}`;
      return refusedByImplementation(created.status) ? { unheld: why } : { none: why };
    }
    const id = created instanceof Error ? undefined : recordIn(created.json, place.idField, { sent })?.[place.idField];
    let marked: MarkedRecord[];
    try {
      marked = await markedRecords(client, target, place.listPath, place.field, place.base);
    } catch (e) {
      return lookUpFailed(e, 'reading the leases again after creating this run\'s');
    }
    const path = id === undefined || id === null ? leasesByRun(marked).get(target.runId)?.path : `${place.listPath}/${encodeURIComponent(String(id))}`;
    if (path) journal.append({ kind: 'lease', path });
    const meanwhile = liveOthers(marked, target.runId, Date.now());
    if (meanwhile.length) return { busy: meanwhile[0] };
    if (!path) return { none: `creating it (POST ${place.listPath}) ${created instanceof Error ? `got no answer (${created.message})` : `answered ${created.status} without its id`}, and the list does not show it` };
    return { lease: new Lease(client, target, place, path) };
  }

  /** Says the run is still going; a beat still out is not doubled, and a failed one waits for the next. */
  beat(): void {
    this.beating ??= this.client
      .send({ method: 'PATCH', path: this.path, body: { [this.place.field]: markedValue(this.place.base, this.target.runId, leaseLabel()) } })
      .catch(() => undefined)
      .finally(() => (this.beating = undefined));
  }

  /** Waits for a beat still out: the clean-up deletes the lease after it. */
  async settled(): Promise<void> {
    await this.beating;
  }
}
