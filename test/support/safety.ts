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

/** The raw keys appear neither in the run's output nor in any file it wrote. */
export function expectNoKeys(run: CliRun, keys: string[]): void {
  for (const key of keys) {
    expect(run.stdout, 'stdout').not.toContain(key);
    expect(run.stderr, 'stderr').not.toContain(key);
    for (const file of reportFiles(run)) expect(readFileSync(file, 'utf8'), file).not.toContain(key);
  }
}
