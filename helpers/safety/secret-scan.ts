import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { secretForms, type Secrets } from '../http/redact.ts';

export interface Leak {
  file: string;
  /** Which key: its placeholder's name, never the key. */
  key: string;
}

/**
 * The last line of defence: every file the run wrote is searched for the keys (and header
 * values taken from the environment) in every form they travel in: as written, URL-encoded, and
 * inside base64 or base64url text (see encodedForms). Redaction happens before anything is written; this proves it did. Only the
 * run's own files: a report directory may hold other files (a reused one, or `--report-dir .`
 * beside a .env), which are not the run's to judge or delete.
 */
export function scanForSecrets(files: string[], secrets: Secrets): Leak[] {
  // The placeholder of the raw form names the key; an encoded form's names it and its encoding.
  const needles = secretForms(secrets).map(([form, placeholder]) => ({ key: placeholder, bytes: Buffer.from(form) }));
  const leaks: Leak[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    eachWindow(file, Math.max(0, ...needles.map((n) => n.bytes.length)), (content) => {
      for (const n of needles) {
        if (content.includes(n.bytes) && !leaks.some((l) => l.file === file && l.key === n.key)) leaks.push({ file, key: n.key });
      }
    });
  }
  return leaks;
}

/**
 * A file a chunk at a time (a report of a long list's run is hundreds of MB), each chunk after the
 * first beginning with the last `longest - 1` bytes of the one before: a needle across two is whole in one.
 */
function eachWindow(file: string, longest: number, look: (content: Buffer) => void): void {
  const fd = openSync(file, 'r');
  try {
    const keep = Math.max(0, longest - 1);
    const buffer = Buffer.alloc(keep + (1 << 20));
    let filled = 0;
    for (let n; (n = readSync(fd, buffer, filled, buffer.length - filled, null)) > 0; ) {
      const end = filled + n;
      look(buffer.subarray(0, end));
      filled = Math.min(keep, end);
      buffer.copy(buffer, 0, end - filled, end);
    }
  } finally {
    closeSync(fd);
  }
}
