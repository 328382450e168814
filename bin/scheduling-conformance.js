#!/usr/bin/env node
// Runs the compiled command in dist/ (scripts/build.mjs), building it first when it is missing
// or older than the sources (a checkout edited since `npm ci`).
import { build, distDir, isStale } from '../scripts/build.mjs';
if (isStale()) await build();
const { main } = await import(`${distDir}/helpers/command/cli.js`);
process.exitCode = await main(process.argv.slice(2));
