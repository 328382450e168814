import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { READINGS_DIR } from '../../helpers/records/print-buckets.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../helpers/core/paths.ts';
import { build, isStale } from '../../scripts/build.mjs';
import type { Io } from '../../helpers/command/io.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  reportDir: string;
}

/**
 * Runs the scheduling-conformance command as a user would, in a scratch working directory
 * (so no .env of the checkout leaks in), with a clean environment plus `env`.
 */
export function runCli(args: string[], env: Record<string, string> = {}, options: { onSpawn?: (pid: number) => void; onOutput?: (stdout: string, stderr: string) => void } = {}): Promise<CliRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'scr-'));
  const hasReportDir = args.includes('--report-dir');
  const reportDir = hasReportDir ? args[args.indexOf('--report-dir') + 1] : join(cwd, 'reports');
  // The command's temporary folder, empty: whatever way the run ends, it must leave nothing there.
  const temporary = mkdtempSync(join(tmpdir(), 'scr-tmp-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(projectRoot, 'bin/scheduling-conformance.js'), ...args, ...(hasReportDir ? [] : ['--report-dir', reportDir])], {
      cwd,
      env: { PATH: process.env.PATH ?? '', CI: 'true', TMPDIR: temporary, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => ((stdout += d), options.onOutput?.(stdout, stderr)));
    child.stderr.on('data', (d) => ((stderr += d), options.onOutput?.(stdout, stderr)));
    if (child.pid) options.onSpawn?.(child.pid);
    child.on('error', reject);
    child.on('close', (code) => {
      const left = readdirSync(temporary);
      if (left.length) reject(new Error(`the command left ${left.join(', ')} in its temporary folder`));
      // A run that ended itself, however, took its readings away; one killed leaves them for the next.
      else if (code !== null && existsSync(join(reportDir, READINGS_DIR))) reject(new Error(`the command left ${READINGS_DIR}/ in ${reportDir}`));
      else resolve({ code, stdout, stderr, reportDir });
    });
  });
}

/**
 * Runs the command in this process: main() with captured output, the same clean environment as
 * runCli, and the code it returns (never process.exitCode, which vitest sets). For the runs whose
 * point is the verdict; signals, exit codes of the process and memory need runCli.
 */
export async function runInProcess(args: string[], env: Record<string, string> = {}, onOutput?: (text: string) => void, io: Pick<Io, 'resultOnly'> = {}): Promise<CliRun> {
  const reportDir = join(mkdtempSync(join(tmpdir(), 'scr-')), 'reports');
  // A test's run is the same every time, and judges what it is about: exploration only where the
  // test asks for it (its own tests, and the faults it finds alone, name --explore), as the fault matrix does.
  const seeded = args.some((a) => a.startsWith('--explore') || a === '--certify') ? [] : ['--explore', '0'];
  // result.json alone unless the test reads another format (`resultOnly: false`): the other three
  // cost a fifth of a run's CPU, and most tests judge the verdict.
  const run = await runMain([...args, ...seeded, ...(args.includes('--report-dir') ? [] : ['--report-dir', reportDir])], { PATH: process.env.PATH ?? '', CI: 'true', ...env }, onOutput, { resultOnly: io.resultOnly ?? true });
  return { ...run, reportDir };
}

/**
 * main() of the compiled command in this process, exactly as given: no report directory and no
 * environment of its own (a command as a README prints it, verify, --recover, --release).
 */
export async function runMain(args: string[], env: Record<string, string> = {}, onOutput?: (text: string) => void, io: Pick<Io, 'resultOnly'> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const writer = (stream: 'stdout' | 'stderr') => ({
    write: (text: string) => {
      out[stream] += text;
      onOutput?.(text);
    },
  });
  // Run after run in this process: each takes the suites' worker the last one left idle (Io.keepWorker).
  const code = await (await compiledMain())(args, env, { stdout: writer('stdout'), stderr: writer('stderr'), keepWorker: true, ...io });
  return { code, ...out };
}

/**
 * main() of the compiled command, as bin/ runs it (test/build-dist.ts builds it before the tests;
 * a script using this may come first). Not the sources: a run from them would load every helper
 * and suite through vite's transform, in the test and again in the suites' worker.
 */
export function compiledMain(): Promise<typeof import('../../helpers/command/cli.ts').main> {
  // Checked once a process (a stat of every source, ~4 ms): the sources do not change while tests run.
  compiled ??= (async () => {
    if (isStale()) await build();
    return ((await import(join(projectRoot, 'dist/helpers/command/cli.js'))) as typeof import('../../helpers/command/cli.ts')).main;
  })();
  return compiled;
}
let compiled: ReturnType<typeof compiledMain> | undefined;
