/**
 * The near misses of "Bearer <API_KEY>" come from its grammar, one part changed at a time, and
 * none is a spelling the grammar allows; each near miss of the key stays out of the reports and
 * still reproduces by cURL.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { BEARER, header, headerNearMisses, HEADER_NEAR_MISS_NAMES } from '../helpers/http/authorization.ts';
import { nearMissKeys, redactor } from '../helpers/http/redact.ts';
import { curlCommand } from '../helpers/results/reporters/curl.ts';

const key = 'ref_live_0123456789abcdef';
const valid = header({ ...BEARER, token: key });
const misses = headerNearMisses(key);

describe('the near misses of the Authorization header', () => {
  test('change each part of "Bearer <key>": the scheme, the space after it, the key', () => {
    expect(new Set(misses.map((m) => m.part))).toEqual(new Set(['scheme', 'separator', 'token']));
    expect(misses.map((m) => m.name)).toEqual(HEADER_NEAR_MISS_NAMES);
    const sent = misses.map((m) => m.authorization);
    expect(sent).toContain(key); // the key alone, no scheme
    expect(sent).toEqual(expect.arrayContaining([`XBearer ${key}`, `Bearerx ${key}`, `Bearer: ${key}`, `Bearer${key}`, 'Bearer', 'Bearer ', `Bearer x${key}`, `Bearer ${key} junk`]));
    expect(new Set(sent).size).toBe(sent.length);
  });

  test('never use a spelling the grammar allows: the scheme in another case, more spaces, white space after the key', () => {
    const allowed = (h: string) => /^bearer +(\S+)\s*$/i.exec(h)?.[1] === key;
    expect(misses.filter((m) => m.authorization === undefined || allowed(m.authorization)).map((m) => m.name)).toEqual([]);
    expect(allowed(valid)).toBe(true);
  });

  test('name the key each one carries, which a 401 must not echo', () => {
    expect(misses.find((m) => m.name === 'key-with-characters-before')?.key).toBe(key);
    expect(misses.find((m) => m.name === 'key-without-first-character')?.key).toBe(key.slice(1));
    expect(misses.find((m) => m.name === 'scheme-only')?.key).toBeUndefined();
  });

  test('a short key has no near misses of its own: those cases say why', () => {
    const short = headerNearMisses('k3y');
    expect(short.filter((m) => m.unavailable).map((m) => m.name)).toEqual(['key-without-first-character', 'key-without-last-character', 'key-with-middle-character-changed', 'key-with-one-character-changed', 'key-with-case-changed']);
  });
});

describe('near misses of the key', () => {
  test('are redacted like the key, and a cURL reproduction sends each as the run did', () => {
    const redact = redactor({ apiKey: key });
    for (const miss of nearMissKeys(key)) {
      const shown = redact(`Bearer ${miss.key}`);
      expect(shown, miss.name).not.toContain(miss.key);
      const command = curlCommand({ startedAt: '', durationMs: 0, attempt: 1, request: { method: 'GET', url: 'http://h/', headers: { authorization: shown } } });
      const word = /--header (.*)$/m.exec(command)?.[1] ?? '';
      expect(execFileSync('bash', ['-c', `printf %s ${word}`], { env: { SCHEDULING_API_KEY: key }, encoding: 'utf8' }), miss.name).toBe(`authorization: Bearer ${miss.key}`);
    }
  });
});
