import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../helpers/core/paths.ts';

/**
 * Global set-up: the project's reports/ is the user's (the command's default --report-dir), so
 * the tests write theirs elsewhere; the teardown fails the run when one wrote there all the same.
 */
export default function setup(): () => void {
  const folder = join(projectRoot, 'reports');
  const list = () => new Set(readdirSync(folder));
  const before = list();
  return () => {
    const added = [...list()].filter((f) => !before.has(f));
    if (!added.length) return;
    // A teardown's throw is only logged by vitest 4: the exit code says it.
    console.error(`the tests wrote into the user's reports/: ${added.join(', ')} (give the run a --report-dir of the test's own)`);
    process.exitCode = 1;
  };
}
