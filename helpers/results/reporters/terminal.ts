import { styleText } from 'node:util';
import type { CollectedCheck } from '../check-outcomes.ts';
import type { Expectations } from '../../config/expectations.ts';
import type { Output } from '../../core/output.ts';
import { certifiedLine } from './certification.ts';
import type { Progress } from './progress.ts';
import { suiteRank } from '../../core/resource-order.ts';
import { incompleteText, isKnownDeviation, notTestedText, scopeText, VERDICT_TEXT, type RunResult } from '../run-result.ts';

type Style = Parameters<typeof styleText>[0];

/** Colours only on a TTY, and never when CI or NO_COLOR is set. */
export function useColour(stream: Output, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return Boolean(stream.isTTY) && !env.NO_COLOR && !ci;
}

// Each outcome has its own mark and word, so the lines read apart without colour too.
const MARKS: Record<CollectedCheck['outcome'] | 'known', { mark: string; style: Style; label: string }> = {
  passed: { mark: '✓', style: 'green', label: 'pass' },
  failed: { mark: '✗', style: 'red', label: 'FAIL' },
  warning: { mark: '!', style: 'yellow', label: 'warn' },
  'not-applicable': { mark: '–', style: 'cyan', label: 'n/a ' },
  blocked: { mark: '⊘', style: 'yellow', label: 'BLKD' },
  skipped: { mark: '·', style: 'gray', label: 'skip' },
  known: { mark: '✗', style: 'magenta', label: 'KNWN' },
};

/** Failures repeated at the verdict, at most: the rest are counted. */
const RECAP_MAX = 20;

/**
 * A line per check as it finishes (fed by vitest's reporter API), under its lane's heading, once:
 * the lane that started first prints as it goes, the others wait their turn (lanes side by side
 * would interleave), so the output reads in contract order at any --concurrency; then the summary.
 */
export class TerminalReporter {
  /** The lane printing as it goes. */
  private current?: string;
  private readonly waiting = new Map<string, string[]>();
  private readonly ended = new Set<string>();

  constructor(
    private readonly out: Output,
    private readonly colour: boolean,
    private readonly expectations: Expectations = {},
    private readonly progress?: Progress,
  ) {}

  private paint(style: Style, text: string): string {
    return this.colour ? styleText(style, text) : text;
  }

  private write(text: string): void {
    if (this.progress) this.progress.write(this.out, text);
    else this.out.write(text);
  }

  private heading(resource: string): string {
    return `\n${this.paint('bold', resource)}\n`;
  }

  check(c: CollectedCheck): void {
    if (this.progress) this.progress.done++;
    // Skipped checks share a reason (read-only, interrupted, run timeout): the summary counts them in one line.
    if (c.outcome === 'skipped') return;
    const line = this.line(c);
    if (this.current === undefined && !this.ended.has(c.resource)) {
      this.current = c.resource;
      this.write(this.heading(c.resource));
    }
    if (c.resource === this.current) return this.write(line);
    this.waiting.set(c.resource, [...(this.waiting.get(c.resource) ?? []), line]);
  }

  /** A lane began or ended (vitest's suite events): the next waiting lane, in contract order, takes the floor. */
  lane(resource: string, working: boolean): void {
    this.progress?.lane(resource, working);
    if (working) return;
    this.ended.add(resource);
    if (resource !== this.current) return;
    this.current = undefined;
    this.flush(false);
  }

  /** Lanes waiting, in contract order: the ended ones whole; the first still working becomes current. */
  private flush(all: boolean): void {
    for (const resource of [...this.waiting.keys()].sort((a, b) => suiteRank(a) - suiteRank(b))) {
      this.write(`${this.heading(resource)}${this.waiting.get(resource)!.join('')}`);
      this.waiting.delete(resource);
      if (!all && !this.ended.has(resource)) {
        this.current = resource;
        return;
      }
    }
  }

  private line(c: CollectedCheck): string {
    const pin = this.expectations[c.id];
    const m = MARKS[pin && c.outcome === 'failed' && pin.outcome === 'failed' ? 'known' : c.outcome];
    const head = `${m.mark} ${m.label} ${c.level.padEnd(6)} ${c.id}`;
    let line = `  ${this.paint(m.style, head)} ${this.paint('dim', `${c.title} (${c.durationMs} ms)`)}`;
    if (c.reason && c.outcome !== 'passed') line += `\n      ${this.paint(m.style, c.reason.split('\n')[0])}`;
    if (pin && pin.outcome === c.outcome) line += `\n      ${this.paint('magenta', `known deviation (--expect): ${pin.reason}`)}`;
    else if (pin && c.outcome === 'passed') line += `\n      ${this.paint('yellow', `pinned as ${pin.outcome} in the --expect file, now passes: remove the pin`)}`;
    return `${line}\n`;
  }

