/**
 * Section 4 and 9: every documented operation is served at its method and path under /api/v1
 * and answers its documented success. One check per operation in spec/openapi.yaml.
 */
import { asBlocked, type Check, type CheckRun, type Group, type Registry } from '../checks/definition.ts';
import { fillId, is2xx, type Answer, type ApiClient } from '../http/client.ts';
import { journalledClient } from '../safety/journal.ts';
import { currentJournal } from '../checks/current-journal.ts';
import { CreatedRecords } from '../safety/created-records.ts';
import { Snapshots } from '../safety/snapshots.ts';
import { customerFixture } from '../records/fixtures.ts';
import { statusMatches, type Operation, type Spec } from '../contract/spec.ts';
import { converge, quiesce, readsGoBack, windowOf } from '../core/converge.ts';
import { movedByWrite } from '../records/server-fields.ts';
import { recordReader, writeBackBody, listItems, rowsOf, NothingToWriteBack } from '../records/record-shapes.ts';
import { recordIn } from '../contract/record-in.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { isDeepStrictEqual } from 'node:util';
import { ListReader } from '../records/list-reader.ts';
import { leftInList, listSink } from '../records/list-stream.ts';
import { limitsOf } from '../core/limits.ts';
import { schemaProblems } from '../contract/schema.ts';
import { ensure } from '../checks/assertions.ts';
import type { CheckId, MustRequirementId } from '../contract/catalog.ts';
import type { TargetConfig } from '../config/target.ts';

/** What the operations pass shares in one run. */
interface Pass {
  client: ApiClient;
  createdRecords: CreatedRecords;
  snapshots: Snapshots;
  recordOf: ReturnType<typeof recordReader>;
  /** A record of the operation's collection to address: one this run creates, or else the first listed. */
  records: Map<string, unknown>;
  /** Ids of the records this run created: only a find of one of those waits for it to show. */
  madeHere: Set<unknown>;
  /** The answer of the pass's last GET of a record, by its path: the write-back that follows reads no further. */
  lastRead: Map<string, Answer>;
  /** What each write-back did to the fields it did not send: no write goes unjudged, the first one neither. */
  writeBacks: Map<string, { body: unknown; changed: string[]; problem?: string }>;
  /**
   * Why a write-back was never sent: its record could not be read (the write-back check is blocked
   * by the same cause), or held nothing to send back (not applicable, for the same reason).
   */
  unsent: Map<string, { by?: string; reason: string }>;
}

// Within a resource: list, create, find, update, delete — so that the record a delete
// removes was found and updated first.
const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const sorted = (ops: Operation[]) =>
  ops.toSorted((a, b) => Number(a.itemPath) - Number(b.itemPath) || ORDER.indexOf(a.method) - ORDER.indexOf(b.method));

/** The requirement a write-back that changes fields not sent breaks, by resource. */
const PARTIAL_UPDATE: Record<string, MustRequirementId> = { business: 'BUS-UPDATE-PARTIAL', 'team-members': 'TM-UPDATE' };

/** What the checks are declared from: the target, and the spec's operation at a method and path. */
interface Env {
  target: TargetConfig;
  opOf(method: string, path: string): Operation | undefined;
}

/** A PATCH of a record the suite cannot create: the pass writes back what the record holds. */
const isWriteBack = ({ opOf }: Env, op: Operation) => op.method === 'PATCH' && !opOf('POST', op.collectionPath);

export function operationsChecks(spec: Spec, target: TargetConfig): Registry<Pass> {
  const env: Env = { target, opOf: (method, path) => spec.operations.find((o) => o.method === method && o.path === path) };
  const resources = [...new Set(spec.operations.map((op) => op.resource))];
  // Each resource's operations touch only its records: the resources go side by side.
  const groups = resources.map((resource): Group<Pass> => ({
    group: resource,
    alongside: true,
    entries: sorted(spec.operations.filter((o) => o.resource === resource)).flatMap((op) => {
      const requirement = PARTIAL_UPDATE[resource];
      return isWriteBack(env, op) && requirement ? [documented(env, op), writeBack(env, op, requirement)] : [documented(env, op)];
    }),
  }));

  return {
    entries: groups,
    open() {
      const client = journalledClient(target);
      const recordOf = recordReader(spec, target);
      return {
        client, recordOf,
        createdRecords: new CreatedRecords(currentJournal(target)),
        snapshots: new Snapshots(client, target.vendor.idField, currentJournal(target), recordOf),
        records: new Map(), madeHere: new Set(), lastRead: new Map(), writeBacks: new Map(), unsent: new Map(),
      };
    },
    async close({ client, snapshots, createdRecords }) {
      await snapshots.restoreAll();
      await createdRecords.cleanUp(client);
      await client.close();
    },
  };
}

