import type { ExtraHeader } from '../config/target.ts';

/** Placeholders that stand for the keys wherever a key would otherwise be shown. */
export const KEY_PLACEHOLDERS = {
  apiKey: '$SCHEDULING_API_KEY',
  expiredKey: '$SCHEDULING_EXPIRED_KEY',
} as const;

export interface Secrets {
  apiKey?: string;
  expiredKey?: string;
  headers?: ExtraHeader[];
}

/** A key this short has near misses too short to keep out of reports without blanking other text. */
export const NEAR_MISS_MIN_LENGTH = 8;

export interface NearMiss {
  name: 'key-without-first-character' | 'key-without-last-character' | 'key-with-middle-character-changed' | 'key-with-one-character-changed' | 'key-with-case-changed';
  key: string;
  /** What reports show instead: a bash expansion of the variable, so a cURL reproduction still works. */
  placeholder: string;
}

/**
 * Keys that differ from the valid one by a little: a target that compares keys by prefix or
 * suffix, up to the last character, by their ends only or ignoring case accepts one of them.
 * Each is as secret as the key itself (it gives the key away but for a character, or wholly),
 * so the redactor replaces them too.
 */
export function nearMissKeys(key: string): NearMiss[] {
  if (key.length < NEAR_MISS_MIN_LENGTH) return [];
  const head = key.slice(0, -1);
  const shift = (c: string, from: string, size: number) => String.fromCharCode(((c.charCodeAt(0) - from.charCodeAt(0) + 1) % size) + from.charCodeAt(0));
  const other = (c: string) => (/\d/.test(c) ? shift(c, '0', 10) : /[a-z]/.test(c) ? shift(c, 'a', 26) : /[A-Z]/.test(c) ? shift(c, 'A', 26) : c === 'x' ? 'y' : 'x');
  const changed = other(key.slice(-1));
  const middle = Math.floor(key.length / 2);
  const inside = other(key[middle]);
  const swapped = [...key].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  const misses: NearMiss[] = [
    { name: 'key-without-first-character', key: key.slice(1), placeholder: '${SCHEDULING_API_KEY#?}' },
    { name: 'key-without-last-character', key: head, placeholder: '${SCHEDULING_API_KEY%?}' },
    {
      name: 'key-with-middle-character-changed', key: key.slice(0, middle) + inside + key.slice(middle + 1),
      placeholder: `\${SCHEDULING_API_KEY:0:${middle}}${inside}\${SCHEDULING_API_KEY:${middle + 1}}`,
    },
    { name: 'key-with-one-character-changed', key: head + changed, placeholder: `\${SCHEDULING_API_KEY%?}${changed}` },
  ];
  if (swapped !== key) misses.push({ name: 'key-with-case-changed', key: swapped, placeholder: '${SCHEDULING_API_KEY~~}' });
  return misses;
}

/** Every secret with the placeholder that stands for it: the keys, and what --header took from the environment. */
export function secretPlaceholders(secrets: Secrets): (readonly [secret: string, placeholder: string])[] {
  const keys = (['apiKey', 'expiredKey'] as const).filter((k) => secrets[k]).map((k) => [secrets[k] as string, KEY_PLACEHOLDERS[k]] as const);
  const fromEnv = (secrets.headers ?? []).flatMap((h) => h.secrets ?? []).map((s) => [s.value, `$${s.variable}`] as const);
  return [...keys, ...fromEnv];
}

/** A secret shorter than this is not looked for inside base64 text: what is its own there would be too short to tell from other text. */
const ENCODED_MIN_BYTES = 8;

/**
 * The forms a secret travels in besides itself, each as it reads wherever it sits: URL-encoded,
 * and inside base64 or base64url text (a Basic credential `user:key` or `key:`, a token echoed
 * encoded, a body encoded whole). Base64 writes 3 bytes as 4 characters, so a secret reads one of
 * three ways, by where it starts; only the characters made of its own bytes alone are taken.
 */
export function encodedForms(secret: string): { form: string; how: string }[] {
  const forms = new Map<string, string>([[encodeURIComponent(secret), 'URL-encoded']]);
  const bytes = Buffer.from(secret);
  if (bytes.length >= ENCODED_MIN_BYTES) {
    for (const offset of [0, 1, 2]) {
      const b64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
      const own = b64.slice([0, 2, 3][offset], (offset + bytes.length) % 3 ? -1 : undefined);
      forms.set(own, forms.get(own) ?? 'base64');
      forms.set(own.replace(/\+/g, '-').replace(/\//g, '_'), forms.get(own.replace(/\+/g, '-').replace(/\//g, '_')) ?? 'base64url');
    }
  }
  forms.delete(secret);
  return [...forms].map(([form, how]) => ({ form, how }));
}

/** Every form of every secret, with what stands for it in reports: the placeholder, naming the encoding where there is one. */
export function secretForms(secrets: Secrets): (readonly [form: string, placeholder: string])[] {
  return secretPlaceholders(secrets).flatMap(([secret, placeholder]) => [
    [secret, placeholder] as const,
    ...encodedForms(secret).map(({ form, how }) => [form, how === 'URL-encoded' ? placeholder : `<${placeholder}, ${how}>`] as const),
  ]);
}

/**
 * Redactors by the secrets they stand for: every check and observation of a run asks for one, the
 * same one, and building it (the near misses, the base64 forms) cost more than all it redacts.
 */
const redactors = new Map<string, (text: string) => string>();

/** Returns a function that replaces every occurrence of the secrets in any form (and the valid key's near misses) in a string with their placeholders. */
export function redactor(secrets: Secrets): (text: string) => string {
  const key = JSON.stringify(secretPlaceholders(secrets));
  let redact = redactors.get(key);
  if (!redact) {
    // Runs one after another in a process (the tests') each bring their keys: keep only the latest few.
    if (redactors.size >= 16) redactors.clear();
    redactors.set(key, (redact = buildRedactor(secrets)));
  }
  return redact;
}

function buildRedactor(secrets: Secrets): (text: string) => string {
  const nearMisses = nearMissKeys(secrets.apiKey ?? '').map((m) => [m.key, m.placeholder] as const);
  // Longer secrets first, so that a secret containing another is replaced whole.
  const pairs = [...secretForms(secrets), ...nearMisses].sort((a, b) => b[0].length - a[0].length);
  // Most texts hold no secret: looking costs less than splitting each (every exchange passes here).
  return (text) => pairs.reduce((out, [secret, placeholder]) => (out.includes(secret) ? out.split(secret).join(placeholder) : out), text);
}

/** Deeply redacts every string in a JSON-like value. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)])) as T;
  }
  return value;
}
