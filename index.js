// The package's entry for `import ... from 'scheduling-conformance'`: the typed API of helpers/api.ts,
// compiled in dist/ like the command (bin/scheduling-conformance.js), through tsx where dist/ cannot be built.
import { build, distDir, isStale } from './scripts/build.mjs';
let entry = `${distDir}/helpers/api.js`;
try {
  if (isStale()) await build();
} catch {
  (await import('tsx/esm/api')).register();
  entry = new URL('./helpers/api.ts', import.meta.url).href;
}
const api = await import(entry);
export const { runConformance, listChecks, verifyBundle, ConformanceError } = api;
