import { loadCatalog, type Catalog, type CheckIdentity, type Level, type NotChecked, type Requirement } from '../contract/catalog.ts';
import type { Exchange, WireEntry } from '../http/exchanges.ts';
import type { Outcome } from '../core/outcome.ts';
import { pinStatus, type Expectation, type Expectations, type PinStatus } from '../config/expectations.ts';
import { isOutsideSelection } from '../core/selection.ts';
import { countOutcomes, type CollectedCheck, type Counts, type Observation } from './check-outcomes.ts';
import { EXIT } from '../core/errors.ts';

import type { LeftOnTarget } from '../safety/restore-record.ts';

export type { LeftOnTarget };

export interface ReportedCheck extends CheckIdentity {
  /** The catalog's statement of the requirement. */
  text: string;
  resource: string;
  outcome: Outcome;
  reason: string | null;
  durationMs: number;
  exchanges: Exchange[];
  notes: string[];
  /** Present when the --expect file pins this check. */
  expected?: Expectation & { status: PinStatus };
}

export type Verdict = 'conformant' | 'not-conformant' | 'incomplete';

/**
 * A MUST requirement of the run's selection without proof: no check of it ran and passed (or
 * failed), or some of its checks were blocked. `allowed` when the catalog lets it stay untested
 * for this reason (`untested-if`): the verdict then says "not tested"; else the run is incomplete.
 */
export interface Untested {
  requirement: string;
  reason: string;
  allowed: boolean;
}

/** Why a run ended before every check ran. */
export type Stopped = 'interrupted' | 'run-timeout' | 'interference' | 'environment';

export const STOPPED_TEXT: Record<Stopped, string> = {
  interrupted: 'interrupted',
  'run-timeout': 'stopped by the run timeout',
  interference: 'stopped by interference (another writer changed records it works on)',
  environment: 'stopped by the environment (the target stopped answering, or the key is no longer accepted, for the whole --retry-budget)',
};

/** The one result of a run: result.json, and what every other report is rendered from. */
export interface RunResult {
  format: 'scheduling-conformance-result/1';
  suite: { name: string; version: string };
  spec: { file: string; sha256: string };
  /** Origin only: never a path, query or credential; the proxy the requests went through, by its origin. */
  target: { origin: string; embeddedReference: boolean; proxy: string | null };
  startedAt: string;
  endedAt: string;
  durationMs: number;
  options: { strict: boolean; readOnly: boolean; only: string | null; certify: boolean; expectFile: string | null };
  /** The exploration after the checks (--explore, --explore-seed): the seed replays it; null when it was off. */
  explore: { commands: number; seed: number } | null;
  verdict: Verdict;
  exitCode: number;
  /** MUST requirements the run could not prove (see Untested). */
  untested: Untested[];
  counts: Counts & { checks: number; requests: number; knownDeviations: number };
  checks: ReportedCheck[];
  observations: Observation[];
  suiteErrors: string[];
  /** Pinned check ids that no check of this run carries (removed, renamed, or filtered out). */
  unmatchedExpectations: string[];
  notChecked: NotChecked[];
  /** Set when the run ended early; the verdict is then incomplete. */
  stopped: Stopped | null;
  /** Checks a --read-only run left out because they change data. */
  leftOut: string[];
  /** What the command itself deleted and restored after the suites (see helpers/safety/after-run-cleanup.ts). */
  cleanUp: { deleted: string[]; restored: string[] };
  leftOnTarget: LeftOnTarget[];
  /** The command that puts back what is left on the target later (`--recover`), when something is. */
  recoverCommand?: string;
  resources: { maxRssMiB: number };
  /** Requests sent outside any check or observation (preflight, baseline, suite set-up and clean-up, the after-run clean-up). */
  outsideChecks?: { phase: string; exchanges: Exchange[] }[];
}

export interface RunFacts {
  suiteVersion: string;
  specSha256: string;
  baseUrl: string;
  embeddedReference: boolean;
  /** The proxy the requests went through, if any (its credentials are never reported). */
  proxy?: string;
  startedAt: Date;
  endedAt: Date;
  strict: boolean;
  readOnly: boolean;
  only?: string;
  certify: boolean;
  expectFile?: string;
  explore?: { commands: number; seed: number };
  expectations?: Expectations;
  checks: CollectedCheck[];
  observations: Observation[];
  suiteErrors: string[];
  stopped?: Stopped;
  cleanUp?: { deleted: string[]; restored: string[] };
  leftOnTarget?: LeftOnTarget[];
  recoverCommand?: string;
  /** The requirement catalog the checks belong to (default: spec/requirements.yaml): their texts, what it leaves unchecked, what must be proven. */
  catalog?: Catalog;
  /** Every request on the wire (the request log); without it, the count is that of the checks' exchanges. */
  requests?: WireEntry[];
}

/** A failure the --expect file pins as a failure: it does not fail the run. */
export function isKnownDeviation(c: ReportedCheck): boolean {
  return c.outcome === 'failed' && c.expected?.status === 'as-expected';
}

