/**
 * Sections 5 and 7: the 401 matrix of the business operations. Every request without a valid key
 * is refused with 401, echoes no key, carries no value of the record, and (an update) changes nothing.
 */
import { asBlocked, type Check, type Group } from '../checks/definition.ts';
import { ensure } from '../checks/assertions.ts';
import { concurrentSteps, sharedStep } from '../checks/shared-step.ts';
import { recordExchange, withExchangeLog } from '../http/exchanges.ts';
import { selects } from '../core/selection.ts';
import { is2xx } from '../http/client.ts';
import { headerNearMisses } from '../http/authorization.ts';
import { recordValuesShown } from '../checks/disclosure.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';
import type { CheckId } from '../contract/catalog.ts';
import type { Row } from '../contract/record.ts';
import { changedFieldNames } from '../records/compare.ts';
import type { AuthCase, BusinessRun, Matrix, Refusal } from './business-run.ts';

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

/**
 * A refused request changes nothing, and needs nothing but the record as it stands: the cases
 * this run holds the target to go out together, retrievals and updates alike, when the first
 * check asks for one; one read after every refused update has been answered tells whether any
 * changed the record.
 */
function matricesOf(b: BusinessRun, plans: { op: Operation; writes: boolean; cases: AuthCase[] }[]): Map<string, Matrix<AuthCase>> {
  if (b.matrices.size) return b.matrices;
  const { client, record } = b;
  // The record as it stands before any refused request, read with the valid key (the last read,
  // when nothing was sent since): what a refusal must not carry, and what an update must not
  // change. The checks that judge it show its read, no other (a log of its own).
  const standing = withExchangeLog([], async () => ({ row: await record.current(), read: record.lastReadExchange }));
  standing.catch(() => {}); // awaited by each case, whose check reports it
  for (const { op, writes, cases } of plans) {
    const refused = concurrentSteps(cases, async (c): Promise<Refusal> => {
      if (!writes) {
        // A retrieval needs nothing first; the record is only what its refusal must not carry.
        const answer = await client.call(op, { auth: c.auth });
        const seen = await standing.catch(() => undefined);
        return { answer, before: seen?.row, beforeRead: seen?.read };
      }
      // An update needs the snapshot to be undone: without one the request is not sent.
      record.before();
      const { row: before, read } = await standing;
      return { answer: await record.update(b.probeBody(before), c.auth), before, beforeRead: read };
    });
    const afterRefusals = sharedStep(async () => {
      await refused.settled();
      return record.read();
    });
    b.matrices.set(op.operationId, { refused, afterRefusals });
  }
  for (const m of b.matrices.values()) void m.refused.settled();
  return b.matrices;
}

export function authentication(target: TargetConfig, secured: Operation[], retrieveOp: Operation): Group<BusinessRun> {
  const all = authCases(target);
  /** The case name is part of the check id only where a requirement has several cases. */
  const caseSuffix = (c: AuthCase) => (all.filter((o) => o.requirement === c.requirement).length > 1 ? `:${c.name}` : '');
  const plans = secured.map((op) => {
    const requestCheckOf = (c: AuthCase): CheckId => `${c.requirement}:${op.operationId}${caseSuffix(c)}`;
    const titleOf = (c: AuthCase) => `${op.method} ${op.path} ${c.description} answers 401`;
    const writes = op !== retrieveOp;
    // The cases this run holds the target to: --only may leave some out, and --read-only every
    // update (the matrices go out together, when the first check of either operation asks).
    const cases = writes && target.readOnly ? [] : all.filter((c) => !c.unavailable && selects(target.only, { id: requestCheckOf(c), title: titleOf(c) }));
    return { op, writes, requestCheckOf, titleOf, cases };
  });
  return {
    group: 'authentication',
    entries: plans.map(({ op, writes, requestCheckOf, titleOf }): Group<BusinessRun> => {
      const matrix = (b: BusinessRun) => matricesOf(b, plans).get(op.operationId)!;
      const perCase = all.flatMap((c) => {
        const needed = requestCheckOf(c);
        const key = `${op.operationId}:${c.name}`;
        const checks = [refusedWith401(op, c, caseSuffix(c), key, titleOf(c), writes, matrix)];
        if (c.keys.length) checks.push(noEcho(op, c, needed, key, writes));
        if (writes) checks.push(rejectedNoChange(c, needed, key, matrix));
        return checks;
      });
      return { group: op.operationId, entries: [...perCase, noRecord(op, all, writes, matrix)] };
    }),
  };
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
        const { answer } = refusal;
        b.refusals.set(key, refusal);
        ensure(answer.status === 401, `${op.method} ${op.path} ${c.description} answered ${answer.status}; the contract gives 401`);
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
      const { answer } = b.refusalOf(key, requestCheck, run);
      if (answer.status !== 401) run.notApplicable(`the answer was ${answer.status}, not 401`);
      const echoed = c.keys.filter(Boolean).some((k) => answer.text.includes(k) || Object.values(answer.headers).some((v) => v.includes(k)));
      ensure(!echoed, `the 401 answer ${c.description} contains the key that was sent`);
    },
  };
}

function rejectedNoChange(c: AuthCase, requestCheck: CheckId, key: string, matrix: (b: BusinessRun) => Matrix<AuthCase>): Check<BusinessRun> {
  return {
    id: `BUS-AUTH-REJECTED-NO-CHANGE:${c.name}`, title: `an update refused ${c.description} changes nothing`, changesData: true, needs: [requestCheck],
    async run(b, run) {
      const { record } = b;
      const { answer, before, beforeRead } = b.refusalOf(key, requestCheck, run);
      if (beforeRead) recordExchange(beforeRead);
      if (is2xx(answer)) run.notApplicable(`the update was not refused: it answered ${answer.status}`);
      const names = record.exposed().map((f) => f.name);
      // Nothing changed after all of them: this one, refused, changed nothing.
      if (changedFieldNames(before ?? {}, await matrix(b).afterRefusals(), names).length === 0) return;
      // Some update of the lot changed the record; which one, one read cannot tell: this one
      // is sent again alone, between two reads.
      const standingNow = await record.current();
      const again = await record.update(b.probeBody(standingNow), c.auth);
      if (is2xx(again)) run.notApplicable(`sent again alone, the update was not refused: it answered ${again.status}`);
      const changed = changedFieldNames(standingNow, await record.read(), names);
      ensure(changed.length === 0, `the update refused with ${again.status} changed ${changed.join(', ')}`);
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
        if (!refusal || is2xx(refusal.answer)) continue;
        judged += 1;
        if (refusal.beforeRead) recordExchange(refusal.beforeRead);
        const protectedRecord = refusal.before ?? (await b.record.current());
        const values = recordValuesShown(refusal.answer, protectedRecord, names, refusal.answer.exchange.request.body);
        if (values.length) shown.push(`${c.description} (${refusal.answer.status}): ${values.join(', ')}`);
      }
      if (!judged) run.blocked(`BUS-AUTH-INVALID:${op.operationId}:unknown-key`, 'no request without a valid key was answered with a refusal');
      ensure(shown.length === 0, `refusals of ${op.method} ${op.path} carry values of the business record: ${shown.join('; ')}`);
    },
  };
}
