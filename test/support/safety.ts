import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliRun } from './cli.ts';

/** Every file a run wrote, recursively. */
export function reportFiles(run: CliRun): string[] {
  if (!existsSync(run.reportDir)) return [];
  return readdirSync(run.reportDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Every form a key travels in, written here apart from the suite's own list: as written,
 * URL-encoded, and base64 and base64url of the key, of `key:` and of `:key` (a Basic credential).
 */
export function keyForms(key: string): string[] {
  const encoded = [key, `${key}:`, `:${key}`].flatMap((text) => [Buffer.from(text).toString('base64'), Buffer.from(text).toString('base64url')]);
  return [...new Set([key, encodeURIComponent(key), ...encoded])];
}

/** The keys, in none of their forms, appear neither in the run's output nor in any file it wrote. */
export function expectNoKeys(run: CliRun, keys: string[], files = reportFiles(run)): void {
  const forms = keys.flatMap(keyForms);
  // Each file read once: a run's reports are megabytes, and the forms are many.
  for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr], ...files.map((f) => [f, readFileSync(f, 'utf8')])]) {
    for (const form of forms) expect(text, name).not.toContain(form);
  }
}