export function buildRunResult(f: RunFacts): RunResult {
  const pins = f.expectations ?? {};
  const catalog = f.catalog ?? loadCatalog();
  const checks = f.checks.map((c) => reported(c, catalog.byId.get(c.requirement)?.text ?? '', pins[c.id]));
  const failed = checks.filter((c) => c.outcome === 'failed');
  const untested = unproven(checks, catalog.requirements, f.strict);
  const { verdict, exitCode } = judged(f, checks, untested);
  const ids = new Set(checks.map((c) => c.id));
  return {
    format: 'scheduling-conformance-result/1',
    suite: { name: 'scheduling-conformance', version: f.suiteVersion },
    spec: { file: 'spec/openapi.yaml', sha256: f.specSha256 },
    target: { origin: new URL(f.baseUrl).origin, embeddedReference: f.embeddedReference, proxy: f.proxy ? new URL(f.proxy).origin : null },
    startedAt: f.startedAt.toISOString(),
    endedAt: f.endedAt.toISOString(),
    durationMs: f.endedAt.getTime() - f.startedAt.getTime(),
    options: { strict: f.strict, readOnly: f.readOnly, only: f.only ?? null, certify: f.certify, expectFile: f.expectFile ?? null },
    explore: f.explore?.commands ? { commands: f.explore.commands, seed: f.explore.seed } : null,
    verdict,
    exitCode,
    untested,
    counts: {
      ...countOutcomes(f.checks),
      checks: checks.length,
      requests: f.requests ? new Set(f.requests.map((r) => r.exchange.id)).size : checks.reduce((n, c) => n + c.exchanges.length, 0) + f.observations.reduce((n, o) => n + o.exchanges.length, 0),
      knownDeviations: failed.filter(isKnownDeviation).length,
    },
    checks,
    observations: f.observations,
    suiteErrors: f.suiteErrors,
    unmatchedExpectations: Object.keys(pins).filter((id) => !ids.has(id)).sort(),
    notChecked: catalog.notChecked,
    stopped: f.stopped ?? null,
    leftOut: f.readOnly ? checks.filter((c) => c.outcome === 'skipped').map((c) => c.id) : [],
    cleanUp: f.cleanUp ?? { deleted: [], restored: [] },
    leftOnTarget: f.leftOnTarget ?? [],
    ...(f.recoverCommand && f.leftOnTarget?.length ? { recoverCommand: f.recoverCommand } : {}),
    resources: { maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) },
    ...(f.requests ? { outsideChecks: outsideChecks(f.requests, [...checks, ...f.observations]) } : {}),
  };
}

/** A check as reported: its requirement's text beside it, and the --expect pin on it, if any, with whether the outcome matched it. */
function reported(c: CollectedCheck, text: string, pin: Expectation | undefined): ReportedCheck {
  return {
    id: c.id, requirement: c.requirement, level: c.level, clause: c.clause, title: c.title,
    text, resource: c.resource, outcome: c.outcome, reason: c.reason ?? null,
    durationMs: c.durationMs, exchanges: c.exchanges, notes: c.notes,
    ...(pin ? { expected: { ...pin, status: pinStatus(pin, c.outcome) } } : {}),
  };
}

/** The verdict and the exit code. */
function judged(f: RunFacts, checks: ReportedCheck[], untested: Untested[]): Pick<RunResult, 'verdict' | 'exitCode'> {
  const failed = checks.filter((c) => c.outcome === 'failed');
  // A run that judged no check (every one it selected left out, not applicable or blocked) proves nothing.
  const unprovable = untested.some((u) => !u.allowed) || !judgedAny(checks);
  // A failed check proves non-conformance even when something else went wrong (say, what a broken
  // delete left on the target): only a run that proves nothing either way is incomplete.
  // A target the clean-up could not put back is never a pass: what the run changed, or what a
  // write of the clean-up did to it, is still there, and no check judged it.
  const notRestored = (f.leftOnTarget ?? []).length > 0;
  // A run that stopped early (a timeout, the environment gone, another writer) still proves the
  // failures it judged: interference has already set aside those another writer could explain
  // (settledByInterference). Only an interrupted run ends as such: the person who stopped it asked.
  const proven = failed.some((c) => !isKnownDeviation(c));
  const verdict: Verdict = f.stopped === 'interrupted' ? 'incomplete'
    : proven ? 'not-conformant'
    : f.stopped ? 'incomplete'
    : failed.length ? 'not-conformant' : f.suiteErrors.length || unprovable || notRestored ? 'incomplete' : 'conformant';
  const exitCode =
    f.stopped === 'interrupted' ? EXIT.interrupted
    : proven ? EXIT.nonConformant
    : f.stopped ? EXIT.usage
    : f.suiteErrors.length || notRestored ? EXIT.usage
    // Only known deviations: what they block is their consequence, and the pins let the run pass.
    : failed.length ? EXIT.conformant
    : unprovable ? EXIT.usage
    : EXIT.conformant;
  return { verdict, exitCode };
}

