import type { Exchange } from '../../http/exchanges.ts';
import { byResource, incompleteText, isKnownDeviation, notTestedText, VERDICT_TEXT, type ReportedCheck, type RunResult } from '../run-result.ts';
import { curlCommand } from './curl.ts';
import { SCRIPT, STYLE } from './html-style.ts';
import type { Product } from '../../config/product.ts';
import { htmlEscape } from '../../core/html-escape.ts';

const esc = (text: unknown) => htmlEscape(String(text));

const LABEL: Record<ReportedCheck['outcome'] | 'known', string> = {
  passed: 'passed', failed: 'FAILED', warning: 'warning', 'not-applicable': 'not applicable', blocked: 'blocked', skipped: 'skipped', known: 'known deviation',
};

/** A body as a person reads it: JSON indented, anything else as it came. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n');
}

function exchangeHtml(e: Exchange, n: number): string {
  const req = `${e.request.method} ${e.request.url}\n${headerLines(e.request.headers)}${e.request.body !== undefined ? `\n\n${pretty(e.request.body)}` : ''}`;
  const r = e.response;
  const res = r
    ? `HTTP ${r.status}\n${headerLines(r.headers)}${r.body ? `\n\n${pretty(r.body)}` : ''}${r.truncated ? `\n[cut: ${r.bodyBytes} bytes in all]` : ''}`
    : `no answer: ${e.error ?? 'unknown'}`;
  return `<div class="exchange">
<h4>Exchange ${n} · ${esc(e.request.method)} ${esc(new URL(e.request.url).pathname)} → ${r ? esc(r.status) : 'no answer'} · ${e.durationMs} ms${e.attempt > 1 ? ` · attempt ${e.attempt}` : ''}</h4>
<div class="pair"><div><h5>Request</h5><pre>${esc(req)}</pre></div><div><h5>Response</h5><pre>${esc(res)}</pre></div></div>
<div class="curl"><h5>Reproduce (set SCHEDULING_API_KEY first)</h5><button type="button" data-copy>Copy</button><pre>${esc(curlCommand(e))}</pre></div>
</div>`;
}

/**
 * A pin's link from the --expect file: a link only when it is http: or https:, so that a
 * `javascript:` or `data:` value cannot run in the report; anything else is shown as text.
 */
export function linkHtml(link: string): string {
  let web = false;
  try {
    web = ['http:', 'https:'].includes(new URL(link).protocol);
  } catch {
    // Not a URL: text.
  }
  return web ? `<a href="${esc(link)}" rel="noreferrer">${esc(link)}</a>` : `<span class="link-text">${esc(link)}</span>`;
}

/** A check's rows, an exchange a piece: a check that shared a long list's reads shows thousands. */
function* checkPieces(c: ReportedCheck): Generator<string> {
  const known = isKnownDeviation(c);
  const classes = ['check', c.outcome, ...(known ? ['known'] : [])].join(' ');
  const badge = known ? `<span class="badge known">${LABEL.known}</span>` : `<span class="badge ${c.outcome}">${LABEL[c.outcome]}</span>`;
  const pin = c.expected
    ? `<div class="note">pinned in the --expect file as ${esc(c.expected.outcome)}: ${esc(c.expected.reason)}${c.expected.link ? ` (${linkHtml(c.expected.link)})` : ''}${c.expected.status === 'now-passes' ? ' — <b>now passes: remove the pin</b>' : ''}</div>`
    : '';
  const reason = c.reason && c.outcome !== 'passed' ? `<div class="reason">${esc(c.reason)}</div>` : '';
  const notes = c.notes.map((n) => `<div class="note">${esc(n)}</div>`).join('');
  const open = c.outcome === 'failed' || c.outcome === 'warning';
  yield `<tbody class="${classes}" id="check-${esc(c.id)}">
<tr><td>${badge}</td><td class="id"><code>${esc(c.id)}</code><div>${esc(c.title)}</div><div class="req-text">${esc(c.text)}</div>${reason}${pin}${notes}</td>
<td><span class="level ${c.level}">${c.level}</span></td><td>${esc(c.clause)}</td><td class="time">${c.durationMs} ms</td></tr>
`;
  if (c.exchanges.length) {
    yield `<tr class="detail"><td></td><td colspan="5"><details${open ? ' class="failure-detail"' : ''}><summary>${open ? 'Request and response' : 'Exchanges'} (${c.exchanges.length})</summary>`;
    for (const [i, e] of c.exchanges.entries()) yield exchangeHtml(e, i + 1);
    yield '</details></td></tr>';
  }
  yield '</tbody>';
}

