import { parseArgs } from 'node:util';
import { startReference } from './server.ts';
import { FAULTS, isFaultName } from './faults/index.ts';
import { VARIATIONS } from './variations.ts';
import { ROBUSTNESS_FAULTS } from './faults/robustness.ts';

const HELP = `Usage: npm run reference -- [--port N] [--api-key KEY] [--expired-key KEY] [--fault NAME] [--variation NAME ...] [--robustness NAME ...] [--redirect-to URL] [--seed-customers N] [--page-size N] [--latency MS] [--list]

Starts the reference implementation of the Scheduling API v1 on 127.0.0.1 and prints its URL and keys.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      'expired-key': { type: 'string' },
      fault: { type: 'string' },
      variation: { type: 'string', multiple: true },
      robustness: { type: 'string', multiple: true },
      'redirect-to': { type: 'string' },
      'seed-customers': { type: 'string' },
      'page-size': { type: 'string' },
      latency: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(HELP);
  if (values.list) {
    console.log('Faults:');
    for (const f of FAULTS) console.log(`  ${f.name.padEnd(36)} ${f.description}`);
    console.log('Variations:');
    for (const v of VARIATIONS) console.log(`  ${v.name.padEnd(36)} ${v.description}`);
    console.log('Robustness faults (misbehaviour the suite must survive, not contract breaches):');
    for (const r of ROBUSTNESS_FAULTS) console.log(`  ${r.name.padEnd(36)} ${r.description}`);
    return;
  }
  if (values.fault !== undefined && !isFaultName(values.fault)) throw new Error(`unknown fault "${values.fault}" (see --list)`);
  const ref = await startReference({
    port: values.port ? Number(values.port) : 0,
    apiKey: values['api-key'],
    expiredKey: values['expired-key'],
    fault: values.fault,
    variations: values.variation,
    robustness: values.robustness,
    redirectTo: values['redirect-to'],
    seedCustomers: values['seed-customers'] ? Number(values['seed-customers']) : undefined,
    latencyMs: values.latency ? Number(values.latency) : undefined,
    pageSize: values['page-size'] ? Number(values['page-size']) : undefined,
  });
  console.log(`Reference implementation listening on ${ref.url}`);
  console.log(`  valid key:   ${ref.apiKey}`);
  console.log(`  expired key: ${ref.expiredKey}`);
  if (values.fault) console.log(`  fault:       ${values.fault}`);
  if (values.variation?.length) console.log(`  variations:  ${values.variation.join(', ')}`);
  const stop = () => void ref.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: Error) => {
  console.error(`reference: ${e.message}`);
  process.exit(2);
});
