/**
 * Sections 2, 4, 5 and 7: the business record — retrieval, partial update field by field, and
 * the 401 matrix. Everything is derived from the spec: its business operations, whether they are
 * secured, and the fields of the update schema with their documented types.
 *
 * The record is a singleton, so this file is one ordered lane: checks run one after another,
 * each step reading what the previous one left. The record is snapshotted before the first
 * change and restored and verified after the last, also when checks fail.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject } from 'vitest';
import { check, type CheckRun } from '../helpers/checks/check.ts';
import { ApiClient, is2xx, type Answer, type Auth } from '../helpers/http/client.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import type { CheckId, MustRequirementId } from '../helpers/contract/catalog.ts';
import { isRecord, type Row } from '../helpers/resources/record-shapes.ts';
import { BusinessLane } from '../helpers/resources/business-lane.ts';
import { differingFields, hasDocumentedType, jsonType, namedBusinessFields, newValue, type NamedField } from '../helpers/resources/business-values.ts';

const spec = await loadSpec();
const target = inject('target');
const client = new ApiClient(target);
const businessOps = spec.operations.filter((o) => o.resource === 'business');
const retrieveOp = businessOps.find((o) => o.method === 'GET');
const updateOp = businessOps.find((o) => o.method === 'PATCH');
if (!retrieveOp || !updateOp) throw new Error('spec: the business needs a GET and a PATCH operation');
const fields = namedBusinessFields(spec, target);
const record = new BusinessLane(client, retrieveOp, updateOp, fields);
const show = (v: unknown) => JSON.stringify(v) ?? 'nothing';
const patchText = (body: Row) => `${updateOp.method} ${updateOp.path} ${show(body)}`;

beforeAll(() => record.take());

afterAll(async () => {
  try {
    const left = await record.restore();
    if (left.length) throw new Error(`the business record could not be restored: ${left.join(', ')} still differ from before the run`);
  } finally {
    await client.close();
  }
});

/**
 * Sends one update and confirms it with a read: status 200, and the field reads back as sent.
 * The retrieval's fields are not shown, so a field sent as null may also read back absent.
 */
async function setAndConfirm(name: string, value: unknown): Promise<void> {
  const body = { [name]: value };
  const answer = await record.update(body);
  expect(answer.status, `${patchText(body)} answered ${answer.status}`).toBe(200);
  const after = await record.read();
  const read = value === null && !(name in after) ? null : after[name];
  expect(read, `after ${patchText(body)}, ${name} reads back ${show(after[name])}`).toStrictEqual(value);
}

// --- Retrieval ----------------------------------------------------------------------------

let retrieval: Promise<Answer> | undefined;
const retrieved = () => (retrieval ??= client.call(retrieveOp));
async function retrievedRecord(): Promise<Row> {
  const answer = await retrieved();
  if (answer.status !== 200) throw new Error(`the retrieval answered ${answer.status}, not 200`);
  if (!isRecord(answer.json)) {
    const what = answer.jsonError ? `a body that is not JSON (${answer.jsonError})` : `JSON that is not an object (${jsonType(answer.json)})`;
    throw new Error(`the retrieval answered 200 with ${what}`);
  }
  return answer.json;
}

describe('retrieval', () => {
  check({ id: 'BUS-GET-200', title: `${retrieveOp.method} ${retrieveOp.path} answers 200 with a JSON object` }, async () => {
    const answer = await retrieved();
    expect(answer.status, `${retrieveOp.method} ${retrieveOp.path} answered ${answer.status}`).toBe(200);
    expect(isRecord(answer.json), `the body is not a JSON object: ${answer.jsonError ?? jsonType(answer.json)}`).toBe(true);
  });

  check({ id: 'BUS-GET-CONTENT-TYPE', title: 'the retrieval is labelled application/json' }, async () => {
    const type = (await retrieved()).headers['content-type'];
    expect(/^application\/json\s*(;|$)/i.test(type ?? ''), `Content-Type is ${show(type)}`).toBe(true);
  });

  for (const { field, name } of fields) {
    check({ id: `BUS-GET-TYPES:${name}`, title: `${name} reads as ${field.types.join(' or ')}` }, async (run) => {
      const business = await retrievedRecord();
      if (!(name in business)) run.notApplicable(`the retrieval does not return ${name}`);
      expect(hasDocumentedType(field, business[name]), `${name} reads as ${jsonType(business[name])}: ${show(business[name])}`).toBe(true);
    });
  }
});

// --- Partial update -------------------------------------------------------------------------

/** What the update step of a field did, for the checks that judge it. */
type Step = { before: Row; value: unknown; after?: Row } | { notApplicable: string } | { blocked: string };
const steps = new Map<string, Step>();

/** Whether some field has shown that null is accepted and read back: until then, a field that is
 *  null on the target is not changed, since putting null back might not work. */
let nullProven = false;
function nullGate({ field, name }: NamedField): string | undefined {
  if (!field.nullable || record.before()[name] !== null || nullProven) return undefined;
  return `${name} is null on the target and no field has yet shown that null is accepted and read back (BUS-UPDATE-NULLABLE): changing it might not be undoable`;
}

