import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../core/errors.ts';
import { verifyBundle } from '../results/verify-bundle.ts';
import type { Io } from './io.ts';

/** `verify <bundle-dir>`: exit 0 when the certification bundle holds, 1 when it does not, naming every reason. */
export async function verifyCommand(argv: string[], io: Io): Promise<number> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true }));
  } catch (e) {
    throw new UsageError(`verify: ${String((e as Error).message).split('\n')[0]}`);
  }
  if (positionals.length !== 1) throw new UsageError('verify takes one argument: the certification bundle directory (e.g. reports/<run>/certification)');
  const result = await verifyBundle(positionals[0]);
  io.stdout.write(`${result.dir}: ${result.holds ? 'the certification holds' : 'the certification does NOT hold'}\n`);
  for (const r of result.reasons) io.stdout.write(`  - ${r}\n`);
  io.stdout.write(`\n${result.statement}\n`);
  return result.holds ? EXIT.conformant : EXIT.nonConformant;
}
