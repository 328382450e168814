/**
 * Sections 2, 4, 5 and 7: the business record — retrieval, partial update field by field, and
 * the 401 matrix. Everything is derived from the spec: its business operations, whether they are
 * secured, and the fields of the update schema with their documented types.
 *
 * The record is a singleton, so this file is one ordered lane: checks run one after another,
 * each step reading what the previous one left. The record is snapshotted before the first
 * change and restored and verified after the last, also when checks fail.
 */
import { isDeepStrictEqual } from 'node:util';
import { asBlocked, Blocked, outline, type CheckRun, type Registry } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { concurrentSteps, sharedStep } from '../checks/shared-step.ts';
import { dependsOnUnselected, selects } from '../core/selection.ts';
import { is2xx, TurnedAway, type Answer, type ApiClient, type Auth } from '../http/client.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { Interference } from '../safety/interference.ts';
import { journalledClient } from '../safety/journal.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { leasePlace } from '../safety/lease.ts';
import { headerNearMisses } from '../http/authorization.ts';
import { recordValuesShown } from '../checks/disclosure.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { businessOps } from '../contract/resource-ops.ts';
import type { CheckId, MustRequirementId } from '../contract/catalog.ts';
import { type Row } from '../contract/record.ts';
import { windowOf } from '../core/converge.ts';
import { changedFieldNames } from '../records/compare.ts';
import { runIdsIn } from '../records/run-marker.ts';
import { BusinessLane } from '../resources/business-lane.ts';
import { candidateValues, hasDocumentedType, jsonType, namedBusinessFields, typeBoundaries, type NamedField } from '../resources/business-values.ts';

/** The lane's client and record, opened in the suite worker only. */
interface Opened {
  client: ApiClient;
  record: BusinessLane;
}

/**
 * The checks of this registry share the record's lane and what each step did (the update step of a
 * field, the refused requests): state of one registry instance, built per run, never module state.
 */
