/** A mistake in how the suite was invoked or configured: one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The target cannot be tested at all (unreachable, wrong key, TLS): one line, exit code 2. */
export class TargetError extends Error {
  override name = 'TargetError';
}

export const EXIT = {
  conformant: 0,
  nonConformant: 1,
  usage: 2,
  interrupted: 130,
} as const;