function filters(run: RunResult): string {
  const n = (f: (c: ReportedCheck) => boolean) => run.checks.filter(f).length;
  const options: [string, string, number][] = [
    ['all', 'All', run.checks.length],
    ['failed', 'Failures', n((c) => c.outcome === 'failed')],
    ['warning', 'Warnings', n((c) => c.outcome === 'warning')],
    ['not-applicable', 'Not applicable', n((c) => c.outcome === 'not-applicable')],
    ['blocked', 'Blocked', n((c) => c.outcome === 'blocked')],
    ...(run.counts.knownDeviations ? [['known', 'Known deviations', run.counts.knownDeviations] as [string, string, number]] : []),
  ];
  return `<nav class="filters" aria-label="Filter checks">Show: ${options
    .map(([id, label, count]) => `<label><input type="radio" name="show" id="show-${id}"${id === 'all' ? ' checked' : ''}><span>${label} (${count})</span></label>`)
    .join('')}</nav>`;
}

function tiles(run: RunResult): string {
  const c = run.counts;
  const tile = (cls: string, n: number, label: string) => `<div class="tile ${cls}"><b>${n}</b>${label}</div>`;
  return `<div class="tiles">${[
    tile('pass', c.must.passed, 'MUST passed'),
    tile(c.must.failed ? 'fail' : '', c.must.failed, 'MUST failed'),
    tile('pass', c.should.passed, 'SHOULD passed'),
    tile(c.should.warned ? 'warn' : '', c.should.warned, 'SHOULD warned'),
    ...(c.should.failed ? [tile('fail', c.should.failed, 'SHOULD failed (--strict)')] : []),
    tile('na', c.notApplicable, 'not applicable'),
    tile(c.blocked ? 'warn' : '', c.blocked, 'blocked'),
    tile('', c.skipped, 'skipped'),
    tile('', c.requests, 'requests'),
  ].join('')}</div>`;
}

function leftOnTarget(run: RunResult): string {
  const how = run.recoverCommand
    ? `<p>The run could not put these back. This command finishes it later, from the run journal in the report directory:</p><pre>${esc(run.recoverCommand)}</pre>`
    : '<p>The run could not put these back:</p>';
  const body = run.leftOnTarget.length
    ? `${how}<table><thead><tr><th>Record</th><th>Problem</th></tr></thead><tbody>${run.leftOnTarget
        .map((l) => `<tr><td><code>${esc(l.record)}</code></td><td>${esc(l.problem)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p class="nothing">Nothing: the target was left as the run found it.</p>';
  return `<section class="left" id="left-on-target"><h2>Left on the target</h2>${body}</section>`;
}

/** The self-contained HTML report: inline style and script, no request to anywhere. */
/** Links from the top to what a person looks for first, wherever it sits in a long page. */
function jumps(run: RunResult): string {
  const failed = run.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'warning');
  const links = [
    ...(failed.length ? [`<a href="#check-${esc(failed[0].id)}">First failure</a> (${failed.length} failed or warned)`] : []),
    `<a href="#left-on-target">Left on the target</a> (${run.leftOnTarget.length ? `<b>${run.leftOnTarget.length}</b>` : 'nothing'})`,
    ...(run.suiteErrors.length ? [`<a href="#suite-errors">Suite errors</a> (<b>${run.suiteErrors.length}</b>)`] : []),
  ];
  return `<nav class="jumps" aria-label="Jump to">${links.join(' · ')}</nav>`;
}

/** Who and what a certification run certifies, as the bundle's SUMMARY.md names them. */
function productLine(product: Product | undefined): string {
  if (!product) return '';
  return `<p>Certification of <b>${esc(product.product)} ${esc(product.version)}</b> by <b>${esc(product.vendor)}</b>${product.contact ? ` (${esc(product.contact)})` : ''}</p>`;
}

export function toHtml(run: RunResult, product?: Product): string {
  return [...htmlPieces(run, product)].join('');
}

