/** The Markdown summary (--summary, $GITHUB_STEP_SUMMARY) of a run with every outcome. */
import { expect, test } from 'vitest';
import { toSummaryMarkdown } from '../helpers/results/reporters/summary.ts';
import { sampleRun } from './support/sample-run.ts';

test('verdict, counts by level, each failure and warning with its clause and a one-line reason, and what was left', () => {
  const run = sampleRun();
  run.checks[1].reason = 'answered 404 | not 2XX\nsecond line of detail';
  const md = toSummaryMarkdown(run);
  expect(md).toMatch(/^## Scheduling API v1 conformance: NOT CONFORMANT\n/);
  expect(md).toContain('--expect expect.json');
  expect(md).toContain('| level | passed | failed | warning | not-applicable | skipped |');
  expect(md).toContain('| MUST | 1 | 2 | 0 | 1 | 1 |');
  expect(md).toContain('| SHOULD | 0 | 0 | 1 | 0 | 0 |');
  expect(md).toContain('| `OP-DOCUMENTED:findCustomer` | MUST | 4 | failed | answered 404 \\| not 2XX |');
  expect(md).toContain('| `BUS-UPDATE-200` | MUST | 4 | failed (known deviation) | answered 404 |');
  expect(md).toContain('| `BUS-GET-CONTENT-TYPE` | SHOULD | 4 | warning | labelled text/plain |');
  expect(md).not.toContain('second line of detail');
  expect(md).toContain('- business.test.ts: beforeAll failed');
  expect(md).toMatch(/### Left on the target\n\n- `customer 42`: delete answered 500\n/);
});

test('an outcome the summary does not know still gets its column', () => {
  const run = sampleRun();
  (run.checks[0] as { outcome: string }).outcome = 'blocked';
  expect(toSummaryMarkdown(run)).toContain('| level | passed | failed | warning | not-applicable | skipped | blocked |');
});
