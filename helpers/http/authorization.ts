import { randomBytes } from 'node:crypto';
import { NEAR_MISS_MIN_LENGTH, nearMissKeys, type NearMiss } from './redact.ts';

/**
 * The Authorization header of section 4, "Bearer followed by the API key: Bearer <API_KEY>", as
 * its three parts: RFC 6750 2.1 spells it `"Bearer" 1*SP b64token`. Its near misses are that
 * header with one part changed; each must be refused with 401 (section 5.2).
 *
 * What the grammar itself allows is never a near miss: the scheme in another case (RFC 7235 2.1:
 * case-insensitive), more than one space before the key (1*SP), white space after it (HTTP strips
 * it). A target may accept those or refuse them.
 */
export interface Credentials {
  scheme: string;
  separator: string;
  token: string;
}

export const BEARER: Omit<Credentials, 'token'> = { scheme: 'Bearer', separator: ' ' };

export const header = (c: Credentials) => `${c.scheme}${c.separator}${c.token}`;

/** One part of the valid header, changed: its name (a check id's variant), what a person reads, and the header. */
export interface HeaderMiss {
  name: string;
  description: string;
  part: 'scheme' | 'separator' | 'token';
  /** The header sent; undefined when this key has no such near miss (see `unavailable`). */
  authorization?: string;
  unavailable?: string;
  /** The key, or the near miss of it, that the header carries: a 401 must not echo it. */
  key?: string;
}

type Operator = Pick<HeaderMiss, 'name' | 'description'> & { change: (key: string) => Credentials | { unavailable: string } };

const withKey = (key: string, c: Partial<Credentials>): Credentials => ({ ...BEARER, token: key, ...c });

/** The scheme: left out, another one, one that only looks like Bearer. */
const SCHEME: Operator[] = [
  { name: 'no-scheme', description: 'with the valid key alone, without the Bearer scheme', change: (key) => withKey(key, { scheme: '', separator: '' }) },
  { name: 'basic-scheme', description: 'with the valid key under the Basic scheme', change: (key) => withKey(key, { scheme: 'Basic' }) },
  { name: 'token-scheme', description: 'with the valid key under the Token scheme', change: (key) => withKey(key, { scheme: 'Token' }) },
  { name: 'xbearer-scheme', description: 'with the valid key under the scheme "XBearer"', change: (key) => withKey(key, { scheme: 'XBearer' }) },
  { name: 'bearerx-scheme', description: 'with the valid key under the scheme "Bearerx"', change: (key) => withKey(key, { scheme: 'Bearerx' }) },
  { name: 'bearer-colon-scheme', description: 'with the valid key after "Bearer:"', change: (key) => withKey(key, { scheme: 'Bearer:' }) },
];

/** The space between scheme and key: left out, or left alone with nothing after it. */
const SEPARATOR: Operator[] = [
  { name: 'no-separator', description: 'with "Bearer" and the valid key without a space between them', change: (key) => withKey(key, { separator: '' }) },
  { name: 'scheme-only', description: 'with "Bearer" alone', change: () => withKey('', { separator: '' }) },
];

/** The key: none, another, or the valid one with characters before, inside or after it, or missing. */
function tokenOperators(key: string): Operator[] {
  const misses = nearMissKeys(key);
  const near = (name: NearMiss['name'], description: string): Operator => ({
    name, description,
    change: (k) => {
      const miss = misses.find((m) => m.name === name);
      if (miss) return withKey(miss.key, {});
      return { unavailable: k.length < NEAR_MISS_MIN_LENGTH ? `the key is shorter than ${NEAR_MISS_MIN_LENGTH} characters: its near misses could not be kept out of the reports` : 'the key has no letters whose case could change' };
    },
  });
  const unknown = `scr_unknown_${randomBytes(12).toString('hex')}`;
  return [
    { name: 'empty-token', description: 'with "Bearer " and an empty token', change: () => withKey('', {}) },
    { name: 'unknown-key', description: 'with an unknown key', change: () => withKey(unknown, {}) },
    { name: 'key-with-characters-before', description: 'with the valid key after an extra character', change: (k) => withKey(`x${k}`, {}) },
    { name: 'key-with-extra-characters', description: 'with the valid key plus extra characters', change: (k) => withKey(`${k}0`, {}) },
    { name: 'key-then-space-and-junk', description: 'with the valid key followed by a space and more text', change: (k) => withKey(`${k} junk`, {}) },
    near('key-without-first-character', 'with the valid key without its first character'),
    near('key-without-last-character', 'with the valid key shortened by its last character'),
    near('key-with-middle-character-changed', 'with the valid key with a character in its middle changed'),
    near('key-with-one-character-changed', 'with the valid key with its last character changed'),
    near('key-with-case-changed', 'with the valid key with the case of its letters changed'),
  ];
}

/**
 * Every near miss of the valid header: each operator of each part, applied to `Bearer <key>`.
 * The key a header carries (or its near miss) is what a 401 must not echo.
 */
export function headerNearMisses(key: string): HeaderMiss[] {
  const parts: Record<HeaderMiss['part'], Operator[]> = { scheme: SCHEME, separator: SEPARATOR, token: tokenOperators(key) };
  return Object.entries(parts).flatMap(([part, operators]) => operators.map(({ change, ...named }) => {
    const op = { ...named, part: part as HeaderMiss['part'] };
    const changed = change(key);
    if ('unavailable' in changed) return { ...op, unavailable: changed.unavailable };
    const carried = changed.token.includes(key) ? key : changed.token;
    return { ...op, authorization: header(changed), key: carried || undefined };
  }));
}

/** The names of the near misses, as check variants (BUS-AUTH-INVALID:<operationId>:<name>): the same for every key. */
export const HEADER_NEAR_MISS_NAMES = headerNearMisses('k'.repeat(16)).map((m) => m.name);
