import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from './run-result.ts';
import { toJunit } from './reporters/junit.ts';
import { toHtml } from './reporters/html.ts';
import { toHar } from './reporters/har.ts';
import { sha256, summaryMarkdown, type Product } from './reporters/certification.ts';

import { CERTIFICATION_DIR, REPORT_FILES } from './report-files.ts';

export { CERTIFICATION_DIR, REPORT_FILES };

export interface WrittenReports {
  dir: string;
  /** Every file written, the bundle's included: what the secret scan reads. */
  files: string[];
  bundle?: string;
}

/**
 * Writes every format of one run. Every text passes the redactor once more on its way to disk:
 * the exchanges already are redacted, this guards what any renderer might add.
 */
export function writeReports(dir: string, run: RunResult, options: { redact: (t: string) => string; certify?: Product; resultOnly?: boolean }): WrittenReports {
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(run, null, 2)}\n`;
  if (options.resultOnly && !options.certify) {
    const path = join(dir, REPORT_FILES.json);
    writeFileSync(path, options.redact(json));
    return { dir, files: [path] };
  }
  const texts: Record<keyof typeof REPORT_FILES, string> = {
    json,
    junit: toJunit(run),
    html: toHtml(run, options.certify),
    har: `${JSON.stringify(toHar(run), null, 2)}\n`,
  };
  const write = (path: string, text: string) => {
    const safe = options.redact(text);
    writeFileSync(path, safe);
    return safe;
  };
  const files = (Object.keys(REPORT_FILES) as (keyof typeof REPORT_FILES)[]).map((k) => {
    write(join(dir, REPORT_FILES[k]), texts[k]);
    return join(dir, REPORT_FILES[k]);
  });
  if (!options.certify) return { dir, files };

  const bundle = join(dir, CERTIFICATION_DIR);
  mkdirSync(bundle, { recursive: true });
  const manifest: [string, string][] = [];
  const bundled: [string, string][] = [
    [REPORT_FILES.json, texts.json],
    [REPORT_FILES.junit, texts.junit],
    [REPORT_FILES.html, texts.html],
    ['PRODUCT.json', `${JSON.stringify(options.certify, null, 2)}\n`],
  ];
  for (const [name, text] of bundled) manifest.push([name, sha256(write(join(bundle, name), text))]);
  write(join(bundle, 'SUMMARY.md'), summaryMarkdown(run, options.certify, manifest));
  files.push(...bundled.map(([name]) => join(bundle, name)), join(bundle, 'SUMMARY.md'));
  return { dir, files, bundle };
}
