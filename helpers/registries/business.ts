/**
 * Sections 2, 4, 5 and 7: the business record — retrieval, partial update field by field, and
 * the 401 matrix. Everything is derived from the spec: its business operations, whether they are
 * secured, and the fields of the update schema with their documented types.
 *
 * The record is a singleton, so this registry is one ordered lane: checks run one after another,
 * each step reading what the previous one left. The record is snapshotted before the first
 * change and restored and verified after the last, also when checks fail.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Check, Group, Registry } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { journalledClient } from '../safety/journal.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { leasePlace } from '../safety/lease.ts';
import type { Operation, Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import { businessOps } from '../contract/resource-ops.ts';
import { windowOf } from '../core/converge.ts';
import { changedFieldNames } from '../records/compare.ts';
import { BusinessLane } from '../resources/business-lane.ts';
import { hasDocumentedType, jsonType, namedBusinessFields, type NamedField } from '../resources/business-values.ts';
import { BusinessRun, edgeShows, patchText, show } from './business-run.ts';
import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { booleanChecks, fieldChecks, nullableChecks } from './business-fields.ts';
import { authentication } from './business-auth.ts';

export function businessChecks(spec: Spec, target: TargetConfig): Registry<BusinessRun> {
  const { retrieve: retrieveOp, update: updateOp } = businessOps(spec);
  const fields = namedBusinessFields(spec, target);
  const place = leasePlace(spec, target);
  const secured = [retrieveOp, updateOp].filter((o) => o.secured);
  const auth = authentication(target, secured, retrieveOp);
  return {
    entries: [retrieval(target, retrieveOp, fields), update(target, updateOp, fields), auth.group],
    open() {
      const client = journalledClient(target);
      const record = new BusinessLane(client, retrieveOp, updateOp, fields, target.runId, target.vendor.businessEnvelope, currentJournal(target));
      record.convergeWindowMs = windowOf(target);
      return new BusinessRun(client, record, retrieveOp, updateOp, target, place);
    },
    async start(b) {
      await b.record.take(b.retrieved());
      auth.early(b);
    },
    // A difference another run's writes may have made is settled before it is a failure (see JUDGES_DIFFERENCES).
    settle: { prefix: 'BUS-', with: ({ record }) => record.settle(place) },
    async close({ client, record, matrices }) {
      try {
        // A refused update still in flight (a run cancelled while the 401 matrix went out) lands before the restore reads.
        await Promise.allSettled([...matrices.values()].map((m) => m.refused.settled()));
        const left = await record.restore();
        if (left.length) throw new Error(`the business record could not be restored: ${left.join(', ')} still differ from before the run`);
        // Put back and verified: from here what changes it is no write of this lane's (the frame compares it again).
        currentJournal(target)?.append({ kind: 'restored', path: updateOp.path });
      } finally {
        await client.close();
      }
    },
  };
}

function retrieval(target: TargetConfig, retrieveOp: Operation, fields: NamedField[]): Group<BusinessRun> {
  return {
    group: 'retrieval',
    entries: [
      { id: 'BUS-GET-200', title: `${retrieveOp.method} ${retrieveOp.path} answers 200 with a JSON object`, async run(b, run) {
        const answer = await b.retrieved();
        ensure(answer.status === 200, `${retrieveOp.method} ${retrieveOp.path} answered ${answer.status}`);
        const { from } = await b.retrievedRecord();
        // Its body is not shown: an envelope such as {"data": {...}} is the target's choice.
        if (from !== undefined) run.note(`the record is read from \`${from}\`${target.vendor.businessEnvelope ? ' (businessEnvelope in the vendor config)' : ', the one property of the answer holding documented fields'}`);
      } },
      { id: 'BUS-GET-CONTENT-TYPE', title: 'the retrieval is labelled application/json', async run(b, run) {
        const answer = await b.retrieved();
        // The label of the record's answer: an error page's label proves nothing either way.
        if (answer.status !== 200) run.blocked('BUS-GET-200', `the retrieval answered ${answer.status}, not 200`);
        const type = answer.headers['content-type'];
        ensure(/^application\/json\s*(;|$)/i.test(type ?? ''), `Content-Type is ${show(type)}`);
      } },
      ...fields.map(({ field, name }): Check<BusinessRun> => ({ id: `BUS-GET-TYPES:${name}`, title: `${name} reads as ${field.types.join(' or ')}`, async run(b, run) {
        const business = (await b.retrievedRecord(run)).record;
        if (!(name in business)) run.notApplicable(`the retrieval does not return ${name}`);
        ensure(hasDocumentedType(field, business[name]), `${name} reads as ${jsonType(business[name])}: ${show(business[name])}`);
      } })),
    ],
  };
}

function update(target: TargetConfig, updateOp: Operation, fields: NamedField[]): Group<BusinessRun> {
  return {
    group: 'update',
    entries: [...fields.map((nf) => fieldChecks(target, updateOp, nf)), mediaTypeParameter(updateOp), writeBack(), currencyOnly(updateOp, fields), multi(updateOp), nullableChecks(target, updateOp, fields), booleanChecks(updateOp, fields), emptyBody(updateOp)],
  };
}

// The field checks leave each field they changed at its new value: the values from before the
// run (the target's own, so valid) of all of them make a body whose every field shows, as large
// as the record allows (the field checks sent bodies of one field). It is the restore, verified
// against the snapshot; what goes after it (the fallbacks of NULLABLE and BOOLEAN, the 401
// matrix's refused updates) is followed by the lane's closing restore, which stays the last
// write. The fields null before the run get their null back here, and a boolean its value,
// which BUS-UPDATE-NULLABLE and -BOOLEAN then judge.
function multi(updateOp: Operation): Check<BusinessRun> {
  return { id: 'BUS-UPDATE-MULTI', title: 'a body with every field that can show applies every one of them and leaves the others as they were', changesData: true, async run(b, run) {
    const { record } = b;
    const snapshot = record.before();
    const before = await record.current();
    const differing = record.exposed().filter((nf) => !record.unchangeable(nf) && !isDeepStrictEqual(b.currentValue(before, nf.name), snapshot[nf.name]) && (snapshot[nf.name] !== null || b.nullProven));
    if (differing.length < 2) run.notApplicable(`fewer than two fields differ from their values before the run (${differing.map((f) => f.name).join(', ') || 'none'}), so no body of several fields would show`);
    const body = Object.fromEntries(differing.map((nf) => [nf.name, snapshot[nf.name]]));
    const exchanges: Exchange[] = [];
    const answer = await withExchangeLog(exchanges, () => record.update(body));
    b.multi = { before, body, status: answer.status, exchanges };
    ensure(answer.status === 200, `${patchText(updateOp, body)} answered ${answer.status}`);
    const after = await withExchangeLog(exchanges, () => record.read());
    b.multi.after = after;
    const unapplied = Object.keys(body).filter((n) => !edgeShows(after, n, body[n]));
    ensure(unapplied.length === 0, `after ${patchText(updateOp, body)}: ${unapplied.map((n) => `${n} reads ${show(after[n])}`).join(', ')}`);
    const changed = changedFieldNames(before, after, record.exposed().map((f) => f.name).filter((n) => !(n in body)));
    ensure(changed.length === 0, `updating ${Object.keys(body).join(', ')} also changed ${changed.join(', ')}`);
  } };
}

// Before the multi-field update, which is the restore: the record as read holds the fields' new
// values, all of the documented types, and null only once null is known to round-trip (writing
// null back to a target that stores it as something else could not be undone).
function writeBack(): Check<BusinessRun> {
  return { id: 'BUS-UPDATE-WRITEBACK', title: 'the record as read is a valid update and changes nothing', changesData: true, async run(b, run) {
    const { record } = b;
    record.before();
    const before = await record.current();
    const body = record.writeBack(before, b.nullProven);
    // An empty body would pass without proving anything.
    if (!Object.keys(body).length) run.notApplicable('the retrieval exposes no documented field of its documented type to write back');
    const left = record.exposed().filter((f) => !(f.name in body));
    if (left.length) run.note(`not written back (not of their documented type, or null before null was shown to round-trip): ${left.map((f) => f.name).join(', ')}`);
    const answer = await record.update(body);
    ensure(answer.status === 200, `writing back the record as read answered ${answer.status}`);
    const changed = changedFieldNames(before, await record.read(), record.exposed().map((f) => f.name));
    ensure(changed.length === 0, `writing back the record as read changed ${changed.join(', ')}`);
  } };
}

// Section 2 says so in words, so it is a check of its own: judged on currencyIso's update step
// when that answered 200 (a body with only currencyIso), else on its value from before the run,
// the target's own, valid whatever currencies it serves.
function currencyOnly(updateOp: Operation, fields: NamedField[]): Check<BusinessRun> {
  const currency = fields.find((f) => f.field.specName === 'currencyIso');
  return { id: 'BUS-UPDATE-CURRENCY-ONLY', title: 'a body with only currencyIso is a valid update', changesData: true, async run(b, run) {
    if (!currency) return run.notApplicable('the spec documents no currencyIso field');
    const why = b.record.unchangeable(currency);
    if (why) run.notApplicable(why);
    const step = b.steps.get(currency.name);
    if (step && 'before' in step && step.status === 200 && step.wrote) {
      for (const e of step.wrote) recordExchange(e);
      return;
    }
    await b.record.current();
    const body = { [currency.name]: b.record.before()[currency.name] };
    const answer = await b.record.update(body);
    ensure(answer.status === 200, `${patchText(updateOp, body)} answered ${answer.status}`);
  } };
}

/** The Content-Type of the update with a parameter: the same media type as application/json (RFC 9110 8.3.1: parameters do not make another type). */
export const JSON_WITH_CHARSET = 'application/json; charset=utf-8';

