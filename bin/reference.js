#!/usr/bin/env node
// Runs the compiled reference implementation in dist/ (see bin/scheduling-conformance.js).
import { build, distDir, isStale } from '../scripts/build.mjs';
if (isStale()) await build();
await import(`${distDir}/reference/cli.js`);
