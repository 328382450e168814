import { styleText } from 'node:util';
import type { CheckResult } from '../results.ts';
import { countOutcomes, isConformant } from '../results.ts';

type Style = Parameters<typeof styleText>[0];

/** Colours only on a TTY, and never when CI or NO_COLOR is set. */
export function useColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.CI !== 'true' && env.CI !== '1';
}

const MARKS: Record<CheckResult['outcome'], { mark: string; style: Style; label: string }> = {
  passed: { mark: '✓', style: 'green', label: 'pass' },
  failed: { mark: '✗', style: 'red', label: 'FAIL' },
  warning: { mark: '!', style: 'yellow', label: 'warn' },
  'not-applicable': { mark: '–', style: 'cyan', label: 'n/a ' },
  skipped: { mark: '·', style: 'gray', label: 'skip' },
};

/** A line per check as it finishes, grouped by resource, then a summary with the verdict. */
export class TerminalReporter {
  private resource?: string;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly colour: boolean,
  ) {}

  private paint(style: Style, text: string): string {
    return this.colour ? styleText(style, text) : text;
  }

  check(c: CheckResult): void {
    if (c.resource !== this.resource) {
      this.resource = c.resource;
      this.out.write(`\n${this.paint('bold', c.resource)}\n`);
    }
    const m = MARKS[c.outcome];
    const head = `${m.mark} ${m.label} ${c.level.padEnd(6)} ${c.checkId}`;
    let line = `  ${this.paint(m.style, head)} ${this.paint('dim', `${c.title} (${c.durationMs} ms)`)}`;
    if (c.reason && c.outcome !== 'passed') line += `\n      ${this.paint(m.style, c.reason.split('\n')[0])}`;
    this.out.write(`${line}\n`);
  }

  /** `incomplete`: true when the suite could not run, or why the run was cut short. */
  summary(checks: CheckResult[], extra: { requests: number; durationMs: number; incomplete: boolean | string }): void {
    const n = countOutcomes(checks);
    const verdict = extra.incomplete
      ? this.paint('red', `INCOMPLETE (${typeof extra.incomplete === 'string' ? extra.incomplete : 'the suite could not run; see the errors above'})`)
      : isConformant(checks) ? this.paint('green', 'CONFORMANT') : this.paint('red', 'NOT CONFORMANT');
    this.out.write(
      [
        '',
        `MUST    ${n.must.passed} passed, ${n.must.failed} failed`,
        `SHOULD  ${n.should.passed} passed, ${n.should.warned} warned${n.should.failed ? `, ${n.should.failed} failed (--strict)` : ''}`,
        `other   ${n.notApplicable} not applicable, ${n.skipped} skipped`,
        `run     ${extra.requests} requests in ${(extra.durationMs / 1000).toFixed(1)} s`,
        `verdict ${verdict}`,
        '',
      ].join('\n'),
    );
  }
}