  /** The failures again, beside the verdict: one among some 200 check lines is easy to miss. */
  private recap(run: RunResult): string[] {
    const failed = run.checks.filter((c) => c.outcome === 'failed');
    if (!failed.length) return [];
    const shown = failed.slice(0, RECAP_MAX).map((c) => {
      const known = isKnownDeviation(c) ? ' (known deviation, --expect)' : '';
      return `  ${this.paint(isKnownDeviation(c) ? 'magenta' : 'red', `${MARKS.failed.mark} ${c.id}`)} [${c.level}, clause ${c.clause}]${known}: ${(c.reason ?? '').split('\n')[0]}`;
    });
    const more = failed.length > RECAP_MAX ? [`  … and ${failed.length - RECAP_MAX} more (every one in result.json and report.html)`] : [];
    return ['', this.paint('bold', `Failed (${failed.length})`), ...shown, ...more];
  }

  summary(run: RunResult, reports?: { dir: string; bundle?: string }): void {
    this.flush(true);
    this.progress?.stop();
    const n = run.counts;
    const style: Style = run.verdict === 'conformant' ? 'green' : 'red';
    const lines: string[] = [];
    if (run.observations.length) {
      lines.push('', this.paint('bold', 'Observations (where the contract does not rule: information, never a failure)'));
      for (const o of run.observations) lines.push(`  ${this.paint('cyan', 'i')} ${o.id}  ${this.paint('dim', o.text)}`);
    }
    const skipped = new Map<string, number>();
    for (const c of run.checks) if (c.outcome === 'skipped') skipped.set(c.reason ?? 'not run', (skipped.get(c.reason ?? 'not run') ?? 0) + 1);
    if (skipped.size) lines.push('');
    for (const [reason, count] of skipped) lines.push(this.paint('gray', `${MARKS.skipped.mark} ${count} ${count === 1 ? 'check' : 'checks'} skipped: ${reason}`));
    lines.push(
      '',
      `MUST    ${n.must.passed} passed, ${n.must.failed} failed${n.knownDeviations ? ` (${n.knownDeviations} known deviations, --expect)` : ''}`,
      `SHOULD  ${n.should.passed} passed, ${n.should.warned} warned${n.should.failed ? `, ${n.should.failed} failed (--strict)` : ''}`,
      `other   ${n.notApplicable} not applicable, ${n.blocked} blocked, ${n.skipped} skipped`,
      `run     ${n.requests} requests in ${(run.durationMs / 1000).toFixed(1)} s`,
    );
    const stale = run.checks.filter((c) => c.expected?.status === 'now-passes').map((c) => c.id);
    if (stale.length) lines.push(this.paint('yellow', `pins    now passing, remove from the --expect file: ${stale.join(', ')}`));
    if (run.unmatchedExpectations.length) lines.push(this.paint('yellow', `pins    matching no check of this run: ${run.unmatchedExpectations.join(', ')}`));
    lines.push(...this.recap(run));
    const verdict = run.verdict === 'incomplete' ? `${VERDICT_TEXT.incomplete} (${incompleteText(run)})` : VERDICT_TEXT[run.verdict];
    const passes = run.verdict === 'not-conformant' && run.checks.filter((c) => c.outcome === 'failed').every(isKnownDeviation);
    const notTested = notTestedText(run);
    lines.push(`verdict ${this.paint(style, verdict)}${scopeText(run)}${passes ? ' (only known deviations: the run passes)' : ''}${notTested ? `; ${notTested}` : ''}`);
    lines.push('', this.paint('bold', 'Left on the target'));
    if (!run.leftOnTarget.length) lines.push('  nothing');
    for (const l of run.leftOnTarget) lines.push(this.paint('red', `  ${l.record}: ${l.problem}`));
    if (reports) {
      lines.push('', `Reports: ${reports.dir}`);
      if (reports.bundle) lines.push(`Certification bundle: ${reports.bundle}`, certifiedLine(run));
    }
    this.out.write(`${lines.join('\n')}\n`);
  }
}
