import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT } from './errors.ts';
import type { RunOptions } from './options.ts';
import type { TargetConfig } from './target.ts';
import { ResultCollector } from './reporters/collector.ts';
import { TerminalReporter, useColour } from './reporters/terminal.ts';
import { runSuites } from './run-suites.ts';
import { isConformant } from './results.ts';
import { loadSpec } from './spec.ts';

/** Runs the suites against a reachable target, writes the reports, and returns the exit code. */
export async function conform(options: RunOptions, target: TargetConfig, redact: (t: string) => string): Promise<number> {
  const started = Date.now();
  const collector = new ResultCollector(redact);
  const terminal = new TerminalReporter(process.stdout, useColour(process.stdout));
  collector.onCheck((c) => terminal.check(c));
  await runSuites({ target, reporters: [collector] });

  const requests = collector.checks.reduce((n, c) => n + c.exchanges.length, 0);
  for (const e of collector.suiteErrors) process.stderr.write(`suite error: ${e.split('\n')[0]}\n`);
  terminal.summary(collector.checks, { requests, durationMs: Date.now() - started, incomplete: collector.suiteErrors.length > 0 });

  const dir = resolve(options.reportDir);
  mkdirSync(dir, { recursive: true });
  const spec = await loadSpec();
  const result = {
    specSha256: spec.sha256,
    target: new URL(target.baseUrl).origin,
    startedAt: new Date(started).toISOString(),
    endedAt: new Date().toISOString(),
    strict: target.strict,
    readOnly: target.readOnly,
    checks: collector.checks,
    observations: collector.observations,
    suiteErrors: collector.suiteErrors,
  };
  writeFileSync(join(dir, 'result.json'), redact(JSON.stringify(result, null, 2)));
  process.stdout.write(`Reports: ${dir}\n`);

  // A failed check proves non-conformance even when something else went wrong (say, what a
  // broken delete left on the target): only a run that proves nothing either way exits 2.
  if (!isConformant(collector.checks)) return EXIT.nonConformant;
  return collector.suiteErrors.length ? EXIT.usage : EXIT.conformant;
}