async function recordId({ target, opOf }: Env, pass: Pass, op: Operation, run: CheckRun): Promise<unknown> {
  const { client, records, madeHere, createdRecords } = pass;
  if (records.has(op.collectionPath)) return records.get(op.collectionPath);
  const create = opOf('POST', op.collectionPath);
  const idField = target.vendor.idField;
  let id: unknown;
  // A --read-only run creates nothing: it addresses a record that is already there.
  if (create && !target.readOnly) {
    const sent = customerFixture(target, 'operations');
    const answer = await client.call(create, { body: sent });
    id = recordIn(answer.json, idField, { sent })?.[idField];
    if (id !== undefined && id !== null) madeHere.add(id);
    const deleteOp = opOf('DELETE', op.path);
    if (id !== undefined && deleteOp) createdRecords.record(deleteOp, id);
  } else {
    const list = opOf('GET', op.collectionPath);
    if (!list) throw new Error(`no way to find a record of ${op.collectionPath}`);
    // The first record listed: read as the list arrives, whatever its length.
    const rows: Row[] = [];
    const end = await new ListReader(client, target).each(list.path, `finding a record of ${op.collectionPath}`, (item) => isRecord(item) && rows.push(item) > 0).catch(() => undefined);
    if (end?.complete && rows.length === 0) {
      const why = create ? 'a --read-only run creates none' : 'the interface offers no way to create one';
      run.notApplicable(`GET ${list.path} lists no record to address, and ${why}`);
    }
    id = rows[0]?.[idField];
  }
  if (id === undefined) {
    const source = create && !target.readOnly ? create : opOf('GET', op.collectionPath);
    run.blocked(`OP-DOCUMENTED:${source?.operationId}`, `could not obtain a record of ${op.collectionPath} to address`);
  }
  records.set(op.collectionPath, id);
  return id;
}

async function requestBody({ target, opOf }: Env, pass: Pass, op: Operation, id: unknown, run: CheckRun): Promise<unknown> {
  if (op.method === 'POST') return customerFixture(target, 'operations');
  // PATCH: write back what the record holds, so the check changes nothing.
  const read = opOf('GET', op.path);
  if (!read) throw new Error(`no GET for ${op.path} to read the record back from`);
  // The read is the precondition of the write-back; its own check judges the read.
  const blocked = (reason: string) => run.blocked(`OP-DOCUMENTED:${read.operationId}`, reason);
  // Records the suite cannot create are snapshotted before the first change, and restored below:
  // the snapshot is the record as it reads now, and what the write-back sends.
  const snapshotted = !opOf('POST', op.collectionPath);
  // The GET just before (the find, or the retrieval) read the record, and nothing was written since.
  const path = fillId(op.path, id);
  const answered = pass.lastRead.get(path);
  pass.lastRead.delete(path);
  let json: unknown;
  if (snapshotted) json = await pass.snapshots.take(path, answered).catch((e: Error) => blocked(e.message));
  else {
    const answer = answered ?? (await pass.client.call(read, { id }));
    if (!is2xx(answer)) blocked(`reading the record to write back: GET ${op.path} answered ${answer.status}`);
    json = recordIn(answer.json, target.vendor.idField, { id });
  }
  if (!isRecord(json)) return blocked(`reading the record to write back: GET ${op.path} answered no JSON object`);
  if (op.resource !== 'business') {
    try {
      return writeBackBody(json, target, op);
    } catch (e) {
      if (!(e instanceof NothingToWriteBack)) throw e;
      pass.unsent.set(op.operationId, { reason: e.message });
      return run.notApplicable(e.message);
    }
  }
  // Section 2 names a body with only currencyIso a valid update: its value as read changes nothing.
  const business = snapshotted ? json : pass.recordOf(op.path, json);
  if (!business) return blocked(`reading the record to write back: GET ${op.path} answered no JSON object holding the business record`);
  if (!('currencyIso' in business)) run.notApplicable(`GET ${op.path} does not return currencyIso, so there is no value to write back unchanged`);
  return { currencyIso: business.currencyIso };
}

