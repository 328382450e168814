import { startReference } from '../reference/server.ts';
const t0 = performance.now();
const ref = await startReference({ seedCustomers: 1_000_000, variations: ['list-pages-link-header'], pageSize: 1000 });
console.log('seed', (performance.now() - t0).toFixed(0), 'ms', (process.memoryUsage().rss/2**20).toFixed(0), 'MiB');
for (const page of [1, ...Array.from({length: 200}, (_, i) => i + 2)]) {
  const t = performance.now();
  const r = await fetch(`${ref.url}/api/v1/customers?page=${page}`, { headers: { authorization: `Bearer ${ref.apiKey}` } });
  const b = await r.text();
  if (page % 50 === 0) console.log(page, r.status, b.length, (performance.now() - t).toFixed(0), 'ms');
}
await ref.close();
