#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step.
import { register } from 'tsx/esm/api';
register();
// `scheduling-conformance --list | head`: a closed pipe ends the output, not in a stack trace.
process.stdout.on('error', (e) => (e.code === 'EPIPE' ? process.exit(process.exitCode ?? 0) : Promise.reject(e)));
const { main } = await import('../helpers/command/cli.ts');
process.exitCode = await main(process.argv.slice(2));
