/**
 * A pin's link from the --expect file lands in the HTML report, whose CSP allows
 * inline script; only http: and https: links may become an <a href>, anything else is text.
 */
import { describe, expect, test } from 'vitest';
import { sampleRun } from './support/sample-run.ts';
import { linkHtml, toHtml } from '../helpers/results/reporters/html.ts';

const hostile = ['javascript:alert(document.domain)', ' JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'file:///etc/passwd', '//evil.example/x', 'not a url'];

describe('links of known deviations in the HTML report', () => {
  test.for(hostile)('%s is shown as text, never as a link', (link) => {
    const html = linkHtml(link);
    expect(html).not.toMatch(/<a\b|href=/i);
    expect(html).not.toContain('<script>');
  });

  test.for(['https://tracker.example/ISSUE-1', 'http://tracker.example/a?b=1&c="2"'])('%s is a link', (link) => {
    expect(linkHtml(link)).toMatch(/^<a href="[^"<>]+" rel="noreferrer">/);
  });

  test('a whole report: the one http(s) pin is the only href', () => {
    const run = sampleRun();
    const pinned = run.checks.filter((c) => c.expected);
    pinned[0].expected!.link = 'javascript:alert(1)';
    pinned[1].expected!.link = 'https://tracker.example/ISSUE-2';
    const html = toHtml(run);
    // Links within the page (the jumps from the top) aside.
    expect(html.match(/href="[^"#][^"]*"/g)).toEqual(['href="https://tracker.example/ISSUE-2"']);
    expect(html).toContain('javascript:alert(1)');
  });
});