/**
 * After a write-back to a record the suite cannot create: if the PATCH changed anything else (a
 * target that replaces the record, or resets fields not sent), puts it back at once, so that the
 * suites after this one find the record as it was; BUS-UPDATE-PARTIAL and TM-UPDATE judge that.
 */
async function repair(env: Env, pass: Pass, op: Operation, id: unknown, body: unknown, run: CheckRun): Promise<void> {
  if (!isWriteBack(env, op)) return;
  const path = fillId(op.path, id);
  await learnFromWriteBack(env, pass, op, id, body);
  const { restored, still, problem } = await pass.snapshots.restoreNow(path, op.resource);
  pass.writeBacks.set(op.operationId, { body, changed: [...restored, ...still], problem });
  if (restored.length) run.note(`the write-back changed ${restored.join(', ')}; it was put back at once${problem ? ` (${problem})` : ''}`);
  else if (problem) run.note(`whether the write-back changed the record could not be checked: ${problem}`);
}

/**
 * A write-back that moved fields not sent: those the target moves on every write are its own (a
 * version, a stamp), measured by sending it once more (see movedByWrite), so that neither the
 * judgement nor the restore holds them against it. Nothing is judged here.
 */
async function learnFromWriteBack({ target }: Env, pass: Pass, op: Operation, id: unknown, body: unknown): Promise<void> {
  const path = fillId(op.path, id);
  const windowMs = windowOf(target);
  const read = async () => {
    await quiesce(pass.client.lastWriteAt, undefined, windowMs);
    const answer = await pass.client.send({ method: 'GET', path });
    return is2xx(answer) ? pass.recordOf(path, answer.json) : undefined;
  };
  const before = await pass.snapshots.take(path).catch(() => undefined);
  if (!before || !isRecord(body)) return;
  // Read twice: behind copies that take turns, one of two reads in a row may still show the record before the write.
  const moved = (r: Row | undefined) => r !== undefined && Object.keys(r).some((k) => !(k in body) && !isDeepStrictEqual(r[k], before[k]));
  const first = await read();
  const after = moved(first) ? first : await read();
  if (!after) return;
  await movedByWrite(op.resource, before, after, body, { write: () => pass.client.call(op, { id, body }), read, windowMs });
}

