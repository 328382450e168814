import { existsSync, readFileSync } from 'node:fs';
import { secretPlaceholders, type Secrets } from '../http/redact.ts';

export interface Leak {
  file: string;
  /** Which key: its placeholder's name, never the key. */
  key: string;
}

/**
 * The last line of defence: every file the run wrote is searched for the raw keys (and header
 * values taken from the environment), as written
 * and URL-encoded. Redaction happens before anything is written; this proves it did. Only the
 * run's own files: a report directory may hold other files (a reused one, or `--report-dir .`
 * beside a .env), which are not the run's to judge or delete.
 */
export function scanForSecrets(files: string[], secrets: Secrets): Leak[] {
  const needles = secretPlaceholders(secrets).flatMap(([secret, placeholder]) =>
    [...new Set([secret, encodeURIComponent(secret)])].map((v) => ({ key: placeholder, bytes: Buffer.from(v) })),
  );
  const leaks: Leak[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const content = readFileSync(file);
    for (const n of needles) {
      if (content.includes(n.bytes) && !leaks.some((l) => l.file === file && l.key === n.key)) leaks.push({ file, key: n.key });
    }
  }
  return leaks;
}
