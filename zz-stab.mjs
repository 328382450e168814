import { startReference } from '/work/main/dist/reference/server.js';
import { main } from '/work/main/dist/helpers/command/cli.js';
import { mkdtempSync, readFileSync } from 'node:fs';
const io = { stdout: { write() {} }, stderr: { write() {} } };
for (const c of ['1', '2']) {
  const seen = new Map();
  for (let i = 0; i < +process.argv[2]; i++) {
    const ref = await startReference({});
    const dir = mkdtempSync('/tmp/st-') + '/r';
    const code = await main(['--base-url', ref.url, '--report-dir', dir, '--concurrency', c], { PATH: process.env.PATH, CI: 'true', SCHEDULING_API_KEY: ref.apiKey, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, io);
    const r = JSON.parse(readFileSync(dir + '/result.json', 'utf8'));
    const key = code + ' ' + r.checks.map((x) => `${x.id}=${x.outcome}:${x.reason ?? ''}`).join(',') + ' left=' + r.leftOnTarget.length + ' verdict=' + r.verdict;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    await ref.close();
  }
  console.log('concurrency', c, 'runs', process.argv[2], 'distinct outcomes (ids, order, outcomes, reasons)', seen.size, [...seen.keys()].map(k => k.slice(0, 2) + k.slice(k.indexOf(' left='))));
}
