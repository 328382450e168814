#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../helpers/command/cli.ts');
process.exitCode = await main(process.argv.slice(2));