/**
 * No pass without proof. A MUST requirement the run selected (some check of it was not skipped,
 * nor not applicable for want of a check --only left out: --only and --read-only leave out checks
 * on purpose, and a requirement none of whose checks was selected is outside the run) is proven by a check that passed or failed; it is
 * untested when none did, and also when some of its checks were blocked (the suite could not
 * establish what they need). Under --strict, where a SHOULD check can fail the run, a SHOULD
 * requirement with a blocked check is untested too.
 */
export function unproven(checks: ReportedCheck[], requirements: Requirement[], strict = false): Untested[] {
  const untested: Untested[] = [];
  for (const r of requirements.filter((q) => q.level === 'MUST' || strict)) {
    const ran = checks.filter((c) => c.requirement === r.id && !isOutsideSelection(c));
    if (!ran.length) continue;
    const blocked = ran.filter((c) => c.outcome === 'blocked');
    if (r.level === 'SHOULD') {
      if (blocked.length) untested.push({ requirement: r.id, reason: `${blocked.length} of its checks blocked (${blocked[0].id}: ${blocked[0].reason})`, allowed: false });
      continue;
    }
    if (ran.some((c) => c.outcome === 'passed' || c.outcome === 'failed')) {
      if (blocked.length) untested.push({ requirement: r.id, reason: `${blocked.length} of its checks blocked (${blocked[0].id}: ${blocked[0].reason})`, allowed: false });
      continue;
    }
    const allowed = Boolean(r.untestedIf) && ran.every((c) => c.outcome === 'not-applicable' && c.reason?.includes(r.untestedIf!));
    untested.push({ requirement: r.id, reason: `no check of it ran and passed: ${ran[0].id} ${ran[0].outcome}${ran[0].reason ? `: ${ran[0].reason}` : ''}`, allowed });
  }
  return untested;
}

const judgedAny = (checks: ReportedCheck[]) => checks.some((c) => c.outcome === 'passed' || c.outcome === 'failed' || c.outcome === 'warning');

/** "not tested: …" for the verdict line, or undefined when every selected requirement was tested. */
export function notTestedText(run: RunResult): string | undefined {
  const allowed = run.untested.filter((u) => u.allowed);
  return allowed.length ? `not tested: ${allowed.map((u) => `${u.requirement} (${u.reason.replace(/^no check of it ran and passed: \S+ not-applicable: /, '')})`).join('; ')}` : undefined;
}

/** What a partial run's verdict holds for, to follow the verdict wherever it is shown; "" for a whole run. */
export function scopeText(run: Pick<RunResult, 'options'>): string {
  const by = [run.options.only !== null ? `--only "${run.options.only}"` : '', run.options.readOnly ? '--read-only' : ''].filter(Boolean);
  return by.length ? ` for the checks selected by ${by.join(' and ')}` : '';
}

/** Why a run is incomplete, as a person reads it. */
export function incompleteText(run: RunResult): string {
  if (run.stopped) return STOPPED_TEXT[run.stopped];
  if (run.leftOnTarget.length) return `the target could not be put back as the run found it (${run.leftOnTarget.map((l) => `${l.record}: ${l.problem}`).join('; ')})`;
  const missing = run.untested.filter((u) => !u.allowed);
  if (missing.length) return `no proof for ${missing.map((u) => u.requirement).join(', ')} (${missing[0].requirement}: ${missing[0].reason}; every reason is in result.json "untested")`;
  // A run that could not test the target at all (helpers/command/not-tested.ts) says why in its one error.
  if (!run.checks.length && run.suiteErrors.length) return run.suiteErrors[0];
  if (!judgedAny(run.checks)) {
    const first = run.checks.find((c) => c.outcome !== 'skipped') ?? run.checks[0];
    return `no check was judged: each one the run selected was left out, not applicable or blocked${first ? ` (${first.id}: ${first.reason ?? first.outcome})` : ''}`;
  }
  return 'the suite could not run; see its errors';
}

/** The requests of the log that no check or observation shows, by phase, in the order sent. */
function outsideChecks(requests: WireEntry[], shown: { exchanges: Exchange[] }[]): { phase: string; exchanges: Exchange[] }[] {
  const seen = new Set(shown.flatMap((s) => s.exchanges.map((e) => e.id)));
  const phases = new Map<string, Exchange[]>();
  for (const { phase, exchange } of requests) {
    if (seen.has(exchange.id)) continue;
    seen.add(exchange.id);
    // Outside every check, the suites' requests are their set-up and clean-up.
    const shownAs = phase === 'suites' ? 'suite set-up and clean-up' : phase;
    if (!phases.has(shownAs)) phases.set(shownAs, []);
    phases.get(shownAs)!.push(exchange);
  }
  return [...phases].map(([phase, exchanges]) => ({ phase, exchanges }));
}

/** Checks grouped by resource, in the order the run met them. */
export function byResource(checks: ReportedCheck[]): [string, ReportedCheck[]][] {
  const groups = new Map<string, ReportedCheck[]>();
  for (const c of checks) groups.set(c.resource, [...(groups.get(c.resource) ?? []), c]);
  return [...groups];
}

export const VERDICT_TEXT: Record<Verdict, string> = {
  conformant: 'CONFORMANT',
  'not-conformant': 'NOT CONFORMANT',
  incomplete: 'INCOMPLETE',
};
