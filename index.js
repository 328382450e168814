// The package's entry for `import ... from 'scheduling-conformance'`: the typed API of helpers/api.ts.
import { register } from 'tsx/esm/api';
register();
const api = await import('./helpers/api.ts');
export const { runConformance, listChecks, verifyBundle, ConformanceError } = api;
