/**
 * Section 4 and 9: every documented operation is served at its method and path under /api/v1
 * and answers its documented success. One check per operation in spec/openapi.yaml.
 */
import { afterAll, describe, expect, inject } from 'vitest';
import { asBlocked, check, type CheckRun } from '../helpers/checks/check.ts';
import { fillId, is2xx } from '../helpers/http/client.ts';
import { journalledClient } from '../helpers/safety/journal.ts';
import { currentJournal } from '../helpers/checks/current-journal.ts';
import { CreatedRecords } from '../helpers/safety/created-records.ts';
import { Snapshots } from '../helpers/safety/snapshots.ts';
import { customerFixture } from '../helpers/records/fixtures.ts';
import { loadSpec, statusMatches, type Operation } from '../helpers/contract/spec.ts';
import { converge, windowOf } from '../helpers/core/converge.ts';
import { recordReader, writeBackBody, listItems, rowsOf, NothingToWriteBack } from '../helpers/records/record-shapes.ts';
import { isRecord } from '../helpers/contract/record.ts';
import { schemaProblems } from '../helpers/contract/schema.ts';
import { ensure } from '../helpers/checks/assertions.ts';
import type { MustRequirementId } from '../helpers/contract/catalog.ts';

const spec = await loadSpec();
const target = inject('target');
const client = journalledClient(target);
const createdRecords = new CreatedRecords(currentJournal());
const recordOf = recordReader(spec, target);
const snapshots = new Snapshots(client, target.vendor.idField, currentJournal(), recordOf);

// Within a resource: list, create, find, update, delete — so that the record a delete
// removes was found and updated first.
const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const resources = [...new Set(spec.operations.map((op) => op.resource))];
const sorted = (ops: Operation[]) =>
  ops.toSorted((a, b) => Number(a.itemPath) - Number(b.itemPath) || ORDER.indexOf(a.method) - ORDER.indexOf(b.method));

const opOf = (method: string, path: string) => spec.operations.find((o) => o.method === method && o.path === path);

/** A record of the operation's collection to address: one this run creates, or else the first listed. */
const records = new Map<string, unknown>();
/** Ids of the records this run created: only a find of one of those waits for it to show. */
const madeHere = new Set<unknown>();
async function recordId(op: Operation, run: CheckRun): Promise<unknown> {
  if (records.has(op.collectionPath)) return records.get(op.collectionPath);
  const create = opOf('POST', op.collectionPath);
  const idField = target.vendor.idField;
  let id: unknown;
  // A --read-only run creates nothing: it addresses a record that is already there.
  if (create && !target.readOnly) {
    const answer = await client.call(create, { body: customerFixture(target, 'operations') });
    id = (answer.json as Record<string, unknown> | undefined)?.[idField];
    if (id !== undefined && id !== null) madeHere.add(id);
    const deleteOp = opOf('DELETE', op.path);
    if (id !== undefined && deleteOp) createdRecords.record(deleteOp, id);
  } else {
    const list = opOf('GET', op.collectionPath);
    if (!list) throw new Error(`no way to find a record of ${op.collectionPath}`);
    const answer = await client.call(list);
    const rows = is2xx(answer) ? rowsOf(answer.json) : undefined;
    if (rows && rows.length === 0) {
      const why = create ? 'a --read-only run creates none' : 'the interface offers no way to create one';
      run.notApplicable(`GET ${list.path} lists no record to address, and ${why}`);
    }
    id = rows?.[0]?.[idField];
  }
  if (id === undefined) {
    const source = create && !target.readOnly ? create : opOf('GET', op.collectionPath);
    run.blocked(`OP-DOCUMENTED:${source?.operationId}`, `could not obtain a record of ${op.collectionPath} to address`);
  }
  records.set(op.collectionPath, id);
  return id;
}

async function requestBody(op: Operation, id: unknown, run: CheckRun): Promise<unknown> {
  if (op.method === 'POST') return customerFixture(target, 'operations');
  // PATCH: write back what the record holds, so the check changes nothing.
  const read = opOf('GET', op.path);
  if (!read) throw new Error(`no GET for ${op.path} to read the record back from`);
  // The read is the precondition of the write-back; its own check judges the read.
  const blocked = (reason: string) => run.blocked(`OP-DOCUMENTED:${read.operationId}`, reason);
  // Records the suite cannot create are snapshotted before the first change, and restored below:
  // the snapshot is the record as it reads now, and what the write-back sends.
  const snapshotted = !opOf('POST', op.collectionPath);
  let json: unknown;
  if (snapshotted) json = await snapshots.take(fillId(op.path, id)).catch((e: Error) => blocked(e.message));
  else {
    const answer = await client.call(read, { id });
    if (!is2xx(answer)) blocked(`reading the record to write back: GET ${op.path} answered ${answer.status}`);
    json = answer.json;
  }
  if (!isRecord(json)) return blocked(`reading the record to write back: GET ${op.path} answered no JSON object`);
  if (op.resource !== 'business') {
    try {
      return writeBackBody(json, target, op);
    } catch (e) {
      if (!(e instanceof NothingToWriteBack)) throw e;
      unsent.set(op.operationId, { reason: e.message });
      return run.notApplicable(e.message);
    }
  }
  // Section 2 names a body with only currencyIso a valid update: its value as read changes nothing.
  const business = snapshotted ? json : recordOf(op.path, json);
  if (!business) return blocked(`reading the record to write back: GET ${op.path} answered no JSON object holding the business record`);
  if (!('currencyIso' in business)) run.notApplicable(`GET ${op.path} does not return currencyIso, so there is no value to write back unchanged`);
  return { currencyIso: business.currencyIso };
}

