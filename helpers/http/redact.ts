/** Placeholders that stand for the keys wherever a key would otherwise be shown. */
export const KEY_PLACEHOLDERS = {
  apiKey: '$SCHEDULING_API_KEY',
  expiredKey: '$SCHEDULING_EXPIRED_KEY',
} as const;

export interface Secrets {
  apiKey?: string;
  expiredKey?: string;
}

/** Returns a function that replaces every occurrence of the keys in a string with their placeholders. */
export function redactor(secrets: Secrets): (text: string) => string {
  const pairs = (Object.keys(KEY_PLACEHOLDERS) as (keyof Secrets)[])
    .filter((k) => secrets[k])
    .map((k) => [secrets[k] as string, KEY_PLACEHOLDERS[k]] as const)
    // Longer keys first, so that a key containing the other is replaced whole.
    .sort((a, b) => b[0].length - a[0].length);
  return (text) => pairs.reduce((out, [secret, placeholder]) => out.split(secret).join(placeholder), text);
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