export function businessChecks(spec: Spec, target: TargetConfig): Registry<Opened> {
  let client!: ApiClient;
  let record!: BusinessLane;
  const entries = outline<Opened>(({ group: describe, check }) => {
    const { retrieve: retrieveOp, update: updateOp } = businessOps(spec);
    const fields = namedBusinessFields(spec, target);
    const vendorValues = target.vendor.businessValues;
    const show = (v: unknown) => JSON.stringify(v) ?? 'nothing';
    const patchText = (body: Row) => `${updateOp.method} ${updateOp.path} ${show(body)}`;

    /**
     * Sends one update and confirms it with a read: status 200, and the field reads back as sent.
     * The retrieval's fields are not shown, so a field sent as null may also read back absent.
     */
    async function setAndConfirm(name: string, value: unknown): Promise<void> {
      const body = { [name]: value };
      const answer = await record.update(body);
      ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
      const after = await record.read();
      const read = value === null && !(name in after) ? null : after[name];
      ensure(isDeepStrictEqual(read, value), `after ${patchText(body)}, ${name} reads back ${show(after[name])}`);
    }

    // --- Retrieval ----------------------------------------------------------------------------

    let retrieval: Promise<Answer> | undefined;
    const retrieved = () => (retrieval ??= client.call(retrieveOp));
    /**
     * The record in the retrieval's answer, and the envelope property it is read from, if any. BUS-GET-200
     * (no run given) fails when there is none; the checks that read it are blocked by BUS-GET-200 instead.
     */
    async function retrievedRecord(run?: CheckRun): Promise<{ record: Row; from?: string }> {
      const stop = (reason: string): never => {
        if (run) run.blocked('BUS-GET-200', reason);
        throw new Error(reason);
      };
      const answer = await retrieved();
      if (answer.status !== 200) stop(`the retrieval answered ${answer.status}, not 200`);
      if (answer.jsonError) stop(`the retrieval answered 200 with a body that is not JSON (${answer.jsonError})`);
      const read = record.unwrap(answer.json);
      if ('problem' in read) return stop(`the retrieval answered 200, but ${read.problem}${answer.json === null || typeof answer.json !== 'object' || Array.isArray(answer.json) ? ` (${jsonType(answer.json)})` : ''}`);
      return read;
    }

    describe('retrieval', () => {
      check({ id: 'BUS-GET-200', title: `${retrieveOp.method} ${retrieveOp.path} answers 200 with a JSON object` }, async (run) => {
        const answer = await retrieved();
        ensure(answer.status === 200, `${retrieveOp.method} ${retrieveOp.path} answered ${answer.status}`);
        const { from } = await retrievedRecord();
        // Its body is not shown: an envelope such as {"data": {...}} is the target's choice.
        if (from !== undefined) run.note(`the record is read from \`${from}\`${target.vendor.businessEnvelope ? ' (businessEnvelope in the vendor config)' : ', the one property of the answer holding documented fields'}`);
      });

      check({ id: 'BUS-GET-CONTENT-TYPE', title: 'the retrieval is labelled application/json' }, async (run) => {
        const answer = await retrieved();
        // The label of the record's answer: an error page's label proves nothing either way.
        if (answer.status !== 200) run.blocked('BUS-GET-200', `the retrieval answered ${answer.status}, not 200`);
        const type = answer.headers['content-type'];
        ensure(/^application\/json\s*(;|$)/i.test(type ?? ''), `Content-Type is ${show(type)}`);
      });

      for (const { field, name } of fields) {
        check({ id: `BUS-GET-TYPES:${name}`, title: `${name} reads as ${field.types.join(' or ')}` }, async (run) => {
          const business = (await retrievedRecord(run)).record;
          if (!(name in business)) run.notApplicable(`the retrieval does not return ${name}`);
          ensure(hasDocumentedType(field, business[name]), `${name} reads as ${jsonType(business[name])}: ${show(business[name])}`);
        });
      }
    });

    // --- Partial update -------------------------------------------------------------------------

    /** What the update step of a field did, for the checks that judge it. */
    type DoneStep = { before: Row; value: unknown; after?: Row; wrote?: Exchange[]; read?: Exchange; status?: number; refused?: boolean };
    type Step = DoneStep | { notApplicable: string } | { blocked: Blocked };
    const steps = new Map<string, Step>();

    /**
     * A nullable field holding a string goes to null first (read back) and then to its new value in
     * its update step: BUS-UPDATE-NULLABLE judges that pair (null accepted and read back null, then a
     * string accepted and read back), two round trips fewer than a null and a string of its own. The
     * null and its read are NULLABLE's exchanges; the update step's report shows them too, as what
     * its update followed.
     */
    interface NullStep { status?: number; read?: Row; failure?: unknown; exchanges: Exchange[] }
    const nullSteps = new Map<string, NullStep>();
    async function sendNull(name: string): Promise<void> {
      const step: NullStep = { exchanges: [] };
      nullSteps.set(name, step);
      await withExchangeLog(step.exchanges, async () => {
        try {
          step.status = (await record.update({ [name]: null })).status;
          step.read = await record.read();
        } catch (e) {
          if (e instanceof Interference) throw e;
          // NULLABLE throws it when judged: a refusal to the end (TurnedAway) blocks it, as its own request would.
          step.failure = e;
        }
      });
    }

    /** Whether some field has shown that null is accepted and read back: until then, a field that is
     *  null on the target is not changed, since putting null back might not work. */
    let nullProven = false;
    function nullGate({ field, name }: NamedField): string | undefined {
      if (!field.nullable || record.before()[name] !== null || nullProven) return undefined;
      return `${name} is null on the target and no field has yet shown that null is accepted and read back (BUS-UPDATE-NULLABLE): changing it might not be undoable`;
    }

    function stepOf(name: string, run: CheckRun): DoneStep {
      record.stopIfInterfered();
      const step = steps.get(name);
      // Only when --only left the step out: the step check records what it did, whatever happened.
      if (!step) return run.notApplicable(dependsOnUnselected(`BUS-UPDATE-200:${name}`));
      if ('notApplicable' in step) run.notApplicable(step.notApplicable);
      if ('blocked' in step) run.blocked(step.blocked.by, `the update of ${name} could not be sent: ${step.blocked.reason}`);
      // The write is what a read-back judges: its report and cURL reproduction show it first.
      for (const e of step.wrote ?? []) recordExchange(e);
      return step;
    }

    /**
     * BUS-UPDATE-NULLABLE from the null its update step sent first: answered 200 and read back null
     * (or absent: the retrieval's fields are not shown); then a string: the step's own, when it was
     * the next write and answered 200 (its read-back is judged), else the field's value from before
     * the run, sent and read back here.
     */
    async function judgeFoldedNull(name: string, folded: NullStep, run: CheckRun): Promise<void> {
      for (const e of folded.exchanges) recordExchange(e);
      const nullBody = { [name]: null };
      if (folded.status === undefined) throw folded.failure;
      ensure(folded.status === 200, `${patchText(nullBody)} answered ${folded.status}`);
      if (!folded.read) throw folded.failure;
      const read = name in folded.read ? folded.read[name] : null;
      ensure(isDeepStrictEqual(read, null), `after ${patchText(nullBody)}, ${name} reads back ${show(folded.read[name])}`);
      const step = steps.get(name);
      if (step && 'before' in step && step.status === 200 && !step.refused) {
        const { value, after } = stepOf(name, run);
        if (step.read) recordExchange(step.read);
        const now = after ?? (await record.read());
        ensure(isDeepStrictEqual(now[name], value), `after null, ${patchText({ [name]: value })} answered 200 and ${name} reads back ${show(now[name])}`);
      } else {
        // Its value from before the run: a string the target holds, so valid on it.
        const original = record.before()[name];
        if (typeof original !== 'string') run.notApplicable(`${name} was not a string before the run, and its update step took no string after the null`);
        await setAndConfirm(name, original);
      }
      nullProven = true;
    }

    const nullableTitle = (name: string) => `${name} accepts null, reads back null, then accepts a string`;

    /** The value of each field the target accepted in its update step: known to be valid. */
    const accepted = new Map<string, unknown>();

    /** A field's current value: from the last read, or the snapshot when the target dropped it. */
    const currentValue = (row: Row, name: string) => (name in row ? row[name] : record.before()[name]);

    describe('update', () => {
      for (const nf of fields) {
        const { name } = nf;
        describe(name, () => {
          check({ id: `BUS-UPDATE-200:${name}`, title: `a body with only ${name} answers 200`, changesData: true }, async (run) => {
            try {
              const why = record.unchangeable(nf) ?? nullGate(nf);
              if (why) {
                steps.set(name, { notApplicable: why });
                run.notApplicable(why);
              }
              // Judged against the record before the null: both updates sent only this field.
              const before = await record.current();
              const current = currentValue(before, name);
              const candidates = candidateValues(nf, vendorValues, current, record.before()[name], target.runId);
              if ('unavailable' in candidates) {
                steps.set(name, { notApplicable: candidates.unavailable });
                return run.notApplicable(candidates.unavailable);
              }
              // The null NULLABLE judges goes first, when that check runs (--only may leave it out).
              if (nf.field.nullable && typeof current === 'string' && selects(target.only, { id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name) })) {
                await sendNull(name);
                // This update follows a null: its own report shows that too.
                for (const e of nullSteps.get(name)?.exchanges ?? []) recordExchange(e);
              }
              // Formats and bounds of values are not shown: a 4xx to a value the suite chose proves
              // nothing, so the next is tried. A 4xx to the target's own value does: it is written
              // back after the first refusal to tell the two apart.
              const refused: string[] = [];
              let ownAccepted = false;
              for (const { value, source } of candidates) {
                const body = { [name]: value };
                steps.set(name, { before, value });
                const answer = await record.update(body);
                if (answer.status < 400 || answer.status >= 500) {
                  steps.set(name, { before, value, wrote: [answer.exchange], status: answer.status, refused: refused.length > 0 });
                  ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
                  accepted.set(name, value);
                  if (refused.length) run.note(`refused before: ${refused.join('; ')}`);
                  return;
                }
                refused.push(`${show(value)} (${source}) answered ${answer.status}`);
                if (!ownAccepted) {
                  const own = { [name]: current };
                  const back = await record.update(own);
                  ensure(back.status === 200, `${patchText(body)} answered ${answer.status}, and so did writing back the value read: ${patchText(own)} answered ${back.status}`);
                  ownAccepted = true;
                }
              }
              const none = `the target refused every value tried for ${name} (${refused.join('; ')}) and accepted its own back: the formats it accepts are not shown (section 2). Give values it accepts in the vendor config: businessValues.${name}`;
              steps.set(name, { notApplicable: none });
              run.notApplicable(none);
            } catch (e) {
              // An update the target turned away did not happen: what depends on it is blocked too.
              if (!steps.has(name) || e instanceof TurnedAway) steps.set(name, { blocked: asBlocked(e, `BUS-UPDATE-200:${name}`) });
              throw e;
            }
          });

          check({ id: `BUS-UPDATE-APPLIES:${name}`, title: `${name} reads back with the value sent`, changesData: true, needs: [`BUS-UPDATE-200:${name}`] }, async (run) => {
            const step = stepOf(name, run);
            step.after = await record.read();
            step.read = record.lastReadExchange;
            ensure(isDeepStrictEqual(step.after[name], step.value), `${name} reads back ${show(step.after[name])} after an update to ${show(step.value)}`);
          });

          check({ id: `BUS-UPDATE-PARTIAL:${name}`, title: `updating ${name} leaves every other field as it was`, changesData: true, needs: [`BUS-UPDATE-200:${name}`] }, async (run) => {
            const step = stepOf(name, run);
            const after = step.after ?? (await record.read());
            const others = record.exposed().map((f) => f.name).filter((n) => n !== name);
            const changed = changedFieldNames(step.before, after, others);
            ensure(changed.length === 0, `updating only ${name} also changed ${changed.join(', ')}`);
          });

          if (nf.field.nullable) {
            check({ id: `BUS-UPDATE-NULLABLE:${name}`, title: nullableTitle(name), changesData: true }, async (run) => {
              const why = record.unchangeable(nf) ?? nullGate(nf);
              if (why) run.notApplicable(why);
              const folded = nullSteps.get(name);
              if (folded) return judgeFoldedNull(name, folded, run);
              const before = await record.current();
              const original = record.before()[name];
              // A string the target is known to accept: its own, or the one its update step took.
              const string = typeof original === 'string' ? original : accepted.get(name);
              if (typeof string !== 'string') run.notApplicable(`${name} was null before the run and no string value of it was accepted (BUS-UPDATE-200:${name})`);
              if (before[name] === null) await setAndConfirm(name, string);
              await setAndConfirm(name, null);
              await setAndConfirm(name, string);
              nullProven = true;
            });
          }

          if (nf.field.types.includes('boolean')) {
            // Both directions: an implementation that treats the value as truthy passes one of them.
            for (const [from, to] of [[true, false], [false, true]] as const) {
              check({ id: `BUS-UPDATE-BOOLEAN:${name}:${from}-to-${to}`, title: `${name} goes from ${from} to ${to}`, changesData: true }, async (run) => {
                const why = record.unchangeable(nf);
                if (why) run.notApplicable(why);
                // The update step may have made this very move: its read-back is judged, not sent again.
                const step = steps.get(name);
                if (step && 'after' in step && step.after && step.status === 200 && currentValue(step.before, name) === from && step.value === to) {
                  for (const e of [...(step.wrote ?? []), ...(step.read ? [step.read] : [])]) recordExchange(e);
                  ensure(isDeepStrictEqual(step.after[name], to), `after ${patchText({ [name]: to })}, ${name} reads back ${show(step.after[name])}`);
                  return;
                }
                if ((await record.current())[name] !== from) {
                  const answer = await record.update({ [name]: from });
                  const now = (await record.read())[name];
                  if (answer.status !== 200 || now !== from) {
                    run.notApplicable(`${name} could not be set to ${from} first (the update answered ${answer.status}, it reads ${show(now)}); the check of the other direction reports that`);
                  }
                }
                await setAndConfirm(name, to);
              });
            }
          }

          // The edges of its type: bounds of values are not shown, so a refusal proves nothing; an
          // update answered 200 must be applied, there as anywhere. A field whose update step's value
          // carries no marker stays at the edge (the next field's step reads the record as it is), and
          // the multi-field update puts it back; a marked value is written back at once.
          for (const edge of typeBoundaries(nf)) {
            check({ id: `BUS-UPDATE-BOUNDARY:${name}:${edge.name}`, title: `${name} set to ${edge.description}, when answered 200, reads back so`, changesData: true }, async (run) => {
              const why = record.unchangeable(nf);
              if (why) run.notApplicable(why);
              const value = edge.valueFrom(record.before()[name]);
              if (value === undefined) run.notApplicable(`${name} read ${show(record.before()[name])} before the run: ${edge.description} cannot be made from it`);
              const body = { [name]: value };
              await record.current();
              const answer = await record.update(body);
              try {
                if (answer.status >= 400 && answer.status < 500) run.notApplicable(`${patchText(body)} answered ${answer.status}: the bounds of ${name} are not shown (section 2)`);
                ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
                const after = await record.read();
                ensure(isDeepStrictEqual(after[name], value), `after ${patchText(body)}, ${name} reads back ${show(after[name])}`);
              } finally {
                // A value carrying this run's marker goes back at once: the marker tells another run,
                // the sweep and the clean-up after interference that the record is this run's doing.
                const marked = accepted.get(name);
                if (typeof marked === 'string' && runIdsIn(marked).includes(target.runId)) await record.update({ [name]: marked });
              }
            });
          }
        });
      }

      // The field checks leave each field they changed at its new value: the values from before the
      // run (the target's own, so valid) of all of them make a body whose every field shows, as large
      // as the record allows (the field checks sent bodies of one field).
      check({ id: 'BUS-UPDATE-MULTI', title: 'a body with every field that can show applies every one of them and leaves the others as they were', changesData: true }, async (run) => {
        const snapshot = record.before();
        const before = await record.current();
        const differing = record.exposed().filter((nf) => !record.unchangeable(nf) && !isDeepStrictEqual(currentValue(before, nf.name), snapshot[nf.name]) && (snapshot[nf.name] !== null || nullProven));
        if (differing.length < 2) run.notApplicable(`fewer than two fields differ from their values before the run (${differing.map((f) => f.name).join(', ') || 'none'}), so no body of several fields would show`);
        const body = Object.fromEntries(differing.map((nf) => [nf.name, snapshot[nf.name]]));
        const answer = await record.update(body);
        ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
        const after = await record.read();
        const unapplied = Object.keys(body).filter((n) => !isDeepStrictEqual(after[n], body[n]) && !(body[n] === null && !(n in after)));
        ensure(unapplied.length === 0, `after ${patchText(body)}: ${unapplied.map((n) => `${n} reads ${show(after[n])}`).join(', ')}`);
        const changed = changedFieldNames(before, after, record.exposed().map((f) => f.name).filter((n) => !(n in body)));
        ensure(changed.length === 0, `updating ${Object.keys(body).join(', ')} also changed ${changed.join(', ')}`);
      });

      // After the fields, when it is known whether null round-trips: writing null back to a target
      // that stores it as something else could not be undone.
      check({ id: 'BUS-UPDATE-WRITEBACK', title: 'the record as read is a valid update and changes nothing', changesData: true }, async (run) => {
        record.before();
        const before = await record.current();
        const body = record.writeBack(before, nullProven);
        // An empty body would pass without proving anything.
        if (!Object.keys(body).length) run.notApplicable('the retrieval exposes no documented field of its documented type to write back');
        const left = record.exposed().filter((f) => !(f.name in body));
        if (left.length) run.note(`not written back (not of their documented type, or null before null was shown to round-trip): ${left.map((f) => f.name).join(', ')}`);
        const answer = await record.update(body);
        ensure(answer.status === 200, `writing back the record as read answered ${answer.status}`);
        const changed = changedFieldNames(before, await record.read(), record.exposed().map((f) => f.name));
        ensure(changed.length === 0, `writing back the record as read changed ${changed.join(', ')}`);
      });

      // Section 2 says so in words, so it is a check of its own.
      const currency = fields.find((f) => f.field.specName === 'currencyIso');
      // With the target's own value, valid whatever currencies it serves (a changed one is BUS-UPDATE-200's).
      check({ id: 'BUS-UPDATE-CURRENCY-ONLY', title: 'a body with only currencyIso, as the target holds it, is a valid update', changesData: true }, async (run) => {
        if (!currency) return run.notApplicable('the spec documents no currencyIso field');
        const why = record.unchangeable(currency);
        if (why) run.notApplicable(why);
        const body = { [currency.name]: currentValue(await record.current(), currency.name) };
        const answer = await record.update(body);
        ensure(answer.status === 200, `${patchText(body)} answered ${answer.status}`);
      });
    });

    // --- Authentication: the 401 matrix ----------------------------------------------------------

    interface AuthCase {
      name: string;
      /** The contract states the 401 (5.2, 7): a MUST, which the type holds to. */
      requirement: MustRequirementId;
      description: string;
      auth?: Auth;
      /** Why the case cannot be tried on this target. */
      unavailable?: string;
      /** Keys the request carries, which a 401 answer must not echo (none for the missing and empty cases). */
      keys: string[];
    }

    const AUTH_CASES: AuthCase[] = [
      { name: 'missing', requirement: 'BUS-AUTH-MISSING', description: 'without an Authorization header', auth: 'none', keys: [] },
      // Every near miss of "Bearer <key>" the grammar gives (helpers/http/authorization.ts).
      ...headerNearMisses(target.apiKey).map((m): AuthCase => ({
        name: m.name, requirement: 'BUS-AUTH-INVALID', description: m.description, unavailable: m.unavailable,
        auth: m.authorization === undefined ? undefined : { authorization: m.authorization }, keys: m.key ? [m.key] : [],
      })),
      {
        name: 'expired-key', requirement: 'BUS-AUTH-EXPIRED', description: 'with an expired key', auth: 'expired',
        unavailable: target.expiredKey ? undefined : 'no expired key was given: set SCHEDULING_EXPIRED_KEY or --expired-key',
        keys: [target.expiredKey ?? ''],
      },
    ];
    /** The case name is part of the check id only where a requirement has several cases. */
    const caseSuffix = (c: AuthCase) => (AUTH_CASES.filter((o) => o.requirement === c.requirement).length > 1 ? `:${c.name}` : '');

    type Refusal = { answer: Answer; before?: Row } | { notApplicable: string } | { blocked: Blocked };
    const refusals = new Map<string, Refusal>();

    function refusalOf(key: string, checkId: string, run: CheckRun): { answer: Answer; before?: Row } {
      record.stopIfInterfered();
      const refusal = refusals.get(key);
      // Only when --only left the request's check out: that check records what it did, whatever happened.
      if (!refusal) return run.notApplicable(dependsOnUnselected(checkId));
      if ('notApplicable' in refusal) run.notApplicable(refusal.notApplicable);
      if ('blocked' in refusal) run.blocked(refusal.blocked.by, `the request could not be sent: ${refusal.blocked.reason}`);
      return refusal;
    }

    /**
     * An update that would show if applied: for the first field that can be changed and restored, a
     * value the target accepted in its update step (or, if none did, the first value to try).
     */
    function probeBody(before: Row): Row {
      const changeable = record.exposed().filter((nf) => !record.unchangeable(nf) && !nullGate(nf));
      for (const nf of changeable) {
        if (accepted.has(nf.name) && !isDeepStrictEqual(accepted.get(nf.name), currentValue(before, nf.name))) return { [nf.name]: accepted.get(nf.name) };
      }
      for (const nf of changeable) {
        const candidates = candidateValues(nf, vendorValues, currentValue(before, nf.name), record.before()[nf.name], target.runId);
        if (!('unavailable' in candidates)) return { [nf.name]: candidates[0].value };
      }
      throw new Blocked('BUS-UPDATE-200', 'no field of the record can be changed and restored (the retrieval exposes none of the documented fields with its documented type)');
    }

    const secured = [retrieveOp, updateOp].filter((o) => o.secured);
    describe('authentication', () => {
      for (const op of secured) {
        const writes = op !== retrieveOp;
        // A refused request changes nothing, and needs nothing but the record as it stands: the cases
        // this run holds the target to (noted below as they are declared) go out together, updates too.
        const cases: AuthCase[] = [];
        let standing: Promise<Row> | undefined;
        const refused = concurrentSteps(cases, async (c): Promise<{ answer: Answer; before?: Row }> => {
          if (!writes) return { answer: await client.call(op, { auth: c.auth }) };
          // An update needs the snapshot to be undone: without one the request is not sent.
          record.before();
          const before = await (standing ??= record.current());
          return { answer: await record.update(probeBody(before), c.auth), before };
        });
        // One read after every refused update has been answered tells whether any changed the record.
        const afterRefusals = sharedStep(async () => {
          await refused.settled();
          return record.read();
        });
        describe(op.operationId, () => {
          for (const c of AUTH_CASES) {
            const key = `${op.operationId}:${c.name}`;
            const requestCheck: CheckId = `${c.requirement}:${op.operationId}${caseSuffix(c)}`;
            const title = `${op.method} ${op.path} ${c.description} answers 401`;
            if (!c.unavailable && selects(target.only, { id: requestCheck, title })) cases.push(c);
            check({ id: requestCheck, title, changesData: writes }, async (run) => {
              try {
                if (c.unavailable) {
                  refusals.set(key, { notApplicable: c.unavailable });
                  run.notApplicable(c.unavailable);
                }
                const { answer, before } = await refused(c);
                refusals.set(key, { answer, before });
                ensure(answer.status === 401, `${op.method} ${op.path} ${c.description} answered ${answer.status}; the contract gives 401`);
              } catch (e) {
                if (!refusals.has(key)) refusals.set(key, { blocked: asBlocked(e, requestCheck) });
                throw e;
              }
            });

            if (c.keys.length) {
              check({ id: `BUS-AUTH-NO-ECHO:${op.operationId}:${c.name}`, title: `the 401 ${c.description} does not echo the key`, changesData: writes, needs: [requestCheck] }, async (run) => {
                const { answer } = refusalOf(key, requestCheck, run);
                if (answer.status !== 401) run.notApplicable(`the answer was ${answer.status}, not 401`);
                const echoed = c.keys.filter(Boolean).some((k) => answer.text.includes(k) || Object.values(answer.headers).some((v) => v.includes(k)));
                ensure(!echoed, `the 401 answer ${c.description} contains the key that was sent`);
              });
            }

            if (writes) {
              check({ id: `BUS-AUTH-REJECTED-NO-CHANGE:${c.name}`, title: `an update refused ${c.description} changes nothing`, changesData: true, needs: [requestCheck] }, async (run) => {
                const { answer, before } = refusalOf(key, requestCheck, run);
                if (is2xx(answer)) run.notApplicable(`the update was not refused: it answered ${answer.status}`);
                const names = record.exposed().map((f) => f.name);
                // Nothing changed after all of them: this one, refused, changed nothing.
                if (changedFieldNames(before ?? {}, await afterRefusals(), names).length === 0) return;
                // Some update of the lot changed the record; which one, one read cannot tell: this one
                // is sent again alone, between two reads.
                const standingNow = await record.current();
                const again = await record.update(probeBody(standingNow), c.auth);
                if (is2xx(again)) run.notApplicable(`sent again alone, the update was not refused: it answered ${again.status}`);
                const changed = changedFieldNames(standingNow, await record.read(), names);
                ensure(changed.length === 0, `the update refused with ${again.status} changed ${changed.join(', ')}`);
              });
            }
          }

          // Judged by content, not by status: a refusal that carries the record has served it without a key.
          check({ id: `BUS-AUTH-NO-RECORD:${op.operationId}`, title: `no refusal of ${op.method} ${op.path} carries a value of the business record`, changesData: writes }, async (run) => {
            const names = record.exposed().map((f) => f.name);
            const shown: string[] = [];
            let judged = 0;
            for (const c of AUTH_CASES.filter((a) => !a.unavailable)) {
              // A case whose request could not be sent is its own check's to report.
              const refusal = await refused(c).catch(() => undefined);
              if (!refusal || is2xx(refusal.answer)) continue;
              judged += 1;
              const protectedRecord = refusal.before ?? (await record.current());
              const values = recordValuesShown(refusal.answer, protectedRecord, names, refusal.answer.exchange.request.body);
              if (values.length) shown.push(`${c.description} (${refusal.answer.status}): ${values.join(', ')}`);
            }
            if (!judged) run.blocked(`BUS-AUTH-INVALID:${op.operationId}:unknown-key`, 'no request without a valid key was answered with a refusal');
            ensure(shown.length === 0, `refusals of ${op.method} ${op.path} carry values of the business record: ${shown.join('; ')}`);
          });
        });
      }
    });
  });
  const { retrieve: retrieveOp, update: updateOp } = businessOps(spec);
  const fields = namedBusinessFields(spec, target);
  const place = leasePlace(spec, target);
  return {
    resource: 'business',
    entries,
    open() {
      client = journalledClient(target);
      record = new BusinessLane(client, retrieveOp, updateOp, fields, target.runId, target.vendor.businessEnvelope, currentJournal(target));
      record.convergeWindowMs = windowOf(target);
      return { client, record };
    },
    start: ({ record }) => record.take(),
    // A difference another run's writes may have made is settled before it is a failure (see JUDGES_DIFFERENCES).
    settle: { prefix: 'BUS-', with: ({ record }) => record.settle(place) },
    async close({ client, record }) {
      try {
        const left = await record.restore();
        if (left.length) throw new Error(`the business record could not be restored: ${left.join(', ')} still differ from before the run`);
      } finally {
        await client.close();
      }
    },
  };
}
