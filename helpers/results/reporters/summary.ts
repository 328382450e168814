import { incompleteText, notTestedText, scopeText, STOPPED_TEXT, VERDICT_TEXT, type ReportedCheck, type RunResult } from '../run-result.ts';

/** Table cells are one line, and a pipe would end the cell. */
const cell = (text: string, max = 200) => {
  const line = text.split('\n')[0].replace(/\|/g, '\\|').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * The Markdown summary (--summary FILE, $GITHUB_STEP_SUMMARY): verdict, counts by level and
 * outcome, each failure with its clause and a one-line reason, and what was left on the target.
 * Outcome columns come from the run itself, so an outcome this file does not know still shows.
 */
export function toSummaryMarkdown(run: RunResult): string {
  const outcomes = [...new Set(['passed', 'failed', 'warning', 'not-applicable', 'skipped', ...run.checks.map((c) => c.outcome)])];
  const count = (level: string, outcome: string) => run.checks.filter((c) => c.level === level && c.outcome === outcome).length;
  const failed = run.checks.filter((c) => c.outcome !== 'passed' && c.outcome !== 'not-applicable' && c.outcome !== 'skipped');
  const rows = (checks: ReportedCheck[]) =>
    checks.map((c) => `| \`${c.id}\` | ${c.level} | ${c.clause} | ${c.outcome}${c.expected?.status === 'as-expected' ? ' (known deviation)' : ''} | ${cell(c.reason ?? '')} |`);
  const notTested = notTestedText(run);
  const target = `${run.target.origin}${run.target.embeddedReference ? ' (embedded reference)' : ''}`;
  const filters = [
    run.options.only !== null ? `--only ${run.options.only}` : '',
    run.options.readOnly ? '--read-only' : '',
    run.options.expectFile ? `--expect ${run.options.expectFile}` : '',
    run.options.strict ? '--strict' : '',
    run.explore ? `--explore ${run.explore.commands} --explore-seed ${run.explore.seed}` : '',
  ].filter(Boolean);
  return [
    `## Scheduling API v1 conformance: ${VERDICT_TEXT[run.verdict] ?? run.verdict}${scopeText(run)}`,
    '',
    ...(run.verdict === 'incomplete' && !run.stopped ? [`Incomplete: ${incompleteText(run)}.`, ''] : []),
    ...(notTested ? [`${notTested[0].toUpperCase()}${notTested.slice(1)}.`, ''] : []),
    `Target ${target} · scheduling-conformance ${run.suite.version} · ${run.counts.checks} checks, ${run.counts.requests} requests, ${(run.durationMs / 1000).toFixed(1)} s · exit code ${run.exitCode}${filters.length ? ` · ${filters.join(' ')}` : ''}`,
    ...(run.stopped ? ['', `The run was ${STOPPED_TEXT[run.stopped] ?? run.stopped}: checks not run are skipped.`] : []),
    '',
    `| level | ${outcomes.join(' | ')} |`,
    `|---|${outcomes.map(() => '---:').join('|')}|`,
    ...['MUST', 'SHOULD'].map((level) => `| ${level} | ${outcomes.map((o) => count(level, o)).join(' | ')} |`),
    '',
    ...(failed.length
      ? ['### Failures and warnings', '', '| check | level | clause | outcome | reason |', '|---|---|---|---|---|', ...rows(failed), '']
      : ['No check failed or warned.', '']),
    ...(run.suiteErrors.length ? ['### Suite errors', '', ...run.suiteErrors.map((e) => `- ${cell(e, 300)}`), ''] : []),
    '### Left on the target',
    '',
    ...(run.leftOnTarget.length ? run.leftOnTarget.map((l) => `- \`${l.record}\`: ${cell(l.problem, 300)}`) : ['Nothing.']),
    ...(run.recoverCommand ? ['', `Put it back later, from the run journal in the report directory: \`${run.recoverCommand}\``] : []),
    '',
  ].join('\n');
}