/** The report in pieces, a check at a time (issue 35: a run against a long list shows tens of thousands of exchanges): see toHtml. */
export function* htmlPieces(run: RunResult, product?: Product): Generator<string> {
  const seconds = (run.durationMs / 1000).toFixed(1);
  const notTested = notTestedText(run);
  const subtitle = (run.counts.knownDeviations && run.exitCode === 0
    ? `<p>${run.counts.knownDeviations} failure(s) are known deviations pinned with --expect: the run passes (exit 0).</p>`
    : '') + (run.verdict === 'incomplete' ? `<p class="why">Incomplete: ${esc(incompleteText(run))}</p>` : '') + (notTested ? `<p class="why">${esc(notTested)}</p>` : '');
  const stale = run.checks.filter((c) => c.expected?.status === 'now-passes');
  const observations = run.observations.length
    ? `<section><h2>Observations</h2><p class="note">What the target does where the contract does not rule: information, never a failure.</p><table><tbody>${run.observations
        .map((o) => `<tr><td><code>${esc(o.id)}</code><div>${esc(o.title)}</div></td><td>${esc(o.text)}</td></tr>`)
        .join('')}</tbody></table></section>`
    : '';
  const errors = run.suiteErrors.length
    ? `<section id="suite-errors"><h2>Suite errors</h2><p>The suite could not run completely:</p><pre>${esc(run.suiteErrors.join('\n\n'))}</pre></section>`
    : '';
  const notChecked = run.notChecked.length
    ? `<section><h2>Not checked</h2><details><summary>${run.notChecked.length} statements of the contract no client can check, and why</summary><table><thead><tr><th>Clause</th><th>Statement</th><th>Why</th></tr></thead><tbody>${run.notChecked
        .map((n) => `<tr><td>${esc(n.clause)}</td><td>${esc(n.statement)}</td><td>${esc(n.why)}</td></tr>`)
        .join('')}</tbody></table></details></section>`
    : '';
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${VERDICT_TEXT[run.verdict]} · Scheduling API v1 conformance of ${esc(run.target.origin)}</title>
<style>${STYLE}</style></head>
<body>
<header class="verdict ${run.verdict}"><h1>${VERDICT_TEXT[run.verdict]}</h1>
<p>Scheduling API v1 · target <code>${esc(run.target.origin)}</code>${run.target.embeddedReference ? ' (embedded reference)' : ''}${run.target.proxy ? ` through the proxy <code>${esc(run.target.proxy)}</code>` : ''} · ${esc(run.startedAt)} · ${seconds} s${run.explore ? ` · exploration: ${run.explore.commands} commands, seed <code>${run.explore.seed}</code> (<code>--explore ${run.explore.commands} --explore-seed ${run.explore.seed}</code> replays it)` : ''}</p>
<p>suite ${esc(run.suite.version)} · spec SHA-256 <code>${esc(run.spec.sha256)}</code>${run.options.strict ? ' · --strict' : ''}${run.options.readOnly ? ' · --read-only' : ''}${run.options.only ? ` · --only ${esc(run.options.only)}` : ''}${run.options.certify ? ' · certification run' : ''}</p>
${productLine(product)}${subtitle}</header>
<main>
${jumps(run)}
${tiles(run)}
${stale.length ? `<p class="note"><b>Pins to remove:</b> ${stale.map((c) => `<code>${esc(c.id)}</code>`).join(', ')} now pass.</p>` : ''}
${run.unmatchedExpectations.length ? `<p class="note"><b>Pins that match no check of this run:</b> ${run.unmatchedExpectations.map((id) => `<code>${esc(id)}</code>`).join(', ')}</p>` : ''}
${filters(run)}
`;
  for (const [i, [resource, checks]] of byResource(run.checks).entries()) {
    yield `${i ? '\n' : ''}<section class="resource"><h2>${esc(resource)}</h2>
<table><thead><tr><th style="width:120px">Outcome</th><th>Check and requirement</th><th style="width:70px">Level</th><th style="width:70px">Clause</th><th style="width:80px">Time</th></tr></thead>
`;
    for (const [j, c] of checks.entries()) {
      if (j) yield '\n';
      yield* checkPieces(c);
    }
    yield '</table></section>';
  }
  yield `
${errors}
${observations}
${notChecked}
${leftOnTarget(run)}
<footer>Keys never appear in this report: requests show <code>$SCHEDULING_API_KEY</code> in their place. Generated by scheduling-conformance ${esc(run.suite.version)}.</footer>
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}
