import { createHash } from 'node:crypto';
import { incompleteText, notTestedText, VERDICT_TEXT, type RunResult } from '../run-result.ts';
import type { Product } from '../../config/product.ts';

export type { Product };


export const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/**
 * SUMMARY.md of a certification bundle. The manifest is in `sha256sum` format, so a recipient
 * can check the bundle with `sha256sum -c` on the lines of the block.
 */
export function summaryMarkdown(run: RunResult, product: Product, manifest: [file: string, sha: string][]): string {
  const c = run.counts;
  const mustFailures = run.checks.filter((x) => x.outcome === 'failed');
  // Never certified without proof: an incomplete run (a blocked MUST check makes one) is not.
  const certified = run.verdict === 'conformant'
    ? `Certified: yes${notTestedText(run) ? ` (${notTestedText(run)})` : ''}`
    : `Certified: no — ${run.verdict === 'incomplete' ? `the run is incomplete: ${incompleteText(run)}` : 'a MUST check failed'}`;
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
