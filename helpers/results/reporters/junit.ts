import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { byResource, isKnownDeviation, VERDICT_TEXT, type ReportedCheck, type RunResult } from '../run-result.ts';
import { curlCommand } from './curl.ts';
import { exchangeText } from './exchange-text.ts';

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** What the check saw, for the body of a failure or a warning: reason, requirement, exchanges, cURL. */
function details(c: ReportedCheck): string {
  const parts = [
    c.reason ?? c.outcome,
    `requirement ${c.requirement} (${c.level}, clause ${c.clause}): ${c.text}`,
    ...c.notes.map((n) => `note: ${n}`),
    ...c.exchanges.map((e, i) => `exchange ${i + 1}:\n${exchangeText(e)}\n\nreproduce:\n${curlCommand(e)}`),
  ];
  return parts.join('\n\n');
}

/**
 * One testcase per check, named "<check id> [<level>] <title>" so the name is stable across runs
 * (CI history) and carries the requirement and level. JUnit knows no warning: a SHOULD warning is
 * a passing testcase whose system-out starts with "WARNING", as a CI tool shows a pass; not
 * applicable and blocked checks and known deviations (--expect) are skipped testcases, with the reason.
 */
function testcase(suite: XMLBuilder, c: ReportedCheck): void {
  const tc = suite.ele('testcase', { name: `${c.id} [${c.level}] ${c.title}`, classname: `scheduling-conformance.${c.resource}`, time: seconds(c.durationMs) });
  if (isKnownDeviation(c)) {
    const pin = c.expected!;
    tc.ele('skipped', { message: `known deviation (--expect): ${pin.reason}${pin.link ? ` ${pin.link}` : ''}` });
    tc.ele('system-out').txt(details(c));
  } else if (c.outcome === 'failed') {
    tc.ele('failure', { type: c.level, message: (c.reason ?? 'failed').split('\n')[0] }).txt(details(c));
  } else if (c.outcome === 'blocked') {
    // The reason already reads "blocked by <check id>: …".
    tc.ele('skipped', { message: c.reason ?? 'blocked' });
  } else if (c.outcome === 'not-applicable' || c.outcome === 'skipped') {
    tc.ele('skipped', { message: `${c.outcome === 'not-applicable' ? 'not applicable' : 'skipped'}: ${c.reason ?? ''}` });
  } else if (c.outcome === 'warning') {
    tc.ele('system-out').txt(`WARNING (SHOULD; fails only with --strict): ${details(c)}`);
  }
  if (c.expected?.status === 'now-passes') tc.ele('system-err').txt(`pinned as ${c.expected.outcome} in the --expect file, now ${c.outcome}: remove the pin`);
}

export function toJunit(run: RunResult): string {
  const root = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const failures = (cs: ReportedCheck[]) => cs.filter((c) => c.outcome === 'failed' && !isKnownDeviation(c)).length;
  const skipped = (cs: ReportedCheck[]) => cs.filter((c) => c.outcome === 'not-applicable' || c.outcome === 'blocked' || c.outcome === 'skipped' || isKnownDeviation(c)).length;
  const suites = root.ele('testsuites', {
    name: `scheduling-conformance ${run.suite.version}: ${VERDICT_TEXT[run.verdict]}`,
    tests: run.checks.length + run.suiteErrors.length,
    failures: failures(run.checks),
    errors: run.suiteErrors.length,
    time: seconds(run.durationMs),
  });
  for (const [resource, checks] of byResource(run.checks)) {
    const suite = suites.ele('testsuite', {
      name: resource, tests: checks.length, failures: failures(checks), errors: 0, skipped: skipped(checks),
      time: seconds(checks.reduce((t, c) => t + c.durationMs, 0)), timestamp: run.startedAt.replace(/\.\d+Z$/, ''),
    });
    const props = suite.ele('properties');
    const properties: [string, string][] = [
      ['suite.version', run.suite.version], ['spec.sha256', run.spec.sha256], ['target', run.target.origin], ...(run.target.proxy ? [['proxy', run.target.proxy] as [string, string]] : []),
      ['verdict', VERDICT_TEXT[run.verdict]], ['strict', String(run.options.strict)],
      ...(run.explore ? [['explore', `${run.explore.commands} commands, seed ${run.explore.seed}`] as [string, string]] : []),
      ['warnings', String(checks.filter((c) => c.outcome === 'warning').length)],
    ];
    for (const [name, value] of properties) props.ele('property', { name, value });
    for (const c of checks) testcase(suite, c);
  }
  if (run.suiteErrors.length) {
    const suite = suites.ele('testsuite', { name: 'suite errors', tests: run.suiteErrors.length, failures: 0, errors: run.suiteErrors.length, skipped: 0, time: '0.000' });
    run.suiteErrors.forEach((e, i) => {
      suite.ele('testcase', { name: `suite error ${i + 1}`, classname: 'scheduling-conformance', time: '0.000' }).ele('error', { message: e.split('\n')[0] }).txt(e);
    });
  }
  return root.end({ prettyPrint: true });
}
