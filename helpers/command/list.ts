import type { RunOptions } from './options.ts';
import { UsageError } from '../core/errors.ts';
import { suiteVersion } from '../core/version.ts';
import { declaredChecks as declared, type DeclaredCheck } from '../registries/index.ts';
import { loadSpec } from '../contract/spec.ts';
import type { Io } from './io.ts';
import { emptySelection, selects, withPrerequisites } from '../core/selection.ts';

/**
 * The checks a run with these options would hold the target to, from the registries: the target
 * stands in as an address nobody is asked.
 */
export async function declaredChecks(options: Pick<RunOptions, 'vendor' | 'only' | 'readOnly'>): Promise<DeclaredCheck[]> {
  const checks = await declared({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'not-sent',
    vendor: options.vendor,
    strict: false,
    readOnly: options.readOnly,
    timeoutMs: 1000,
    runId: 'scr-listing',
  });
  // What a run with --only selects takes what its checks need with it (as cli.ts's selection).
  const only = withPrerequisites(checks, options.only);
  return checks.filter((c) => selects(only, c) && !(options.readOnly && c.changesData));
}

/** `--list [--json]`: what a run would check, before anything is sent. */
export async function listCommand(options: RunOptions, io: Io): Promise<number> {
  const checks = await declaredChecks(options);
  if (options.only !== undefined && checks.length === 0) {
    // Said as a run would say it, refusing the selection before sending anything.
    const every = await declaredChecks({ ...options, only: undefined, readOnly: false });
    throw new UsageError(emptySelection(every, options.only, options.readOnly) ?? `--only "${options.only}" selects no check`);
  }
  if (options.json) {
    const spec = await loadSpec();
    const list = { format: 'scheduling-conformance-checks/1', suite: { name: 'scheduling-conformance', version: suiteVersion }, spec: { file: 'spec/openapi.yaml', sha256: spec.sha256 }, checks };
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...checks.map((c) => c.id.length));
  const clauseWidth = Math.max(6, ...checks.map((c) => c.clause.length));
  const row = (level: string, clause: string, data: string, id: string, title: string) => `${level.padEnd(6)} ${clause.padEnd(clauseWidth)} ${data.padEnd(7)} ${id.padEnd(width)}  ${title}\n`;
  const must = checks.filter((c) => c.level === 'MUST').length;
  io.stdout.write([
    row('level', 'clause', 'data', 'check', 'title'),
    ...checks.map((c) => row(c.level, c.clause, c.changesData ? 'changes' : 'reads', c.id, c.title)),
    `\n${checks.length} checks (${must} MUST, ${checks.length - must} SHOULD); ${checks.filter((c) => c.changesData).length} change data on the target and are left out of --read-only runs\n`,
  ].join(''));
  return 0;
}