function stepOf(name: string, run: CheckRun): { before: Row; value: unknown; after?: Row } {
  const step = steps.get(name);
  // Only when --only left the step out: the step check records what it did, whatever happened.
  if (!step) return run.notApplicable(`depends on BUS-UPDATE-200:${name}, which did not run`);
  if ('notApplicable' in step) run.notApplicable(step.notApplicable);
  if ('blocked' in step) throw new Error(`the update of ${name} could not be sent: ${step.blocked}`);
  return step;
}

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
          const before = await record.current();
          const derived = newValue(nf, currentValue(before, name), record.before()[name]);
          if ('unavailable' in derived) {
            steps.set(name, { notApplicable: derived.unavailable });
            return run.notApplicable(derived.unavailable);
          }
          const body = { [name]: derived.value };
          steps.set(name, { before, value: derived.value });
          const answer = await record.update(body);
          if (nf.field.types.includes('array') && !nf.field.itemsShown && answer.status >= 400 && answer.status < 500) {
            // The element rules are not shown (a target may require every day, say): it may refuse
            // a changed list, but not its own value, which is written back to tell the two apart.
            const own = { [name]: currentValue(before, name) };
            const back = await record.update(own);
            expect(back.status, `${patchText(body)} answered ${answer.status}, and so did writing back the value read: ${patchText(own)} answered ${back.status}`).toBe(200);
            const why = `${patchText(body)} answered ${answer.status}: the rules for the elements of ${name} are not shown, so a changed list may be refused (the value read was accepted back; BUS-UPDATE-WRITEBACK holds the target to that)`;
            steps.set(name, { notApplicable: why });
            run.notApplicable(why);
          }
          expect(answer.status, `${patchText(body)} answered ${answer.status}`).toBe(200);
        } catch (e) {
          if (!steps.has(name)) steps.set(name, { blocked: (e as Error).message });
          throw e;
        }
      });

      check({ id: `BUS-UPDATE-APPLIES:${name}`, title: `${name} reads back with the value sent`, changesData: true }, async (run) => {
        const step = stepOf(name, run);
        step.after = await record.read();
        expect(step.after[name], `${name} reads back ${show(step.after[name])} after an update to ${show(step.value)}`).toStrictEqual(step.value);
      });

      check({ id: `BUS-UPDATE-PARTIAL:${name}`, title: `updating ${name} leaves every other field as it was`, changesData: true }, async (run) => {
        const step = stepOf(name, run);
        const after = step.after ?? (await record.read());
        const others = record.exposed().map((f) => f.name).filter((n) => n !== name);
        const changed = differingFields(step.before, after, others);
        expect(changed, `updating only ${name} also changed ${changed.join(', ')}`).toEqual([]);
      });

      if (nf.field.nullable) {
        check({ id: `BUS-UPDATE-NULLABLE:${name}`, title: `${name} accepts null, reads back null, then accepts a string`, changesData: true }, async (run) => {
          const why = record.unchangeable(nf) ?? nullGate(nf);
          if (why) run.notApplicable(why);
          const before = await record.current();
          const original = record.before()[name];
          const string = typeof original === 'string' ? original : (newValue(nf, null) as { value: unknown }).value;
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
    });
  }

  // After the fields, when it is known whether null round-trips: writing null back to a target
  // that stores it as something else could not be undone.
  check({ id: 'BUS-UPDATE-WRITEBACK', title: 'the record as read is a valid update and changes nothing', changesData: true }, async (run) => {
    record.before();
    const before = await record.current();
    const body = record.writeBack(before, nullProven);
    const left = record.exposed().filter((f) => !(f.name in body));
    if (left.length) run.note(`not written back (not of their documented type, or null before null was shown to round-trip): ${left.map((f) => f.name).join(', ')}`);
    const answer = await record.update(body);
    expect(answer.status, `writing back the record as read answered ${answer.status}`).toBe(200);
    const changed = differingFields(before, await record.read(), record.exposed().map((f) => f.name));
    expect(changed, `writing back the record as read changed ${changed.join(', ')}`).toEqual([]);
  });

  // Section 2 says so in words, so it is a check of its own.
  const currency = fields.find((f) => f.field.specName === 'currencyIso');
  check({ id: 'BUS-UPDATE-CURRENCY-ONLY', title: 'a body with only currencyIso is a valid update', changesData: true }, async (run) => {
    if (!currency) return run.notApplicable('the spec documents no currencyIso field');
    const why = record.unchangeable(currency);
    if (why) run.notApplicable(why);
    const derived = newValue(currency, currentValue(await record.current(), currency.name));
    if ('unavailable' in derived) return run.notApplicable(derived.unavailable);
    const body = { [currency.name]: derived.value };
    const answer = await record.update(body);
    expect(answer.status, `${patchText(body)} answered ${answer.status}`).toBe(200);
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

const unknownKey = `scr_unknown_${randomBytes(12).toString('hex')}`;
const AUTH_CASES: AuthCase[] = [
  { name: 'missing', requirement: 'BUS-AUTH-MISSING', description: 'without an Authorization header', auth: 'none', keys: [] },
  { name: 'empty-token', requirement: 'BUS-AUTH-INVALID', description: 'with "Bearer " and an empty token', auth: { authorization: 'Bearer ' }, keys: [] },
  { name: 'unknown-key', requirement: 'BUS-AUTH-INVALID', description: 'with an unknown key', auth: { authorization: `Bearer ${unknownKey}` }, keys: [unknownKey] },
  { name: 'key-with-extra-characters', requirement: 'BUS-AUTH-INVALID', description: 'with the valid key plus extra characters', auth: { authorization: `Bearer ${target.apiKey}0` }, keys: [target.apiKey] },
  { name: 'basic-scheme', requirement: 'BUS-AUTH-INVALID', description: 'with the valid key under the Basic scheme', auth: { authorization: `Basic ${target.apiKey}` }, keys: [target.apiKey] },
  { name: 'token-scheme', requirement: 'BUS-AUTH-INVALID', description: 'with the valid key under the Token scheme', auth: { authorization: `Token ${target.apiKey}` }, keys: [target.apiKey] },
  {
    name: 'expired-key', requirement: 'BUS-AUTH-EXPIRED', description: 'with an expired key', auth: 'expired',
    unavailable: target.expiredKey ? undefined : 'no expired key was given (--expired-key or SCHEDULING_EXPIRED_KEY)',
    keys: [target.expiredKey ?? ''],
  },
];
/** The case name is part of the check id only where a requirement has several cases. */
const caseSuffix = (c: AuthCase) => (AUTH_CASES.filter((o) => o.requirement === c.requirement).length > 1 ? `:${c.name}` : '');

type Refusal = { answer: Answer; before?: Row } | { notApplicable: string } | { blocked: string };
const refusals = new Map<string, Refusal>();

function refusalOf(key: string, checkId: string, run: CheckRun): { answer: Answer; before?: Row } {
  const refusal = refusals.get(key);
  // Only when --only left the request's check out: that check records what it did, whatever happened.
  if (!refusal) return run.notApplicable(`depends on ${checkId}, which did not run`);
  if ('notApplicable' in refusal) run.notApplicable(refusal.notApplicable);
  if ('blocked' in refusal) throw new Error(`the request could not be sent: ${refusal.blocked}`);
  return refusal;
}

/** An update that would show if applied: a new value for the first field that can be changed and restored. */
function probeBody(before: Row): Row {
  for (const nf of record.exposed()) {
    if (record.unchangeable(nf) || nullGate(nf)) continue;
    const derived = newValue(nf, currentValue(before, nf.name));
    if ('value' in derived) return { [nf.name]: derived.value };
  }
  throw new Error('no field of the record can be changed and restored');
}

const secured = businessOps.filter((o) => o.secured);
describe('authentication', () => {
  for (const op of secured) {
    const writes = op !== retrieveOp;
    describe(op.operationId, () => {
      for (const c of AUTH_CASES) {
        const key = `${op.operationId}:${c.name}`;
        const requestCheck: CheckId = `${c.requirement}:${op.operationId}${caseSuffix(c)}`;
        check({ id: requestCheck, title: `${op.method} ${op.path} ${c.description} answers 401`, changesData: writes }, async (run) => {
          try {
            if (c.unavailable) {
              refusals.set(key, { notApplicable: c.unavailable });
              run.notApplicable(c.unavailable);
            }
            const before = writes ? await record.current() : undefined;
            const answer = before ? await record.update(probeBody(before), c.auth) : await client.call(op, { auth: c.auth });
            refusals.set(key, { answer, before });
            expect(answer.status, `${op.method} ${op.path} ${c.description} answered ${answer.status}; the contract gives 401`).toBe(401);
          } catch (e) {
            if (!refusals.has(key)) refusals.set(key, { blocked: (e as Error).message });
            throw e;
          }
        });

        if (c.keys.length) {
          check({ id: `BUS-AUTH-NO-ECHO:${op.operationId}:${c.name}`, title: `the 401 ${c.description} does not echo the key`, changesData: writes }, async (run) => {
            const { answer } = refusalOf(key, requestCheck, run);
            if (answer.status !== 401) run.notApplicable(`the answer was ${answer.status}, not 401`);
            const echoed = c.keys.filter(Boolean).some((k) => answer.text.includes(k) || Object.values(answer.headers).some((v) => v.includes(k)));
            expect(echoed, `the 401 answer ${c.description} contains the key that was sent`).toBe(false);
          });
        }

        if (writes) {
          check({ id: `BUS-AUTH-REJECTED-NO-CHANGE:${c.name}`, title: `an update refused ${c.description} changes nothing`, changesData: true }, async (run) => {
            const { answer, before } = refusalOf(key, requestCheck, run);
            if (is2xx(answer)) run.notApplicable(`the update was not refused: it answered ${answer.status}`);
            const changed = differingFields(before ?? {}, await record.read(), record.exposed().map((f) => f.name));
            expect(changed, `the update refused with ${answer.status} changed ${changed.join(', ')}`).toEqual([]);
          });
        }
      }
    });
  }
});
