/** Placeholders that stand for the keys wherever a key would otherwise be shown. */
export const KEY_PLACEHOLDERS = {
  apiKey: '$SCHEDULING_API_KEY',
  expiredKey: '$SCHEDULING_EXPIRED_KEY',
} as const;

/** A request header given with --header; `secrets` are the values it took from the environment, by variable. */
export interface ExtraHeader {
  name: string;
  value: string;
  secrets?: { variable: string; value: string }[];
}

export interface Secrets {
  apiKey?: string;
  expiredKey?: string;
  headers?: ExtraHeader[];
}

/** Every secret with the placeholder that stands for it: the keys, and what --header took from the environment. */
export function secretPlaceholders(secrets: Secrets): (readonly [secret: string, placeholder: string])[] {
  const keys = (['apiKey', 'expiredKey'] as const).filter((k) => secrets[k]).map((k) => [secrets[k] as string, KEY_PLACEHOLDERS[k]] as const);
  const fromEnv = (secrets.headers ?? []).flatMap((h) => h.secrets ?? []).map((s) => [s.value, `$${s.variable}`] as const);
  return [...keys, ...fromEnv];
}

/** Returns a function that replaces every occurrence of the secrets in a string with their placeholders. */
export function redactor(secrets: Secrets): (text: string) => string {
  // Longer secrets first, so that a secret containing another is replaced whole.
  const pairs = secretPlaceholders(secrets).sort((a, b) => b[0].length - a[0].length);
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
