/**
 * The checks are data: each registry declares its checks from the spec and the target's
 * configuration alone, in the order the suite files run, and names only checks that exist as
 * the ones it needs.
 */
import { describe, expect, test } from 'vitest';
import { REGISTRIES, declaredChecks } from '../helpers/registries/index.ts';
import { suiteRank } from '../helpers/core/resource-order.ts';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { loadSpec } from '../helpers/contract/spec.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

const target = (extra: Partial<TargetConfig> = {}): TargetConfig =>
  ({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', vendor: DEFAULT_VENDOR_CONFIG, strict: false, readOnly: false, timeoutMs: 1000, runId: 'r', ...extra }) as TargetConfig;
const spec = await loadSpec();

describe('the registries', () => {
  test('come in the order the suite files run', () => {
    const ranks = REGISTRIES.map((r) => suiteRank(r.resource));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(ranks).size).toBe(ranks.length);
  });

  test('declare each check id once', async () => {
    const ids = (await declaredChecks(target())).map((c) => c.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test('--only and --read-only select among the checks, they do not change what is declared', async () => {
    expect(await declaredChecks(target({ only: '^BUS-AUTH', readOnly: true }))).toEqual(await declaredChecks(target()));
  });

  test('every check a check needs is declared, before it, in the same registry', () => {
    const wrong = REGISTRIES.flatMap((registry) => {
      const checks = registry.checks(spec, target());
      return checks.flatMap((c, i) => (c.needs ?? []).filter((n) => !checks.slice(0, i).some((d) => d.id === n)).map((n) => `${c.id} needs ${n}`));
    });
    expect(wrong).toEqual([]);
    expect(REGISTRIES.some((registry) => registry.checks(spec, target()).some((c) => c.needs?.length))).toBe(true);
  });

});
