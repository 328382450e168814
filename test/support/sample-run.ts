import type { Exchange } from '../../helpers/http/exchanges.ts';
import type { CollectedCheck } from '../../helpers/results/check-outcomes.ts';
import { buildRunResult, type RunResult } from '../../helpers/results/run-result.ts';

const exchange = (status: number, body: string): Exchange => ({
  startedAt: '2025-01-02T03:04:05.000Z',
  durationMs: 12,
  request: {
    method: 'PATCH',
    url: 'http://127.0.0.1:4010/api/v1/business?x=1',
    headers: { accept: 'application/json', authorization: 'Bearer $SCHEDULING_API_KEY', 'content-type': 'application/json' },
    body: `{"name":"O'Brien & <Sons>\u0001"}`,
  },
  response: { status, headers: { 'content-type': 'application/json' }, body, bodyBytes: body.length, truncated: false },
  attempt: 1,
});

const check = (checkId: string, level: 'MUST' | 'SHOULD', outcome: CollectedCheck['outcome'], reason?: string): CollectedCheck => ({
  id: checkId, requirement: checkId.split(':')[0], level, clause: '4', title: `title of ${checkId}`, resource: checkId.startsWith('BUS') ? 'business' : 'operations',
  outcome, reason, durationMs: 7, exchanges: outcome === 'skipped' || outcome === 'blocked' ? [] : [exchange(outcome === 'passed' ? 200 : 404, '{"error":"nope"}')], notes: [],
});

/** A run with every outcome, a pinned failure, a stale pin, a suite error and a record left behind. */
export function sampleRun(): RunResult {
  return buildRunResult({
    suiteVersion: '0.1.0',
    specSha256: 'a'.repeat(64),
    baseUrl: 'http://127.0.0.1:4010',
    embeddedReference: false,
    startedAt: new Date('2025-01-02T03:04:05.000Z'),
    endedAt: new Date('2025-01-02T03:04:07.500Z'),
    strict: false,
    readOnly: false,
    certify: false,
    expectFile: 'expect.json',
    expectations: {
      'BUS-UPDATE-200': { outcome: 'failed', reason: 'tracked', link: 'https://example.com/issues/1' },
      'OP-DOCUMENTED:listCustomers': { outcome: 'failed', reason: 'was broken' },
      'GONE-CHECK': { outcome: 'failed', reason: 'removed' },
    },
    checks: [
      check('OP-DOCUMENTED:listCustomers', 'MUST', 'passed'),
      check('OP-DOCUMENTED:findCustomer', 'MUST', 'failed', 'GET /api/v1/customers/{id} answered 404, documented success is 2XX'),
      check('BUS-UPDATE-200', 'MUST', 'failed', 'answered 404'),
      check('BUS-GET-CONTENT-TYPE', 'SHOULD', 'warning', 'labelled text/plain'),
      check('BUS-AUTH-EXPIRED', 'MUST', 'not-applicable', 'no expired key given'),
      check('BUS-AUTH-REJECTED-NO-CHANGE:missing', 'MUST', 'blocked', 'blocked by BUS-GET-200: no change is made without a snapshot to restore'),
      check('BUS-UPDATE-APPLIES:name', 'MUST', 'skipped', 'left out of a --read-only run'),
    ],
    observations: [{ id: 'OBS-CUSTOMERS-AUTH', title: 'customers without a key', resource: 'operations', text: 'answered 200', exchanges: [exchange(200, '[]')] }],
    suiteErrors: ['business.test.ts: beforeAll failed'],
    leftOnTarget: [{ record: 'customer 42', problem: 'delete answered 500' }],
  });
}
