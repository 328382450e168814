import type { Exchange } from '../../http/exchanges.ts';

/** An exchange as plain text, for JUnit failure bodies and the terminal: request, then answer. */
export function exchangeText(e: Exchange): string {
  const lines = [`> ${e.request.method} ${e.request.url}`];
  for (const [k, v] of Object.entries(e.request.headers)) lines.push(`> ${k}: ${v}`);
  if (e.request.body !== undefined) lines.push('>', e.request.body);
  if (e.response) {
    lines.push(`< ${e.response.status}`);
    for (const [k, v] of Object.entries(e.response.headers)) lines.push(`< ${k}: ${v}`);
    if (e.response.body) lines.push('<', e.response.body + (e.response.truncated ? `\n[cut: ${e.response.bodyBytes} bytes in all]` : ''));
  } else {
    lines.push(`< no answer: ${e.error ?? 'unknown'}`);
  }
  return lines.join('\n');
}
