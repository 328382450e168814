import { is2xx, type ApiClient } from '../http/client.ts';
import { customerFixture, markerBase, markerField } from '../records/fixtures.ts';
import { markedRecords, markedRows, markedValue, type MarkedRecord } from '../records/run-marker.ts';
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

/** The live leases of other runs, read from every page of the list; throws, saying why, when it cannot be read whole. */
export async function liveLeasesOfOthers(client: ApiClient, place: LeasePlace, runId: string, now = Date.now()): Promise<SeenLease[]> {
  return liveOthers(await markedRecords(client, client.target, place.listPath, place.field, place.base), runId, now);
}

export type Taken = { lease: Lease } | { busy: SeenLease } | { none: string };

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
   * clean-up deletes its lease). Both may give way; neither ever goes on beside the other. `none` says why no lease
   * could be taken (no marker field, a create or a list that did not work): the run goes on
   * without one, as runs did before leases.
   */
  static async take(client: ApiClient, target: TargetConfig, place: LeasePlace | undefined, journal: Journal, looked?: ReturnType<typeof liveLeasesOfOthers>): Promise<Taken> {
    if (!place) return { none: 'the customer fixture has no marker field to carry a lease' };
    try {
      // `looked`: the first look-up, already sent (it only reads), e.g. beside the baseline.
      const first = await (looked ?? liveLeasesOfOthers(client, place, target.runId));
      if (first.length) return { busy: first[0] };
      const sent = customerFixture(target, leaseLabel(), 'lease');
      const answer = await client.send({ method: 'POST', path: place.listPath, body: sent });
      const id = is2xx(answer) ? recordIn(answer.json, place.idField, { sent })?.[place.idField] : undefined;
      if (id === undefined || id === null) return { none: `creating the lease (a customer) answered ${answer.status}${is2xx(answer) ? ' without its id' : ''}` };
      const path = `${place.listPath}/${encodeURIComponent(String(id))}`;
      journal.append({ kind: 'lease', path });
      const lease = new Lease(client, target, place, path);
      const meanwhile = await liveLeasesOfOthers(client, place, target.runId);
      return meanwhile.length ? { busy: meanwhile[0] } : { lease };
    } catch (e) {
      return { none: (e as Error).message };
    }
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
