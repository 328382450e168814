/** The HTML report's inline stylesheet and script: the report loads nothing from anywhere. */
export const STYLE = `
:root { --pass:#1a7f37; --fail:#cf222e; --warn:#9a6700; --na:#0969da; --skip:#6e7781; --ink:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 0 24px 48px; }
header.verdict { padding: 20px 24px; color: #fff; }
header.verdict.conformant { background: var(--pass); }
header.verdict.not-conformant { background: var(--fail); }
header.verdict.incomplete { background: #57606a; }
header.verdict h1 { margin: 0; font-size: 28px; letter-spacing: .02em; }
header.verdict p { margin: 4px 0 0; opacity: .95; }
header.verdict code { background: rgba(255,255,255,.18); padding: 0 4px; border-radius: 3px; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: 20px 0; }
.tile { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 120px; background: var(--bg); }
.tile b { display: block; font-size: 22px; }
.tile.fail b { color: var(--fail); } .tile.warn b { color: var(--warn); } .tile.pass b { color: var(--pass); } .tile.na b { color: var(--na); }
.filters { position: sticky; top: 0; background: #fff; padding: 10px 0; border-bottom: 1px solid var(--line); z-index: 1; }
.filters label { display: inline-block; margin-right: 6px; padding: 3px 10px; border: 1px solid var(--line); border-radius: 14px; cursor: pointer; }
.filters input { position: absolute; opacity: 0; }
.filters input:checked + span { font-weight: 600; }
.filters label:has(input:checked) { background: var(--ink); color: #fff; border-color: var(--ink); }
body:has(#show-failed:checked) tbody.check:not(.failed),
body:has(#show-warning:checked) tbody.check:not(.warning),
body:has(#show-not-applicable:checked) tbody.check:not(.not-applicable),
body:has(#show-blocked:checked) tbody.check:not(.blocked),
body:has(#show-known:checked) tbody.check:not(.known) { display: none; }
body:has(#show-failed:checked) section.resource:not(:has(tbody.failed)),
body:has(#show-warning:checked) section.resource:not(:has(tbody.warning)),
body:has(#show-not-applicable:checked) section.resource:not(:has(tbody.not-applicable)),
body:has(#show-blocked:checked) section.resource:not(:has(tbody.blocked)),
body:has(#show-known:checked) section.resource:not(:has(tbody.known)) { display: none; }
h2 { margin: 28px 0 8px; font-size: 18px; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
.jumps { margin: 16px 0 0; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--bg); font-weight: 600; font-size: 12px; text-transform: uppercase; color: var(--muted); }
td.time { text-align: right; white-space: nowrap; color: var(--muted); }
td.id code { font-weight: 600; }
.req-text { color: var(--muted); font-size: 13px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.badge.passed { background: #dafbe1; color: var(--pass); }
.badge.failed { background: var(--fail); color: #fff; }
.badge.warning { background: #fff8c5; color: var(--warn); border-color: #d4a72c; }
.badge.not-applicable { background: #ddf4ff; color: var(--na); border-style: dashed; border-color: var(--na); }
.badge.blocked { background: #fff1e5; color: #bc4c00; border-style: dashed; border-color: #bc4c00; }
.badge.skipped { background: #eaeef2; color: var(--skip); }
.badge.known { background: #fbefff; color: #8250df; border-color: #c297ff; }
.level { font-size: 12px; font-weight: 600; }
.level.MUST { color: var(--ink); } .level.SHOULD { color: var(--muted); }
tbody.failed td:first-child { box-shadow: inset 4px 0 var(--fail); }
tbody.warning td:first-child { box-shadow: inset 4px 0 #d4a72c; }
tbody.known td:first-child { box-shadow: inset 4px 0 #c297ff; }
.reason { margin-top: 4px; white-space: pre-wrap; }
/* A reason or an id holding long JSON wraps inside its cell instead of widening the table. */
td { overflow-wrap: anywhere; }
tbody.failed .reason { color: var(--fail); } tbody.warning .reason { color: var(--warn); }
tr.detail td { border-bottom: 1px solid var(--line); padding-top: 0; }
details > summary { cursor: pointer; color: var(--na); }
.exchange { margin: 10px 0 16px; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.exchange h4 { margin: 0; padding: 6px 10px; background: var(--bg); font-size: 13px; border-bottom: 1px solid var(--line); }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
.pair > div { min-width: 0; } .pair > div + div { border-left: 1px solid var(--line); }
.pair h5, .curl h5 { margin: 8px 10px 0; font-size: 12px; color: var(--muted); text-transform: uppercase; }
pre { margin: 6px 10px 10px; white-space: pre-wrap; word-break: break-all; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
.curl { border-top: 1px solid var(--line); background: #fcfcfd; position: relative; }
.curl button { position: absolute; top: 6px; right: 10px; font-size: 12px; }
.note { color: var(--muted); }
section.left ul { padding-left: 20px; }
.nothing { color: var(--pass); font-weight: 600; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;

export const SCRIPT = `
document.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-copy]');
  if (!button) return;
  const text = button.parentElement.querySelector('pre').textContent;
  navigator.clipboard.writeText(text).then(() => { button.textContent = 'Copied'; }, () => { button.textContent = 'Select and copy'; });
});
`;
