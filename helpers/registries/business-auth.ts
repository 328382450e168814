/**
 * Sections 5 and 7: the 401 matrix of the business operations. Every request without a valid key
 * is refused with 401, echoes no key, carries no value of the record, and (an update) changes
 * nothing: whatever else it carries, since authorization is a function of the key alone. Each
 * case is sent in several ways (its crossings, below), and each of its checks judges them all.
 */
import { asBlocked, type Check, type Group } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { concurrentSteps, sharedStep } from '../checks/shared-step.ts';
import { recordExchange, withExchangeLog } from '../http/exchanges.ts';
import { selects } from '../core/selection.ts';
import { is2xx, type Answer, type ApiClient, type RequestShape } from '../http/client.ts';
import { headerNearMisses } from '../http/authorization.ts';
import { mediaTypeValues } from '../http/media-types.ts';
import { pairwise } from '../core/pairwise.ts';
import { atOnce, inTurn } from '../core/at-once.ts';
import { echoesKey, recordValuesShown } from '../checks/disclosure.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import type { CheckId } from '../contract/catalog.ts';
import { changedFieldNames } from '../records/compare.ts';
import type { AuthCase, BusinessRun, Crossing, Matrix, Refusal, Sent } from './business-run.ts';

function authCases(target: TargetConfig): AuthCase[] {
  return [
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
}

const CONNECTIONS = [
  { connection: 'fresh', description: 'on a fresh connection' },
  { connection: 'after-valid-key', description: 'on a connection that had just carried the valid key' },
] as const;
/** A query string the business operations do not document: whatever a target makes of it, it leaves the key's verdict as it was. */
const QUERY = '?probe=1';

/**
 * The other inputs a request carries, crossed with the kinds of refusal (a missing key, an invalid
 * one, an expired one): each header the spec fixes (Accept; Content-Type on the update) as
 * declared and with the values beside it (helpers/http/media-types.ts), a query string or none, a
 * fresh connection or one that has just carried the valid key (a key check cached on the
 * connection). Pairwise: every value of every dimension meets every kind of refusal, and each
 * value every other; what a kind is crossed with goes with one case of it (the unknown key, for
 * an invalid one), every other case is sent as the contract writes it (its declared headers, no
 * query). The requests grow as the two largest dimensions, not as the cases times the values.
 */
function crossingsOf(op: Operation, cases: AuthCase[]): Map<AuthCase, Crossing[]> {
  const headers = Object.entries(op.declaredHeaders).map(([name, declared]) => ({ name, declared, values: mediaTypeValues(name, declared) }));
  const kinds = [...new Set(cases.map((c) => c.requirement))];
  const carrier = kinds.map((k) => cases.find((c) => c.requirement === k && c.name === 'unknown-key') ?? cases.find((c) => c.requirement === k)!);
  const sizes = [kinds.length, ...headers.map((h) => h.values.length), 2, CONNECTIONS.length];
  const declared = sizes.slice(1).map(() => 0);
  const crossed = new Map(cases.map((c): [AuthCase, Crossing[]] => [c, []]));
  const crossing = (row: number[]): Crossing => {
    const sent = headers.map((h, d) => ({ ...h, value: h.values[row[d]] }));
    const query = row[headers.length] ? QUERY : '';
    const { connection, description } = CONNECTIONS[row[headers.length + 1]];
    const other = sent.filter((h) => h.value !== h.declared).map((h) => (h.value === undefined ? `no ${h.name} header` : `${h.name}: ${h.value}`));
    return {
      headers: Object.fromEntries(sent.map((h) => [h.name, h.value])),
      query,
      connection,
      contractual: !other.length && !query,
      description: [other.length ? `with ${other.join(', ')}` : 'with the declared headers', ...(query ? [`the query ${query}`] : []), description].join(', '),
    };
  };
  for (const c of cases) if (!carrier.includes(c)) crossed.get(c)!.push(crossing(declared));
  for (const [k, ...row] of pairwise(sizes, kinds.map((_, k) => [k, ...declared]))) crossed.get(carrier[k])!.push(crossing(row));
  return crossed;
}

/**
 * A crossing sent on a connection of its own: a fresh one, or one that has just carried a
 * retrieval with the valid key. The two are asked at once: the connection takes one request at
 * a time, in order, so the refused one goes the moment the retrieval is answered, leaving the
 * connection no idle time in which to be closed (under load, a wait of a few seconds was enough).
 */
async function sendCrossed(client: ApiClient, retrieveOp: Operation, crossing: Crossing, send: (shape: RequestShape) => Promise<Answer>): Promise<Sent> {
  const connection = client.connection();
  try {
    // Its answer is not judged, only the refusal's: whatever a retrieval with the valid key gets
    // (the business lane's to judge), the connection was asked with the key.
    const keyed = crossing.connection === 'after-valid-key' ? client.call(retrieveOp, { connection }).catch(() => undefined) : undefined;
    const answer = await send({ headers: crossing.headers, query: crossing.query || undefined, connection });
    await keyed;
    return { crossing, answer };
  } finally {
    connection.close().catch(() => {});
  }
}

/** Answers as a reason names them, the first few: "answered 200 with Accept: text/html, on a fresh connection"; `of` the ways the case was sent. */
function answered(sent: Sent[], of?: number): string {
  const named = sent.slice(0, 3).map(({ crossing, answer }) => `answered ${answer.status} ${crossing.description}`);
  return `${named.join('; ')}${sent.length > 3 ? `; and ${sent.length - 3} more` : ''}${of === undefined ? '' : ` (${sent.length} of the ${of} ways it was sent)`}`;
}

/**
 * A refused request changes nothing, and needs nothing but the record as it stands: the cases
 * this run holds the target to go out together, an operation's matrix when it is sent (see
 * sent); one read after every refused update has been answered tells whether any changed the record.
 */
function matricesOf(b: BusinessRun, retrieveOp: Operation, plans: Plan[], sent: (plan: Plan) => boolean = () => true): Map<string, Matrix<AuthCase>> {
  const due = plans.filter((p) => sent(p) && !b.matrices.has(p.op.operationId));
  if (!due.length) return b.matrices;
  const { client, record } = b;
  // The record as it stands before these refused requests, read with the valid key (the last
  // read, when nothing was sent since): what a refusal must not carry, and what an update must
  // not change. The checks that judge it show its read, no other (a log of its own).
  const standing = withExchangeLog([], async () => ({ row: await record.current(), read: record.lastReadExchange }));
  standing.catch(() => {}); // awaited by each case, whose check reports it
  // A few hundred new connections at once went unanswered for 10 s on a loaded machine: no more
  // are open at a time than the matrix sent at once before it was crossed.
  const turn = inTurn(40);
  const crossed = (x: Crossing, send: (shape: RequestShape) => Promise<Answer>) => turn(() => sendCrossed(client, retrieveOp, x, send));
  for (const { op, writes, cases, crossings } of due) {
    const refused = concurrentSteps(cases, async (c): Promise<Refusal> => {
      const ways = crossings.get(c)!;
      if (!writes) {
        // A retrieval needs nothing first; the record is only what its refusal must not carry.
        const sent = await atOnce(ways.map((x) => crossed(x, (shape) => client.call(op, { auth: c.auth, ...shape }))));
        const seen = await standing.catch(() => undefined);
        return { sent, before: seen?.row, beforeRead: seen?.read };
      }
      // An update needs the snapshot to be undone: without one the request is not sent.
      record.before();
      const { row: before, read } = await standing;
      const sent = await atOnce(ways.map((x) => crossed(x, (shape) => record.update(b.probeBody(before), c.auth, shape))));
      return { sent, before, beforeRead: read };
    });
    const afterRefusals = sharedStep(async () => {
      await refused.settled();
      return record.read();
    });
    b.matrices.set(op.operationId, { refused, afterRefusals });
    void refused.settled();
  }
  return b.matrices;
}

/** One secured operation's 401 matrix as this run sends it. */
interface Plan { op: Operation; writes: boolean; cases: AuthCase[]; crossings: Map<AuthCase, Crossing[]> }

/**
 * The 401 matrix's checks, and `early`: the matrix of the retrieval, which writes nothing and
 * needs nothing but the record as first read, sent at the lane's start beside the field steps
 * (sent at the end, after the field steps, it added its round trips to the lane's). The update's
 * matrix goes when its first check asks: a refused update needs the record as it then stands.
 */
export function authentication(target: TargetConfig, secured: Operation[], retrieveOp: Operation): { group: Group<BusinessRun>; early(b: BusinessRun): void } {
  const all = authCases(target);
  /** The case name is part of the check id only where a requirement has several cases. */
  const caseSuffix = (c: AuthCase) => (all.filter((o) => o.requirement === c.requirement).length > 1 ? `:${c.name}` : '');
  const plans = secured.map((op) => {
    const requestCheckOf = (c: AuthCase): CheckId => `${c.requirement}:${op.operationId}${caseSuffix(c)}`;
    const titleOf = (c: AuthCase) => `${op.method} ${op.path} ${c.description} answers 401`;
    const writes = op !== retrieveOp;
    // The cases this run holds the target to: --only may leave some out, and --read-only every update.
    const cases = writes && target.readOnly ? [] : all.filter((c) => !c.unavailable && selects(target.only, { id: requestCheckOf(c), title: titleOf(c) }));
    // Made for every case the target can be sent, whatever --only leaves out: the same crossings every run.
    return { op, writes, requestCheckOf, titleOf, cases, crossings: crossingsOf(op, all.filter((c) => !c.unavailable)) };
  });
  const group: Group<BusinessRun> = {
    group: 'authentication',
    entries: plans.map(({ op, writes, requestCheckOf, titleOf }): Group<BusinessRun> => {
      const matrix = (b: BusinessRun) => matricesOf(b, retrieveOp, plans).get(op.operationId)!;
      const perCase = all.flatMap((c) => {
        const needed = requestCheckOf(c);
        const key = `${op.operationId}:${c.name}`;
        const checks = [refusedWith401(op, c, caseSuffix(c), key, titleOf(c), writes, matrix)];
        if (c.keys.length) checks.push(noEcho(op, c, needed, key, writes));
        if (writes) checks.push(rejectedNoChange(c, needed, key, matrix, retrieveOp));
        return checks;
      });
      return { group: op.operationId, entries: [...perCase, noRecord(op, all, writes, matrix)] };
    }),
  };
  return { group, early: (b) => void matricesOf(b, retrieveOp, plans.filter((p) => p.cases.length), (p) => !p.writes) };
}

function refusedWith401(op: Operation, c: AuthCase, suffix: string, key: string, title: string, writes: boolean, matrix: (b: BusinessRun) => Matrix<AuthCase>): Check<BusinessRun> {
  const requestCheck: CheckId = `${c.requirement}:${op.operationId}${suffix}`;
  return {
    id: requestCheck, title, changesData: writes,
    async run(b, run) {
      try {
        if (c.unavailable) {
          b.refusals.set(key, { notApplicable: c.unavailable });
          run.notApplicable(c.unavailable);
        }
        const refusal = await matrix(b).refused(c);
        b.refusals.set(key, refusal);
        // Nothing is served without a valid key, however the request is sent: 401 is the answer
        // the contract gives. A request it does not write (another Accept or Content-Type than
        // the required application/json, a query) may be refused for that first (406, 415, 400):
        // a refusal all the same, which tells nothing of the key check, noted and not failed.
        const wrong = refusal.sent.filter(({ crossing, answer }) => is2xx(answer) || (crossing.contractual && answer.status !== 401));
        const otherwise = refusal.sent.filter(({ crossing, answer }) => !crossing.contractual && !is2xx(answer) && answer.status !== 401);
        if (otherwise.length) run.note(`refused otherwise than with 401 where the request was not as the contract writes it: ${answered(otherwise, refusal.sent.length)}`);
        ensure(!wrong.length, `${op.method} ${op.path} ${c.description} ${answered(wrong, refusal.sent.length)}; the contract gives 401, whatever else the request carries`);
      } catch (e) {
        if (!b.refusals.has(key)) b.refusals.set(key, { blocked: asBlocked(e, requestCheck) });
        throw e;
      }
    },
  };
}

function noEcho(op: Operation, c: AuthCase, requestCheck: CheckId, key: string, writes: boolean): Check<BusinessRun> {
  return {
    id: `BUS-AUTH-NO-ECHO:${op.operationId}:${c.name}`, title: `the 401 ${c.description} does not echo the key`, changesData: writes, needs: [requestCheck],
    async run(b, run) {
      const { sent } = b.refusalOf(key, requestCheck, run);
      const refusals = sent.filter(({ answer }) => answer.status === 401);
      if (!refusals.length) run.notApplicable(`no answer was 401: ${answered(sent)}`);
      const echoed = refusals.filter(({ answer }) => echoesKey(answer, c.keys));
      ensure(!echoed.length, `the 401 answer ${c.description} contains the key that was sent: ${answered(echoed)}`);
    },
  };
}

function rejectedNoChange(c: AuthCase, requestCheck: CheckId, key: string, matrix: (b: BusinessRun) => Matrix<AuthCase>, retrieveOp: Operation): Check<BusinessRun> {
  return {
    id: `BUS-AUTH-REJECTED-NO-CHANGE:${c.name}`, title: `an update refused ${c.description} changes nothing`, changesData: true, needs: [requestCheck],
    async run(b, run) {
      const { record } = b;
      const { sent, before, beforeRead } = b.refusalOf(key, requestCheck, run);
      if (beforeRead) recordExchange(beforeRead);
      const refused = sent.filter(({ answer }) => !is2xx(answer));
      if (!refused.length) run.notApplicable(`the update was not refused: it ${answered(sent)}`);
      const names = record.exposed().map((f) => f.name);
      // Nothing changed after all of them: these, refused, changed nothing.
      if (changedFieldNames(before ?? {}, await matrix(b).afterRefusals(), names).length === 0) return;
      // Some update of the lot changed the record; which one, one read cannot tell: each way
      // this one was refused is sent again alone, between two reads.
      let judged = 0;
      for (const { crossing } of refused) {
        const standingNow = await record.current();
        const again = await sendCrossed(b.client, retrieveOp, crossing, (shape) => record.update(b.probeBody(standingNow), c.auth, shape));
        if (is2xx(again.answer)) continue;
        judged += 1;
        const changed = changedFieldNames(standingNow, await record.read(), names);
        ensure(changed.length === 0, `the update refused with ${again.answer.status} ${crossing.description} changed ${changed.join(', ')}`);
      }
      if (!judged) run.notApplicable('sent again alone, the update was not refused');
    },
  };
}

// Judged by content, not by status: a refusal that carries the record has served it without a key.
function noRecord(op: Operation, all: AuthCase[], writes: boolean, matrix: (b: BusinessRun) => Matrix<AuthCase>): Check<BusinessRun> {
  return {
    id: `BUS-AUTH-NO-RECORD:${op.operationId}`, title: `no refusal of ${op.method} ${op.path} carries a value of the business record`, changesData: writes,
    async run(b, run) {
      const names = b.record.exposed().map((f) => f.name);
      const shown: string[] = [];
      let judged = 0;
      for (const c of all.filter((a) => !a.unavailable)) {
        // A case whose request could not be sent is its own check's to report.
        const refusal = await matrix(b).refused(c).catch(() => undefined);
        // An answer 2xx is its own check's failure.
        const refusals = refusal?.sent.filter(({ answer }) => !is2xx(answer)) ?? [];
        if (!refusal || !refusals.length) continue;
        judged += 1;
        if (refusal.beforeRead) recordExchange(refusal.beforeRead);
        const protectedRecord = refusal.before ?? (await b.record.current());
        const carrying = refusals.map((s) => ({ ...s, values: recordValuesShown(s.answer, protectedRecord, names, s.answer.exchange.request.body) })).filter((s) => s.values.length);
        if (carrying.length) shown.push(`${c.description} (${answered(carrying)}): ${[...new Set(carrying.flatMap((s) => s.values))].join(', ')}`);
      }
      if (!judged) run.blocked(`BUS-AUTH-INVALID:${op.operationId}:unknown-key`, 'no request without a valid key was answered with a refusal');
      ensure(shown.length === 0, `refusals of ${op.method} ${op.path} carry values of the business record: ${shown.join('; ')}`);
    },
  };
}
