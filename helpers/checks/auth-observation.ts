import type { Observation } from './definition.ts';
import { is2xx, statusOnly, type Answer, type ApiClient } from '../http/client.ts';
import type { Operation } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

/** What to send without a key: the record to address and the body, or why it cannot be asked. */
export type Probe = { id?: unknown; body?: unknown } | { cannot: string };

/**
 * Section 5.3: authentication of customer and team member operations is not shown. Reports, as
 * information, whether the target answers the operation without a key; never a failure.
 * `prepare` finds or creates what the request needs; `settle` cleans up after an answer that
 * changed something (with the key).
 */
export function authObservation<C extends { client: ApiClient }>(
  target: TargetConfig,
  op: Operation,
  prepare: (ctx: C) => Promise<Probe>,
  settle: (ctx: C, answer: Answer, probe: { id?: unknown }) => Promise<void> = async () => {},
  /** How the request goes out: a lane that keeps its writes apart (see CustomerLane.deletingOutside) wraps it. */
  around: (ctx: C, send: () => Promise<Answer>, probe: { id?: unknown }) => Promise<Answer> = (_ctx, send) => send(),
): Observation<C> {
  return {
    observation: `AUTH-UNDOCUMENTED:${op.operationId}`,
    title: `whether ${op.method} ${op.path} answers without a key`,
    async observe(ctx) {
      if (target.readOnly && op.method !== 'GET') return 'not observed: a --read-only run sends nothing that could change data';
      const probe = await prepare(ctx);
      if ('cannot' in probe) return `not observed: ${probe.cannot}`;
      // Only the status of a read is judged: a list of any length goes by unread.
      const sink = op.method === 'GET' ? statusOnly : undefined;
      const answer = await around(ctx, () => ctx.client.call(op, { ...probe, auth: 'none', sink }), probe);
      await settle(ctx, answer, probe);
      const asked = `${op.method} ${op.path} without a key answered ${answer.status}`;
      if (is2xx(answer)) return `${asked}: the target serves it without authentication (the contract does not say whether it must, section 5.3)`;
      if (answer.status === 401 || answer.status === 403) return `${asked}: the target requires authentication here (not documented, section 5.3)`;
      return `${asked}: neither served nor refused for want of a key`;
    },
  };
}