// An update answered 2xx has changed the fields sent, whatever else the request carries: here the
// media type the contract names, spelled with a parameter. Refusing that spelling (415, or any
// 4xx) is the target's choice and must change nothing. Sent after the field checks, the body puts
// one changed field back to its value from before the run (the target's own, so valid): a write
// the restore would make anyway, so the check costs an update and a read.
function mediaTypeParameter(updateOp: Operation): Check<BusinessRun> {
  return { id: 'BUS-UPDATE-MEDIA-TYPE', title: `an update sent as ${JSON_WITH_CHARSET}, when answered 2xx, is applied`, changesData: true, async run(b, run) {
    const { record } = b;
    const snapshot = record.before();
    const before = await record.current();
    const back = record.exposed().find((nf) => !record.unchangeable(nf) && !isDeepStrictEqual(b.currentValue(before, nf.name), snapshot[nf.name]) && (snapshot[nf.name] !== null || b.nullProven));
    const body = back ? { [back.name]: snapshot[back.name] } : b.probeBody(before);
    const sent = `${patchText(updateOp, body)} with Content-Type ${JSON_WITH_CHARSET}`;
    const answer = await record.update(body, undefined, { headers: { 'Content-Type': JSON_WITH_CHARSET } });
    const after = await record.read();
    const others = record.exposed().map((f) => f.name).filter((n) => !(n in body));
    if (answer.status >= 400 && answer.status < 500) {
      const changed = changedFieldNames(before, after, record.exposed().map((f) => f.name));
      ensure(changed.length === 0, `${sent} answered ${answer.status} and changed ${changed.join(', ')}`);
      return run.note(`${sent} answered ${answer.status}: the target refuses the parameter, which the contract does not forbid`);
    }
    ensure(answer.status >= 200 && answer.status < 300, `${sent} answered ${answer.status}`);
    const unapplied = Object.keys(body).filter((n) => !edgeShows(after, n, body[n]));
    ensure(unapplied.length === 0, `${sent} answered ${answer.status}, and ${unapplied.map((n) => `${n} reads ${show(after[n])}`).join(', ')}: the update was not applied`);
    const changed = changedFieldNames(before, after, others);
    ensure(changed.length === 0, `${sent} also changed ${changed.join(', ')}`);
  } };
}

// Section 2: "a request may send a subset of them (partial update)"; the empty subset is one, and
// of the fields in it none is to change. Whether {} is a valid update is not shown, so a refusal
// (4xx) is allowed too; either way the record stays as it was.
function emptyBody(updateOp: Operation): Check<BusinessRun> {
  return { id: 'BUS-UPDATE-EMPTY', title: 'an update with no field changes nothing', changesData: true, async run(b, run) {
    const { record } = b;
    if (!record.exposed().length) run.notApplicable('the retrieval exposes none of the documented fields: no change would show');
    const before = await record.current();
    const body = {};
    const answer = await record.update(body);
    ensure(answer.status < 500, `${patchText(updateOp, body)} answered ${answer.status}`);
    const changed = changedFieldNames(before, await record.read(), record.exposed().map((f) => f.name));
    ensure(changed.length === 0, `${patchText(updateOp, body)} answered ${answer.status} and changed ${changed.join(', ')}`);
    if (answer.status >= 400) run.note(`${patchText(updateOp, body)} answered ${answer.status}: the target refuses an update with no field, which the contract does not forbid`);
  } };
}
