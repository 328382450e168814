#!/usr/bin/env node
// Runs the compiled command in dist/ (scripts/build.mjs), building it first when it is missing
// or older than the sources (a checkout edited since `npm ci`). Where dist/ cannot be written (a
// read-only install), the sources run through tsx instead: slower to start, same command.
import { subscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { build, distDir, isStale } from '../scripts/build.mjs';
// A small young generation (V8 grows it to 16 MiB a heap, for throughput the run does not need)
// takes the peak memory from ~230 to ~180 MiB at no cost in time (npm run bench).
setFlagsFromString('--max-semi-space-size=2');
// That bound reaches the suites' thread, whose heap is made after it, but not this thread's, made
// before (`npm run conformance` gives it on the command line, `npx` cannot): without a growth
// factor of 1 (read at each growth) this thread's young generation grows to 16 MiB a semi-space
// under a long list's garbage (issue 35). V8 sets the factor back when a thread's heap is made:
// it is set again once each thread runs.
const youngStaysSmall = () => setFlagsFromString('--semi-space-growth-factor=1');
youngStaysSmall();
subscribe('worker_threads', ({ worker }) => worker.once('online', youngStaysSmall));
// And a heap that grows as little as it needs (issue 35): a long list read as a stream leaves
// garbage at every row, which V8 otherwise lets pile up (20 000 customers: 291 MiB, with it 175).
setFlagsFromString('--optimize-for-size');
let cli = `${distDir}/helpers/command/cli.js`;
try {
  if (isStale()) await build();
} catch {
  (await import('tsx/esm/api')).register();
  cli = new URL('../helpers/command/cli.ts', import.meta.url).href;
}
// `scheduling-conformance --list | head`: a closed pipe ends the output, not in a stack trace.
process.stdout.on('error', (e) => (e.code === 'EPIPE' ? process.exit(process.exitCode ?? 0) : Promise.reject(e)));
const { main } = await import(cli);
process.exitCode = await main(process.argv.slice(2));
