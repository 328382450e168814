import { isDeepStrictEqual } from 'node:util';
import { is2xx, NoAnswerError, type ApiClient } from '../http/client.ts';
import { businessRecordIn, pick, type Row } from '../resources/record-shapes.ts';

/** A record the run could not leave as it found it, and why: the report's last section. */
export interface LeftOnTarget {
  record: string;
  problem: string;
}

export interface Restoration {
  /** Fields written back (empty when the record already held its earlier values). */
  restored: string[];
  problem?: string;
}

/**
 * Puts `fields` of the record at `path` back to their values in `before`: reads it, writes back
 * only the fields that differ (one request; one per field if the target refuses them together),
 * and verifies by reading it back. If that was not enough, all of `fields` are written at once
 * (a target that replaces the record keeps only what it is sent) and verified again.
 */
export async function restoreRecord(client: ApiClient, path: string, before: Row, fields: Iterable<string>): Promise<Restoration> {
  try {
    const unknown = [...fields].filter((f) => !(f in before));
    const known = [...fields].filter((f) => f in before);
    const differing = async () => {
      const now = await client.send({ method: 'GET', path });
      // The record itself, or the one property of the answer holding these fields (an envelope).
      const read = is2xx(now) ? businessRecordIn(now.json, known) : undefined;
      if (!read || !('record' in read)) throw new Error(`reading it back answered ${now.status}`);
      const current = read.record;
      return known.filter((f) => !isDeepStrictEqual(current[f], before[f]));
    };
    const changed = await differing();
    if (changed.length) {
      const all = await client.send({ method: 'PATCH', path, body: pick(before, changed) });
      if (!is2xx(all) && changed.length > 1) {
        for (const f of changed) await client.send({ method: 'PATCH', path, body: pick(before, [f]) });
      }
    }
    let still = changed.length ? await differing() : [];
    if (still.length) {
      await client.send({ method: 'PATCH', path, body: pick(before, known) });
      still = await differing();
    }
    const problems = [
      ...(still.length ? [`${still.join(', ')} still differ${still.length === 1 ? 's' : ''} from before the run after writing ${still.length === 1 ? 'it' : 'them'} back`] : []),
      ...(unknown.length ? [`${unknown.join(', ')} written by the run, value before the run unknown`] : []),
    ];
    return { restored: changed.filter((f) => !still.includes(f)), problem: problems.join('; ') || undefined };
  } catch (e) {
    return { restored: [], problem: e instanceof NoAnswerError || e instanceof Error ? e.message : String(e) };
  }
}
