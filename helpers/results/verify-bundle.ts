import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sha256, summaryMarkdown } from './reporters/certification.ts';
import { CERTIFICATION_DIR, REPORT_FILES } from './write-reports.ts';
import { VERDICT_TEXT, type RunResult } from './run-result.ts';
import type { Product } from '../config/product.ts';
import { suiteVersion } from '../core/version.ts';
import { loadSpec } from '../contract/spec.ts';
import { loadCatalog } from '../contract/catalog.ts';
import { UsageError } from '../core/errors.ts';

export interface BundleVerification {
  /** The certification directory that was read. */
  dir: string;
  /** True when the bundle proves what it claims: every reason below is absent. */
  holds: boolean;
  /** Every reason it does not hold, one line each. */
  reasons: string[];
  /** One paragraph: what the bundle proves, or what it claims and why that is not proven. */
  statement: string;
}

const SUMMARY = 'SUMMARY.md';
const PRODUCT = 'PRODUCT.json';
const BUNDLED = [REPORT_FILES.json, REPORT_FILES.junit, REPORT_FILES.html, PRODUCT];

/**
 * Checks a certification bundle (--certify): every file is the one the manifest hashes, SUMMARY.md
 * is exactly what its result, product and manifest give (so no byte of it changed either), this
 * suite version and spec made it, and the run was complete and failed no MUST check. The bundle
 * carries no signature: this proves it is whole and self-consistent, not who produced it.
 */
export async function verifyBundle(path: string): Promise<BundleVerification> {
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new UsageError(`verify: ${path} is not a directory`);
  // The report directory holds the bundle in certification/: accept either.
  const dir = !existsSync(join(path, SUMMARY)) && existsSync(join(path, CERTIFICATION_DIR, SUMMARY)) ? join(path, CERTIFICATION_DIR) : path;
  const reasons: string[] = [];
  const summaryText = readText(dir, SUMMARY, reasons);
  const manifest = summaryText === undefined ? [] : manifestOf(summaryText);
  if (summaryText !== undefined && manifest.length === 0) reasons.push(`${SUMMARY} has no manifest of SHA-256 hashes`);

  for (const [hash, file] of manifest) {
    const content = readBytes(dir, file);
    if (content === undefined) reasons.push(`${file} is in the manifest but not in the bundle`);
    else if (sha256(content) !== hash) reasons.push(`${file} has changed: its SHA-256 is not the manifest's`);
  }
  const listed = new Set([SUMMARY, ...manifest.map(([, f]) => f)]);
  for (const file of filesUnder(dir)) if (!listed.has(file)) reasons.push(`${file} is in the bundle but not in the manifest`);
  for (const file of BUNDLED) if (summaryText !== undefined && !manifest.some(([, f]) => f === file)) reasons.push(`the manifest does not list ${file}`);

  const run = readJson(dir, REPORT_FILES.json, reasons) as Partial<RunResult> | undefined;
  const product = readJson(dir, PRODUCT, reasons) as Partial<Product> | undefined;
  if (run && product && summaryText !== undefined) {
    let expected: string | undefined;
    try {
      expected = summaryMarkdown(run as RunResult, product as Product, manifest.map(([hash, file]) => [file, hash]));
    } catch {
      expected = undefined;
    }
    if (expected !== summaryText) reasons.push(`${SUMMARY} is not what ${REPORT_FILES.json}, ${PRODUCT} and the manifest give: it was changed`);
  }
  if (run) reasons.push(...runReasons(run, (await loadSpec()).sha256));
  if (product) for (const k of ['vendor', 'product', 'version'] as const) if (typeof product[k] !== 'string' || !product[k]) reasons.push(`${PRODUCT} names no ${k}`);
  return { dir, holds: reasons.length === 0, reasons, statement: statement(run, product, reasons.length === 0) };
}

