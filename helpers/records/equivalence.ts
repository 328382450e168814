import { isDeepStrictEqual } from 'node:util';

/**
 * When a value read back counts as the value sent: the one table every "applied?" judgement goes
 * through (business fields, their edges, customers and team members). The contract shows no
 * format of a value, no order of a list and no structure of a list's elements (section 2:
 * "formats and bounds of values … not shown", "Element structure of WorkHours … not shown";
 * customers' and members' fields: not shown), so a target may keep a value in its own form.
 * A row widens equality only as far as the form keeps everything sent: a value cut short, an
 * element dropped or a null stored as text is another value under every row.
 */
export interface Equivalence {
  kind: string;
  /** The contract's clause that leaves this open, or "not shown". */
  clause: string;
  /** What the target may have done to the value sent. */
  form: string;
  applies(sent: unknown, read: unknown): boolean;
  same(sent: unknown, read: unknown, inner: (sent: unknown, read: unknown) => boolean): boolean;
}

const FORMATS = 'section 2: formats of values not shown';
const str = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parsedUrl(text: string): URL | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const PHONE = /^\+?[\d\s().-]+$/;
const SEPARATORS = /[\s().-]/;
const digits = (text: string) => text.replace(/[^\d+]/g, '');

/** Whether each element sent has its own element read back, and no element more: the same multiset. */
function sameMultiset(sent: unknown[], read: unknown[], inner: (s: unknown, r: unknown) => boolean): boolean {
  if (sent.length !== read.length) return false;
  const left = [...read];
  return sent.every((s) => {
    const at = left.findIndex((r) => inner(s, r));
    return at >= 0 && left.splice(at, 1).length === 1;
  });
}

export const EQUIVALENCES: Equivalence[] = [
  {
    kind: 'URL', clause: FORMATS, form: 'serialized as a URL parser does (host case, a bare origin\'s slash, escapes)',
    applies: (s, r) => str(s) && str(r) && parsedUrl(s) !== undefined,
    same: (s, r) => parsedUrl(r as string)?.href === parsedUrl(s as string)!.href,
  },
  {
    kind: 'email address', clause: FORMATS, form: 'in another letter case',
    applies: (s, r) => str(s) && str(r) && /^[^@\s]+@[^@\s]+$/.test(s),
    same: (s, r) => (s as string).toLowerCase() === (r as string).toLowerCase(),
  },
  {
    kind: 'phone number', clause: FORMATS, form: 'with other separators between the same digits',
    applies: (s, r) => str(s) && str(r) && PHONE.test(s) && PHONE.test(r) && /\d{4}/.test(digits(s)),
    same: (s, r) => digits(s as string) === digits(r as string),
  },
  {
    // As a phone number is kept: the separators taken out of whatever text the field was given
    // (a target that normalizes a field's format on write, where section 2 shows none).
    kind: 'text kept without separators', clause: FORMATS, form: 'with its spaces, hyphens, dots and parentheses taken out',
    applies: (s, r) => str(s) && str(r) && !SEPARATORS.test(r) && SEPARATORS.test(s),
    same: (s, r) => (s as string).replace(new RegExp(SEPARATORS.source, 'g'), '') === r,
  },
  {
    // As an email address is kept: whatever text the field was given, in lower case (a target that
    // normalizes a field's format on write, where section 2 shows none).
    kind: 'text kept in lower case', clause: FORMATS, form: 'in lower case',
    applies: (s, r) => str(s) && str(r) && s !== r && r === s.toLowerCase(),
    same: () => true,
  },
  {
    // Composed and decomposed accents (Unicode normalization, NFC and NFD) are one text; a
    // character dropped or replaced (a non-ASCII one in a single-byte column) is another.
    kind: 'text', clause: FORMATS, form: 'without the spaces around it, or in another Unicode normalization form',
    applies: (s, r) => str(s) && str(r),
    same: (s, r) => (s as string).normalize('NFC').trim() === (r as string).normalize('NFC').trim(),
  },
  {
    // Deduplication is no row: an element sent and not kept is an update not applied ("the fields
    // in it are changed"), and a list of one element more would then read back as if ignored.
    kind: 'list', clause: 'not shown: no order of a list (section 2, "array of WorkHours")', form: 'in another order',
    applies: (s, r) => Array.isArray(s) && Array.isArray(r),
    same: (s, r, inner) => sameMultiset(s as unknown[], r as unknown[], inner),
  },
  {
    kind: 'list element', clause: 'not shown: element structure (section 2, WorkHours)', form: 'with properties of the target\'s own added',
    applies: (s, r) => isObject(s) && isObject(r),
    same: (s, r, inner) => Object.entries(s as Record<string, unknown>).every(([k, v]) => k in (r as object) && inner(v, (r as Record<string, unknown>)[k])),
  },
];

/** Whether `read` counts as `sent`, and the rows that made it so (none when equal). */
export function readsAs(sent: unknown, read: unknown): { same: boolean; by: Equivalence[] } {
  if (isDeepStrictEqual(sent, read)) return { same: true, by: [] };
  for (const row of EQUIVALENCES) {
    if (!row.applies(sent, read)) continue;
    const by: Equivalence[] = [row];
    const inner = (s: unknown, r: unknown) => {
      const judged = readsAs(s, r);
      if (judged.same) by.push(...judged.by);
      return judged.same;
    };
    if (row.same(sent, read, inner)) return { same: true, by: [...new Set(by)] };
  }
  return { same: false, by: [] };
}

export const sameValue = (sent: unknown, read: unknown): boolean => readsAs(sent, read).same;

const show = (v: unknown) => JSON.stringify(v) ?? 'nothing';

/** What a field read back in another but equivalent form took, for a check's notes; undefined when read back as sent (or not at all). */
export function otherForm(name: string, sent: unknown, read: unknown): string | undefined {
  const { same, by } = readsAs(sent, read);
  if (!same || !by.length) return undefined;
  return `${name} reads back ${show(read)} for ${show(sent)}: the target's own form, taken as the value sent (${by.map((r) => `${r.kind} ${r.form}; ${r.clause}`).join('; ')})`;
}

/** otherForm of each field of `sent`. */
export function otherForms(sent: Record<string, unknown>, read: Record<string, unknown>): string[] {
  return Object.keys(sent).flatMap((k) => otherForm(k, sent[k], read[k]) ?? []);
}