function documented(env: Env, op: Operation): Check<Pass> {
  const { target, opOf } = env;
  return {
    id: `OP-DOCUMENTED:${op.operationId}`,
    title: `${op.method} ${op.path} answers ${op.success}`,
    changesData: op.method !== 'GET',
    async run(pass, run) {
      const { client, records, madeHere, createdRecords } = pass;
      const id = op.itemPath ? await recordId(env, pass, op, run) : undefined;
      const body = op.hasRequestBody
        ? await requestBody(env, pass, op, id, run).catch((e: unknown) => {
            const blocked = asBlocked(e);
            if (blocked) pass.unsent.set(op.operationId, blocked);
            throw e;
          })
        : undefined;
      // A record this run has just created may show in reads late (a lagging replica): a find waits for it, within the window.
      // A list is taken as it arrives (a list of any length in bounded memory): each row judged by the
      // schema of the list's elements, the envelope (rows taken out) by the list's own.
      const isList = op.method === 'GET' && !op.itemPath && opOf('GET', `${op.path}/{id}`);
      const rowSchema = isList ? itemsOf(op.successSchema) : undefined;
      const rowProblems: string[] = [];
      let stream: ReturnType<typeof listSink> | undefined;
      const judgeRow = (row: Row) => void (rowSchema && rowProblems.length < 3 && rowProblems.push(...schemaProblems(rowSchema, row).map((p) => `a listed record (${target.vendor.idField} ${JSON.stringify(row[target.vendor.idField])}): ${p}`)));
      const sink = isList ? (status: number) => (status >= 200 && status < 300 ? (stream = listSink(target.vendor.idField, limitsOf(target).maxBodyBytes, judgeRow)).sink : undefined) : undefined;
      const send = () => client.call(op, { id, body, sink });
      const found = (a: Answer) => statusMatches(op.success, a.status);
      const madeNow = op.method === 'GET' && op.itemPath && madeHere.has(id);
      // Asked twice at once: behind a balancer whose copies lag, one may find it and the other not, which
      // teaches the lanes that reads go back in time before they judge a reading by content (readCurrent).
      const twin = madeNow ? send().catch(() => undefined) : undefined;
      const answer = madeNow ? (await converge(send, found, windowOf(target))).value : await send();
      const other = await twin;
      if (other && found(other) !== found(answer)) readsGoBack();
      // A read of one record (a find, or a singleton's retrieval) is what a write-back of it next starts from.
      if (op.method === 'GET' && (op.itemPath || opOf('PATCH', op.path))) pass.lastRead.set(fillId(op.path, id), answer);
      if (op.method === 'POST') {
        const created = recordIn(answer.json, target.vendor.idField, isRecord(body) ? { sent: body } : undefined)?.[target.vendor.idField];
        const deleteOp = opOf('DELETE', `${op.path}/{id}`);
        if (created !== undefined && deleteOp) createdRecords.record(deleteOp, created);
        // The operations on one record find, update and delete this one: no second create.
        if (created !== undefined && created !== null && statusMatches(op.success, answer.status) && !records.has(op.path)) {
          records.set(op.path, created);
          madeHere.add(created);
        }
      }
      if (op.method === 'DELETE') createdRecords.forget(op, id);
      if (statusMatches(op.success, answer.status)) await repair(env, pass, op, id, body, run);
      ensure(statusMatches(op.success, answer.status), `${op.method} ${op.path} answered ${answer.status}, documented success is ${op.success}`);
      // Where the spec documents a JSON body for the success, the body is JSON of that shape.
      if (op.successSchema) {
        ensure(answer.jsonError === undefined, () => `${op.method} ${op.path}: body ${answer.jsonError}`);
        const problems = schemaProblems(op.successSchema, answer.json);
        ensure(problems.length === 0, () => `${op.method} ${op.path}: body does not match the spec: ${problems.join('; ')}`);
        ensure(rowProblems.length === 0, () => `${op.method} ${op.path}: body does not match the spec: ${rowProblems.join('; ')}`);
      }
      // A list: its envelope is not shown, so a bare array or an object holding exactly one array.
      if (op.method === 'GET' && !op.itemPath && opOf('GET', `${op.path}/{id}`)) {
        // The rows were taken out as they came (objects carrying the id): what is left of their array is judged here.
        const items = stream ? leftInList(stream.page()) : listItems(answer.json);
        ensure(items !== undefined, `${op.method} ${op.path}: the body is neither a JSON array nor an object holding exactly one array`);
        const bad = items.findIndex((r) => !isRecord(r));
        ensure(bad === -1, () => `${op.method} ${op.path}: element ${bad} of the list is not a JSON object`);
      }
    },
  };
}

function writeBack({ opOf }: Env, op: Operation, requirement: MustRequirementId): Check<Pass> {
  return {
    id: `${requirement}:operations-write-back`,
    title: `the ${op.method} ${op.path} above (each value sent as read) leaves every field not sent as it was`,
    changesData: true,
    // What it judges is the write the operation's own check sent: --only takes that check with it.
    needs: [`OP-DOCUMENTED:${op.operationId}` as CheckId],
    async run({ writeBacks, unsent }, run) {
      const cause = unsent.get(op.operationId);
      if (!writeBacks.has(op.operationId) && cause) return cause.by ? run.blocked(cause.by, cause.reason) : run.notApplicable(cause.reason);
      const seen = writeBacks.get(op.operationId) ?? run.blocked(`OP-DOCUMENTED:${op.operationId}`, `${op.method} ${op.path} did not answer its documented success, so what it did is not judged here`);
      const read = opOf('GET', op.path);
      if (!seen.changed.length && seen.problem) run.blocked(`OP-DOCUMENTED:${read?.operationId ?? op.operationId}`, `the record could not be read back after the write-back: ${seen.problem}`);
      ensure(seen.changed.length === 0, () => `${op.method} ${op.path} with ${JSON.stringify(seen.body)} changed fields not sent: ${seen.changed.join(', ')}; ${seen.problem ? `putting them back failed: ${seen.problem}` : 'they were put back at once'}`);
    },
  };
}

/** The schema of a list's elements: the `items` of the success schema, or of its array alternative. */
function itemsOf(schema: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  if (isRecord(schema.items)) return schema.items;
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  return alternatives?.map((s) => (isRecord(s) ? itemsOf(s) : undefined)).find((s) => s !== undefined);
}
