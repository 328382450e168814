import { isDeepStrictEqual } from 'node:util';
import { is2xx } from '../http/basics.ts';
import type { Row } from '../contract/record.ts';
import { sameValue } from './equivalence.ts';
import { serverFields } from './server-fields.ts';

/** Whether a read shows a field at the value sent, or a form equivalent to it (see equivalence.ts): fields are not shown, so null may also read back absent. */
export const showsValue = (read: Row, name: string, value: unknown) => (value === null && !(name in read)) || sameValue(value, read[name]);

/**
 * What a lane knows of one record it writes to, so that a reading older than that is read again
 * (see converge) instead of judged. The contract promises neither read-your-writes nor monotonic
 * reads: behind a load balancer one read may show a write and the next one not yet, and a copy
 * further behind may even show the record as it was before the run. A reading is taken as
 * current when it shows the last update the target took, or, with none taken since, when it is
 * as the record was last known; else it is read again, within the window, and the last reading
 * is judged either way.
 */
export class RecordHistory {
  /** The reading judged by last; unknown until read, after an update taken, or one without an answer. */
  private expected?: Row;
  /** The last update the target took, and the record as known before it. */
  private effect?: { body: Row; before?: Row };
  /** Every value each field held in a reading judged by, or was sent (see shows). */
  private readonly held = new Map<string, unknown[]>();
  /** The fields every reading judged by carried (see novel). */
  private carried?: Set<string>;

  /**
   * `names`: the fields compared, when they are known (documented): one a reading carries and
   * another does not differs there (a field read back absent once null). Without them, the fields
   * both readings carry but those the target moves by itself on `resource` (see ServerFields): a
   * list may show less of a record than a find.
   */
  constructor(
    private readonly names?: () => string[],
    private readonly resource?: string,
  ) {}

  /** Whether a field the target moves by itself (never compared). */
  private server(f: string): boolean {
    return this.resource !== undefined && serverFields().has(this.resource, f);
  }

  /** Whether `now` is no older than what is known (see the class). */
  current(now: Row): boolean {
    if (this.effect) return this.shows(this.effect, now);
    return !this.expected || this.differing(this.expected, now).length === 0;
  }

  /**
   * Whether no reading could tell itself apart from an older one by its content: no update taken
   * since the last reading judged by (a refusal changes nothing, and an older copy shows the same),
   * or one that wrote only values held before (a restore). Such a reading is asked for once reads
   * no longer lag the last write (see quiesce), so that an older copy does not pass for proof.
   */
  get indistinct(): boolean {
    const effect = this.effect;
    return !effect || Object.entries(effect.body).every(([f, v]) => this.wasHeld(f, v));
  }

  /**
   * Whether a reading shows what no state of the record this lane knows of held: a value never read
   * nor sent, or no value for a field every reading carried. No copy, however far behind, shows
   * that: it is the record as the target has it, whatever the lag, and is judged as it is.
   */
  novel(now: Row): boolean {
    const compared = (f: string) => !this.server(f) && (!this.names || this.names().includes(f));
    if (Object.keys(now).some((f) => compared(f) && !this.wasHeld(f, now[f]))) return true;
    return [...(this.carried ?? [])].some((f) => compared(f) && !(f in now));
  }

  /** Whether a reading may be an older copy's: not current, and nothing in it is novel. */
  older(now: Row): boolean {
    return !this.current(now) && !this.novel(now);
  }

  /** A reading judged by: what is known of the record from now on. */
  took(now: Row): void {
    this.carried = new Set(Object.keys(now).filter((f) => !this.carried || this.carried.has(f)));
    this.expected = now;
    this.remember(now);
    if (this.effect) this.remember(this.effect.body);
    this.effect = undefined;
  }

  /**
   * Sends an update of the record through `send`. Taken (2xx): a read is current once it shows
   * it. Refused: the record stands as known (what a check of the refusal judges). Unanswered:
   * applied or not, the record is not known until read again.
   */
  async write<A extends { status: number }>(body: Row, send: () => Promise<A>): Promise<A> {
    const before = this.expected;
    let answer: A;
    try {
      answer = await send();
    } catch (e) {
      this.expected = undefined;
      this.effect = undefined;
      this.remember(body);
      throw e;
    }
    if (is2xx(answer)) {
      this.effect = { body, before };
      this.expected = undefined;
    } else this.remember(body);
    return answer;
  }

  /**
   * Whether an update the target took shows in a reading. Either a field sent holds a value it
   * never held before (the value sent, or the target's own form of it): no earlier state of the
   * record holds that. Or the record is as the update makes it from the record before: a write
   * of values held before (a write-back, a restore, a boolean set back) shows no other way, since
   * an older reading may hold them too. A field a reading does not carry (a list that shows less
   * than a find) is not compared.
   */
  private shows(effect: { body: Row; before?: Row }, now: Row): boolean {
    const sent = Object.keys(effect.body);
    if (sent.some((f) => f in now && !this.wasHeld(f, now[f]))) return true;
    if (!sent.every((f) => (!this.names && !(f in now)) || showsValue(now, f, effect.body[f]))) return false;
    return !effect.before || this.differing(effect.before, now).filter((f) => !(f in effect.body)).length === 0;
  }

  /** The fields compared (see the constructor) that differ. */
  private differing(then: Row, now: Row): string[] {
    if (this.names) return this.names().filter((k) => k in then !== k in now || !isDeepStrictEqual(then[k], now[k]));
    return Object.keys(now).filter((k) => !this.server(k) && k in then && !isDeepStrictEqual(then[k], now[k]));
  }

  private remember(row: Row): void {
    for (const [field, value] of Object.entries(row)) {
      if (!this.wasHeld(field, value)) this.held.set(field, [...(this.held.get(field) ?? []), value]);
    }
  }

  private wasHeld(field: string, value: unknown): boolean {
    return (this.held.get(field) ?? []).some((v) => isDeepStrictEqual(v, value));
  }
}
