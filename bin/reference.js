#!/usr/bin/env node
// Runs the compiled reference implementation in dist/ (see bin/scheduling-conformance.js).
import { build, distDir, isStale } from '../scripts/build.mjs';
let cli = `${distDir}/reference/cli.js`;
try {
  if (isStale()) await build();
} catch {
  (await import('tsx/esm/api')).register();
  cli = new URL('../reference/cli.ts', import.meta.url).href;
}
await import(cli);
