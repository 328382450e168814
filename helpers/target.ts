import type { VendorConfig } from './vendor-config.ts';

/** What the command hands each suite file (through vitest's provide/inject). */
export interface TargetConfig {
  baseUrl: string;
  apiKey: string;
  expiredKey?: string;
  vendor: VendorConfig;
  strict: boolean;
  readOnly: boolean;
  timeoutMs: number;
  /** Unique per run: marks what this run creates so that it, and only it, is cleaned up. */
  runId: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    target: TargetConfig;
  }
}
