#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step.
import { register } from 'tsx/esm/api';
register();
await import('../reference/cli.ts');
