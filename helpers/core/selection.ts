// What --only selects, for the suite worker and the main process alike. Apart from check.ts (which loads vitest's test API) so that the command's
// main thread can match checks without loading vitest's runtime (chai, expect, snapshots).

/** The reason of a check that --only left out: such checks are not part of the run's reports. */
export const NOT_SELECTED = 'not selected by --only';

/**
 * The not-applicable reason of a check whose prerequisite check --only left out: like the
 * prerequisite, it is outside what the run selected (see unproven() in run-result.ts).
 */
export const dependsOnUnselected = (checkId: string) => `depends on ${checkId}, which did not run`;
export const isOutsideSelection = (c: { outcome: string; reason?: string | null }) =>
  c.outcome === 'skipped' || (c.outcome === 'not-applicable' && /^depends on \S+, which did not run$/.test(c.reason ?? ''));

/** Whether --only selects a check or an observation: it matches the own id and title (not vitest's describe path), so ^ and $ work. */
export function selects(only: string | undefined, def: { id: string; title: string }): boolean {
  return only === undefined || new RegExp(only).test(`${def.id} ${def.title}`);
}

/** Why --only (with --read-only) leaves a run nothing to run, or undefined when it selects some check. */
export function emptySelection(checks: { id: string; title: string; changesData: boolean }[], only: string | undefined, readOnly: boolean): string | undefined {
  if (only === undefined) return undefined;
  const matched = checks.filter((c) => selects(only, c));
  if (!matched.length) return `--only "${only}" matches none of the ${checks.length} checks (it is matched against each check's "<id> <title>")`;
  if (readOnly && matched.every((c) => c.changesData)) {
    return `--only "${only}" with --read-only: ${matched.length === 1 ? 'the one check it matches changes' : `each of the ${matched.length} checks it matches changes`} data, so none would run`;
  }
  return undefined;
}

/** Text as a regular expression that matches it literally. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * --only closed under what its checks need: the pattern, or the check ids (with their `needs`,
 * transitively) of the checks it matches. A check whose prerequisite is left out proves nothing,
 * so a selection takes the prerequisite with it. The same pattern serves every `selects` call.
 */
export function withPrerequisites(checks: readonly { id: string; title: string; needs?: readonly string[] }[], only: string | undefined): string | undefined {
  if (only === undefined) return undefined;
  const byId = new Map(checks.map((c) => [c.id, c]));
  const needed = new Set<string>();
  const visit = (id: string) => {
    for (const n of byId.get(id)?.needs ?? []) if (!needed.has(n)) (needed.add(n), visit(n));
  };
  for (const c of checks) if (selects(only, c)) visit(c.id);
  const extra = [...needed].filter((id) => { const c = byId.get(id); return c && !selects(only, c); });
  return extra.length ? `(?:${only})|^(?:${extra.map(escapeRegExp).join('|')}) ` : only;
}

/** An --only pattern that selects exactly these check ids. */
export const onlyIds = (ids: readonly string[]) => `^(?:${ids.map(escapeRegExp).join('|')}) `;