/** What makes a run a certification of conformance: this suite, this spec, every check, no MUST failure. */
export function runReasons(run: Partial<RunResult>, specSha256: string): string[] {
  const reasons: string[] = [];
  const options: Partial<RunResult['options']> = run.options ?? {};
  const checks = Array.isArray(run.checks) ? run.checks : [];
  if (run.format !== 'scheduling-conformance-result/1') reasons.push(`${REPORT_FILES.json} is not a result this suite reads (format ${String(run.format)})`);
  if (run.suite?.name !== 'scheduling-conformance' || run.suite?.version !== suiteVersion) {
    reasons.push(`made by ${run.suite?.name ?? 'an unnamed suite'} ${run.suite?.version ?? '(no version)'}, not by this suite (scheduling-conformance ${suiteVersion})`);
  }
  if (run.spec?.sha256 !== specSha256) reasons.push(`made against a spec with SHA-256 ${run.spec?.sha256 ?? '(none)'}, not this suite's (${specSha256})`);
  if (options.certify !== true) reasons.push('not a certification run (--certify)');
  if (options.only !== null) reasons.push(`only some checks ran (--only ${String(options.only)})`);
  if (options.readOnly !== false) reasons.push('checks that change data were left out (--read-only)');
  if (options.expectFile !== null) reasons.push(`known deviations were pinned (--expect ${String(options.expectFile)})`);
  if (run.stopped) reasons.push(`the run was stopped (${run.stopped}) before every check ran`);
  if (Array.isArray(run.suiteErrors) && run.suiteErrors.length) reasons.push(`the suite could not run completely (${run.suiteErrors.length} suite error(s))`);
  if (run.target?.embeddedReference !== false) reasons.push('the run tested the suite\'s own embedded reference implementation (a self-test), not a vendor\'s implementation');
  if (run.verdict !== 'conformant') reasons.push(`the verdict is ${VERDICT_TEXT[run.verdict as keyof typeof VERDICT_TEXT] ?? String(run.verdict)}, not CONFORMANT`);
  if (checks.length === 0) reasons.push('the result holds no check');
  for (const c of checks) {
    if (c.level !== 'MUST') continue;
    if (c.outcome === 'failed') reasons.push(`MUST check ${c.id} failed (clause ${c.clause}): ${String(c.reason ?? '').split('\n')[0]}`);
    else if (c.outcome !== 'passed' && c.outcome !== 'not-applicable') reasons.push(`MUST check ${c.id} did not run to an outcome (${c.outcome}${c.reason ? `: ${String(c.reason).split('\n')[0]}` : ''})`);
  }
  // A requirement the run could not prove (result.json "untested", where this version writes it).
  // Even one the catalog lets a run leave untested: a certification holds the product to every MUST.
  for (const u of untestedOf(run)) reasons.push(`MUST requirement ${u.requirement} has no proof${u.allowed ? ' (not tested)' : ''}: ${String(u.reason).split('\n')[0]}`);
  const checked = new Set(checks.map((c) => c.requirement));
  for (const r of loadCatalog().requirements) if (r.level === 'MUST' && !checked.has(r.id)) reasons.push(`MUST requirement ${r.id} (clause ${r.clause}) has no check in the result`);
  return reasons;
}

function untestedOf(run: Partial<RunResult> | undefined): { requirement: string; reason: string; allowed: boolean }[] {
  const untested = (run as { untested?: unknown } | undefined)?.untested;
  return Array.isArray(untested) ? untested.filter((u) => u && typeof u === 'object') : [];
}

function statement(run: Partial<RunResult> | undefined, product: Partial<Product> | undefined, holds: boolean): string {
  const who = product ? `${product.product ?? 'an unnamed product'} ${product.version ?? ''} of ${product.vendor ?? 'an unnamed vendor'}`.replace(/ +/g, ' ') : 'an unnamed product';
  const checks = Array.isArray(run?.checks) ? run.checks : [];
  const n = (level: string, outcome: string) => checks.filter((c) => c.level === level && c.outcome === outcome).length;
  const where = run?.target ? `at ${run.target.origin}${run.target.embeddedReference ? ' (the embedded reference)' : ''}` : 'at an unknown target';
  const when = run?.startedAt ? ` on ${run.startedAt}` : '';
  if (!holds) {
    return `This bundle does not prove that ${who} conforms to the Scheduling API v1 contract: for the reasons above, it is not a whole, unaltered record of a complete certification run of scheduling-conformance ${suiteVersion} that failed no MUST check.`;
  }
  return `This bundle proves that ${who}, tested ${where}${when}, passed every MUST check of scheduling-conformance ${suiteVersion} that applied to it (${n('MUST', 'passed')} passed, ${n('MUST', 'not-applicable')} not applicable) against the Scheduling API v1 contract as spec/openapi.yaml states it (SHA-256 ${run?.spec?.sha256}), in a complete run with no check filtered out and no deviation pinned; ${n('SHOULD', 'passed')} SHOULD checks passed and ${n('SHOULD', 'warning') + n('SHOULD', 'failed') + n('SHOULD', 'blocked')} did not${n('SHOULD', 'blocked') ? ` (${n('SHOULD', 'blocked')} blocked, proving nothing either way)` : ''}. Every file is the one its manifest hashes. The bundle carries no signature: it shows what the run found, not who ran it.`;
}

/** `<sha256>  <file>` lines of the manifest block (sha256sum format). */
function manifestOf(summary: string): [hash: string, file: string][] {
  const block = summary.split('## Manifest (SHA-256)')[1]?.match(/```\n([\s\S]*?)```/)?.[1] ?? '';
  return [...block.matchAll(/^([0-9a-f]{64}) {2}(\S.*)$/gm)].map((m) => [m[1], m[2]]);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

function readBytes(dir: string, file: string): Buffer | undefined {
  // A manifest line must not reach outside the bundle.
  if (file.includes('..') || file.startsWith('/')) return undefined;
  try {
    return readFileSync(join(dir, file));
  } catch {
    return undefined;
  }
}

function readText(dir: string, file: string, reasons: string[]): string | undefined {
  const bytes = readBytes(dir, file);
  if (bytes === undefined) reasons.push(`${file} is missing`);
  return bytes?.toString('utf8');
}

function readJson(dir: string, file: string, reasons: string[]): unknown {
  const text = readBytes(dir, file)?.toString('utf8');
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  reasons.push(`${file} is not a JSON object`);
  return undefined;
}