/**
 * After a write-back to a record the suite cannot create: if the PATCH changed anything else (a
 * target that replaces the record, or resets fields not sent), puts it back at once, so that the
 * suites after this one find the record as it was; BUS-UPDATE-PARTIAL and TM-UPDATE judge that.
 */
async function repair(op: Operation, id: unknown, body: unknown, run: CheckRun): Promise<void> {
  if (!isWriteBack(op)) return;
  const { restored, still, problem } = await snapshots.restoreNow(fillId(op.path, id));
  writeBacks.set(op.operationId, { body, changed: [...restored, ...still], problem });
  if (restored.length) run.note(`the write-back changed ${restored.join(', ')}; it was put back at once${problem ? ` (${problem})` : ''}`);
  else if (problem) run.note(`whether the write-back changed the record could not be checked: ${problem}`);
}

/** A PATCH of a record the suite cannot create: the pass writes back what the record holds. */
const isWriteBack = (op: Operation) => op.method === 'PATCH' && !opOf('POST', op.collectionPath);
/** What each write-back did to the fields it did not send: no write goes unjudged, the first one neither. */
const writeBacks = new Map<string, { body: unknown; changed: string[]; problem?: string }>();
/**
 * Why a write-back was never sent: its record could not be read (the write-back check is blocked
 * by the same cause), or held nothing to send back (not applicable, for the same reason).
 */
const unsent = new Map<string, { by?: string; reason: string }>();
/** The requirement a write-back that changes fields not sent breaks, by resource. */
const PARTIAL_UPDATE: Record<string, MustRequirementId> = { business: 'BUS-UPDATE-PARTIAL', 'team-members': 'TM-UPDATE' };

afterAll(async () => {
  await snapshots.restoreAll();
  await createdRecords.cleanUp(client);
  await client.close();
});

for (const resource of resources) {
  describe(resource, () => {
    for (const op of sorted(spec.operations.filter((o) => o.resource === resource))) {
      check(
        {
          id: `OP-DOCUMENTED:${op.operationId}`,
          title: `${op.method} ${op.path} answers ${op.success}`,
          changesData: op.method !== 'GET',
        },
        async (run) => {
          const id = op.itemPath ? await recordId(op, run) : undefined;
          const body = op.hasRequestBody
            ? await requestBody(op, id, run).catch((e: unknown) => {
                const blocked = asBlocked(e);
                if (blocked) unsent.set(op.operationId, blocked);
                throw e;
              })
            : undefined;
          // A record this run has just created may show in reads late (a lagging replica): a find waits for it, within the window.
          const send = () => client.call(op, { id, body });
          const answer = op.method === 'GET' && op.itemPath && madeHere.has(id) ? (await converge(send, (a) => statusMatches(op.success, a.status), windowOf(target))).value : await send();
          if (op.method === 'POST') {
            const created = (answer.json as Record<string, unknown> | undefined)?.[target.vendor.idField];
            const deleteOp = opOf('DELETE', `${op.path}/{id}`);
            if (created !== undefined && deleteOp) createdRecords.record(deleteOp, created);
            // The operations on one record find, update and delete this one: no second create.
            if (created !== undefined && created !== null && statusMatches(op.success, answer.status) && !records.has(op.path)) {
              records.set(op.path, created);
              madeHere.add(created);
            }
          }
          if (op.method === 'DELETE') createdRecords.forget(op, id);
          if (statusMatches(op.success, answer.status)) await repair(op, id, body, run);
          expect(
            statusMatches(op.success, answer.status),
            `${op.method} ${op.path} answered ${answer.status}, documented success is ${op.success}`,
          ).toBe(true);
          // Where the spec documents a JSON body for the success, the body is JSON of that shape.
          if (op.successSchema) {
            expect(answer.jsonError, `${op.method} ${op.path}: body ${answer.jsonError}`).toBeUndefined();
            expect(schemaProblems(op.successSchema, answer.json), `${op.method} ${op.path}: body does not match the spec`).toEqual([]);
          }
          // A list: its envelope is not shown, so a bare array or an object holding exactly one array.
          if (op.method === 'GET' && !op.itemPath && opOf('GET', `${op.path}/{id}`)) {
            const items = listItems(answer.json);
            expect(items !== undefined, `${op.method} ${op.path}: the body is neither a JSON array nor an object holding exactly one array`).toBe(true);
            const bad = items?.findIndex((r) => !isRecord(r)) ?? -1;
            expect(bad, `${op.method} ${op.path}: element ${bad} of the list is not a JSON object`).toBe(-1);
          }
        },
      );
      const requirement = PARTIAL_UPDATE[resource];
      if (!isWriteBack(op) || !requirement) continue;
      check({ id: `${requirement}:operations-write-back`, title: `the ${op.method} ${op.path} above (each value sent as read) leaves every field not sent as it was`, changesData: true }, async (run) => {
        const cause = unsent.get(op.operationId);
        if (!writeBacks.has(op.operationId) && cause) return cause.by ? run.blocked(cause.by, cause.reason) : run.notApplicable(cause.reason);
        const seen = writeBacks.get(op.operationId) ?? run.blocked(`OP-DOCUMENTED:${op.operationId}`, `${op.method} ${op.path} did not answer its documented success, so what it did is not judged here`);
        const read = opOf('GET', op.path);
        if (!seen.changed.length && seen.problem) run.blocked(`OP-DOCUMENTED:${read?.operationId ?? op.operationId}`, `the record could not be read back after the write-back: ${seen.problem}`);
        ensure(seen.changed.length === 0, () => `${op.method} ${op.path} with ${JSON.stringify(seen.body)} changed fields not sent: ${seen.changed.join(', ')}; ${seen.problem ? `putting them back failed: ${seen.problem}` : 'they were put back at once'}`);
      });
    }
  });
}
