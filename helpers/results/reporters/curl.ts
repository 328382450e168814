import type { Exchange } from '../../http/exchanges.ts';
import { KEY_PLACEHOLDERS } from '../../http/redact.ts';

const PLACEHOLDERS = Object.values(KEY_PLACEHOLDERS);
const SPLIT = new RegExp(`(${PLACEHOLDERS.map((p) => p.replace(/\$/g, '\\$')).join('|')})`);

/**
 * Quotes a word for a POSIX shell: literal text in single quotes, the key placeholders left for
 * the shell to expand in double quotes, so the reproduction works once the variable is set.
 */
export function shellWord(text: string): string {
  const parts = text.split(SPLIT).filter((p) => p !== '');
  if (!parts.length) return "''";
  return parts.map((p) => (PLACEHOLDERS.includes(p as never) ? `"${p}"` : `'${p.replace(/'/g, `'\\''`)}'`)).join('');
}

/** A copy-paste cURL command that repeats an exchange's request (already redacted). */
export function curlCommand(exchange: Exchange): string {
  const { method, url, headers, body } = exchange.request;
  const lines = [`curl -i --request ${method} ${shellWord(url)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`--header ${shellWord(`${name}: ${value}`)}`);
  if (body !== undefined) lines.push(`--data-raw ${shellWord(body)}`);
  return lines.join(' \\\n  ');
}
