/**
 * Outcomes do not depend on timing: runs the command against the embedded reference several
 * times (default 20), with --concurrency 1, 2 and 3 in turn (the lanes one after another, two
 * and three at once), and compares every check's outcome with the first run's. Exit 1 on any difference.
 *   node --import tsx scripts/same-outcomes.ts [RUNS]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../helpers/core/paths.ts';

async function outcomes(args: string[]): Promise<Map<string, string>> {
  const dir = join(mkdtempSync(join(tmpdir(), 'scr-same-')), 'reports');
  await new Promise((resolve) =>
    spawn(process.execPath, [join(projectRoot, 'bin/scheduling-conformance.js'), '--report-dir', dir, ...args], {
      env: { PATH: process.env.PATH ?? '', CI: 'true' },
      stdio: 'ignore',
    }).on('close', resolve),
  );
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { checks: { id: string; outcome: string }[] };
  return new Map(result.checks.map((c) => [c.id, c.outcome]));
}

const runs = Number(process.argv[2] ?? 20);
let first: Map<string, string> | undefined;
let differences = 0;
for (let i = 0; i < runs; i++) {
  const args = ['--concurrency', String((i % 3) + 1)];
  const got = await outcomes(args);
  first ??= got;
  const diff = [...new Set([...first.keys(), ...got.keys()])].filter((id) => first!.get(id) !== got.get(id));
  differences += diff.length;
  console.log(`run ${i + 1} (${args.join(' ')}): ${got.size} checks, ${diff.length ? `DIFFERENT: ${diff.map((id) => `${id} ${first!.get(id)} -> ${got.get(id)}`).join('; ')}` : 'same outcomes'}`);
}
process.exitCode = differences ? 1 : 0;
