import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from './run-result.ts';
import { toJunit } from './reporters/junit.ts';
import { htmlPieces } from './reporters/html.ts';
import { harPieces } from './reporters/har.ts';
import { summaryMarkdown, type Product } from './reporters/certification.ts';
import { jsonPieces, writePieces } from './json-pieces.ts';

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
  // Each written as it is made, never whole in memory (issue 35: a long list's run reports tens of thousands of requests).
  const texts: Record<keyof typeof REPORT_FILES, () => Iterable<string>> = {
    json: () => jsonLines(run),
    junit: () => [toJunit(run)],
    html: () => htmlPieces(run, options.certify),
    har: () => harLines(run),
  };
  const hashes = new Map<string, string>();
  // The project's tests judge a run by result.json alone (Io.resultOnly): the other formats of hundreds of runs are not read.
  const formats = options.resultOnly && !options.certify ? (['json'] as const) : (Object.keys(REPORT_FILES) as (keyof typeof REPORT_FILES)[]);
  const files = formats.map((k) => {
    const file = join(dir, REPORT_FILES[k]);
    hashes.set(REPORT_FILES[k], writePieces(file, texts[k](), options.redact));
    return file;
  });
  if (!options.certify) return { dir, files };

  const bundle = join(dir, CERTIFICATION_DIR);
  mkdirSync(bundle, { recursive: true });
  const manifest: [string, string][] = [];
  // The reports as written above, copied; the product as the run was given it.
  for (const name of [REPORT_FILES.json, REPORT_FILES.junit, REPORT_FILES.html]) {
    copyFileSync(join(dir, name), join(bundle, name));
    manifest.push([name, hashes.get(name)!]);
  }
  manifest.push(['PRODUCT.json', writePieces(join(bundle, 'PRODUCT.json'), [`${JSON.stringify(options.certify, null, 2)}\n`], options.redact)]);
  writePieces(join(bundle, 'SUMMARY.md'), [summaryMarkdown(run, options.certify, manifest)], options.redact);
  files.push(...manifest.map(([name]) => join(bundle, name)), join(bundle, 'SUMMARY.md'));
  return { dir, files, bundle };
}

/** A JSON file's text: JSON.stringify(value, null, 2) and a newline, in pieces. */
function* jsonLines(value: unknown): Generator<string> {
  yield* jsonPieces(value);
  yield '\n';
}

function* harLines(run: RunResult): Generator<string> {
  yield* harPieces(run);
  yield '\n';
}
