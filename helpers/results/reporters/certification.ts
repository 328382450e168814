import { createHash } from 'node:crypto';
import { incompleteText, notTestedText, VERDICT_TEXT, type RunResult } from '../run-result.ts';
import type { Product } from '../../config/product.ts';

export type { Product };


export const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/**
 * Why a run does not certify the product it names, or undefined when it does. Certified means a
 * vendor's implementation was tested whole: never the suite's own reference (a self-test), never
 * without proof (an incomplete run, a blocked MUST check), never with a MUST requirement untested,
 * even one the catalog lets a run leave untested (BUS-AUTH-EXPIRED without an expired key).
 */
export function certificationRefusal(run: Pick<RunResult, 'target' | 'verdict' | 'stopped' | 'untested' | 'checks' | 'suiteErrors'>): string | undefined {
  if (run.target.embeddedReference) return 'a self-test: the run tested the suite\'s own embedded reference implementation, not the product named here (certify with --base-url of the product\'s deployment)';
  if (run.verdict === 'not-conformant') return 'a MUST check failed';
  if (run.verdict === 'incomplete') return `the run is incomplete: ${incompleteText(run as RunResult)}`;
  const notTested = notTestedText(run as RunResult);
  if (notTested) return `not every MUST requirement was tested: ${notTested.replace(/^not tested: /, '')}`;
  return undefined;
}

/** "Certified: yes", or "Certified: no — <why>". */
export function certifiedLine(run: RunResult): string {
  const refusal = certificationRefusal(run);
  return refusal ? `Certified: no — ${refusal}` : 'Certified: yes';
}

/**
 * SUMMARY.md of a certification bundle. The manifest is in `sha256sum` format, so a recipient
 * can check the bundle with `sha256sum -c` on the lines of the block.
 */
export function summaryMarkdown(run: RunResult, product: Product, manifest: [file: string, sha: string][]): string {
  const c = run.counts;
  const mustFailures = run.checks.filter((x) => x.outcome === 'failed');
  const certified = certifiedLine(run);
  return `# Certification: Scheduling API v1

**Verdict: ${VERDICT_TEXT[run.verdict]}**

**${certified}**

| | |
|---|---|
| Vendor | ${product.vendor} |
| Product | ${product.product} ${product.version} |
| Contact | ${product.contact ?? '—'} |
| Target | ${run.target.origin}${run.target.embeddedReference ? ' (embedded reference)' : ''}${run.target.proxy ? ` through the proxy ${run.target.proxy}` : ''} |
| Run | ${run.startedAt} to ${run.endedAt} |
| Suite version | ${run.suite.version} |
| Spec SHA-256 | \`${run.spec.sha256}\` |

## Checks by level

| Level | Passed | Failed | Warned | Not applicable | Skipped |
|---|---|---|---|---|---|
| MUST | ${c.must.passed} | ${c.must.failed} | — | ${run.checks.filter((x) => x.level === 'MUST' && x.outcome === 'not-applicable').length} | ${run.checks.filter((x) => x.level === 'MUST' && x.outcome === 'skipped').length} |
| SHOULD | ${c.should.passed} | ${c.should.failed} | ${c.should.warned} | ${run.checks.filter((x) => x.level === 'SHOULD' && x.outcome === 'not-applicable').length} | ${run.checks.filter((x) => x.level === 'SHOULD' && x.outcome === 'skipped').length} |

${c.checks} checks, ${c.requests} requests. ${mustFailures.length ? `Failed: ${mustFailures.map((x) => `\`${x.id}\``).join(', ')}.` : 'No check failed.'}
${run.suiteErrors.length ? `\nThe suite could not run completely: ${run.suiteErrors.length} suite error(s), see result.json.\n` : ''}
## Left on the target

${run.leftOnTarget.length ? run.leftOnTarget.map((l) => `- \`${l.record}\`: ${l.problem}`).join('\n') : 'Nothing.'}

## Manifest (SHA-256)

\`\`\`
${manifest.map(([file, hash]) => `${hash}  ${file}`).join('\n')}
\`\`\`
`;
}
