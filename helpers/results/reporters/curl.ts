import type { Exchange } from '../../http/exchanges.ts';
import { KEY_PLACEHOLDERS } from '../../http/redact.ts';

const PLACEHOLDERS = Object.values(KEY_PLACEHOLDERS);
const SPLIT = new RegExp(`(${PLACEHOLDERS.map((p) => p.replace(/\$/g, '\\$')).join('|')})`);

/**
 * Quotes a word for a POSIX shell: literal text in single quotes, the key placeholders left for
 * the shell to expand in double quotes, so the reproduction works once the variable is set.
 */
export function shellWord(text: string, placeholders: RegExp = SPLIT): string {
  if (text === '') return "''";
  // split() with a capturing group: the odd parts are the placeholders.
  return text.split(placeholders).map((p, i) => (p === '' ? '' : i % 2 === 1 ? `"${p}"` : `'${p.replace(/'/g, `'\\''`)}'`)).join('');
}

/**
 * In the request's headers every $NAME is a placeholder: the client sets them (the key, and
 * --header values whose variables the command expanded), so the shell is left to expand each;
 * so is every ${SCHEDULING_API_KEY…} that stands for a near miss of the key (redact.ts).
 */
const HEADER_PLACEHOLDER = new RegExp(`(${PLACEHOLDERS.map((p) => p.replace(/\$/g, '\\$')).join('|')}|\\$[A-Za-z_][A-Za-z0-9_]*|\\$\\{SCHEDULING_API_KEY[^}]*\\})`);

/** A copy-paste cURL command that repeats an exchange's request (already redacted). */
export function curlCommand(exchange: Exchange): string {
  const { method, url, headers, body } = exchange.request;
  const lines = [`curl -i --request ${method} ${shellWord(url)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`--header ${shellWord(`${name}: ${value}`, HEADER_PLACEHOLDER)}`);
  if (body !== undefined) lines.push(`--data-raw ${shellWord(body)}`);
  return lines.join(' \\\n  ');
}
