/**
 * The HTML report as a person sees it: headless Chromium opens the report of a run against the
 * reference with a fault switched on, the verdict shows, the failure filter hides passes, a
 * failure's details expand to the request, response and cURL, and nothing is fetched from
 * anywhere. The screenshot is kept in test/artifacts/ (UPDATE_SCREENSHOT=1 also refreshes docs/report.png).
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { startReference, type RunningReference } from '../reference/server.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { runInProcess, type CliRun } from './support/cli.ts';
import { CHROMIUM, hasChromium } from './support/validators.ts';
import { buildRunResult } from '../helpers/results/run-result.ts';
import { toHtml } from '../helpers/results/reporters/html.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';

const KEY = 'sk_html_secret_4242';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (!hasChromium) console.warn(`report-html: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!hasChromium)('the HTML report in headless Chromium', () => {
  let ref: RunningReference;
  let run: CliRun;
  let context: BrowserContext;

  beforeAll(async () => {
    ref = await startReference({ fault: 'route-missing:retrieveBusiness', apiKey: KEY });
    // Only the operations checks: a short page, so the screenshot shows the whole report.
    run = await runInProcess(['--base-url', ref.url, '--only', 'OP-DOCUMENTED:'], { SCHEDULING_API_KEY: KEY, SCHEDULING_EXPIRED_KEY: ref.expiredKey }, undefined, { resultOnly: false });
    await ref.close();
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'scr-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
    });
  });
  afterAll(async () => {
    await context?.close();
    await ref?.close();
  });

  test('renders the verdict, filters failures, expands a failure, fetches nothing', async () => {
    expect(run.code, run.stderr).toBe(1);
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(pathToFileURL(join(run.reportDir, 'report.html')).href);

    await expect.poll(() => page.locator('header.verdict h1').textContent()).toBe('NOT CONFORMANT');
    expect(await page.locator('tbody.check').count()).toBe(10);

    await page.locator('label', { hasText: 'Failures' }).click();
    // OP-DOCUMENTED:updateBusiness is blocked by the missing retrieval, not failed.
    expect(await page.locator('tbody.check:visible').count()).toBe(1);
    expect(await page.locator('tbody.check.passed:visible').count()).toBe(0);

    const failure = page.locator('tbody.check.failed').first();
    const curl = failure.locator('.curl pre').first();
    expect(await curl.isVisible()).toBe(false);
    await failure.locator('summary').click();
    expect(await curl.isVisible()).toBe(true);
    expect(await curl.textContent()).toContain(`'authorization: Bearer '"$SCHEDULING_API_KEY"`);
    expect(await failure.locator('.pair').first().textContent()).toMatch(/HTTP 405/);

    mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
    const shot = join(projectRoot, 'test/artifacts/report.png');
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.UPDATE_SCREENSHOT) copyFileSync(shot, join(projectRoot, 'docs/report.png'));

    await page.locator('label', { hasText: 'Blocked' }).click();
    expect(await page.locator('tbody.check:visible').count()).toBe(1);
    expect(await page.locator('tbody.check.blocked:visible .reason').textContent()).toMatch(/^blocked by OP-DOCUMENTED:retrieveBusiness: /);

    expect(requested.filter((u) => !u.startsWith('file:'))).toEqual([]);
    expect(await page.content()).not.toContain(KEY);
  });

  test('a long JSON reason wraps in its cell; what is left on the target, with its --recover command, is one link from the top; a certification names the product', async () => {
    const requirement = loadCatalog().byId.get('BUS-UPDATE-APPLIES')!;
    // JSON as a target may answer it: no space, no hyphen, nothing a line may break at.
    const long = JSON.stringify({ logo: 'iVBORw0KGgo'.repeat(300), businessHours: Array.from({ length: 60 }, (_, i) => ({ day: i, opensAt: '0900' })) });
    const run = buildRunResult({
      suiteVersion: '0.1.0', specSha256: 'a'.repeat(64), baseUrl: 'https://staging.example.com', embeddedReference: false,
      startedAt: new Date(0), endedAt: new Date(1000), strict: false, readOnly: false, certify: true, observations: [], suiteErrors: [],
      checks: Array.from({ length: 40 }, (_, i) => ({
        id: `BUS-UPDATE-APPLIES:f${i}`, requirement: requirement.id, level: requirement.level, clause: requirement.clause, title: `f${i} reads back`, resource: 'business',
        outcome: i === 30 ? 'failed' as const : 'passed' as const, reason: i === 30 ? `reads back ${long}` : undefined, durationMs: 1, exchanges: [], notes: [],
      })),
      leftOnTarget: [{ record: '/api/v1/business', problem: 'name still differs' }],
      recoverCommand: 'npx scheduling-conformance --base-url https://staging.example.com --recover reports/x',
    });
    const file = join(mkdtempSync(join(tmpdir(), 'scr-html-')), 'report.html');
    writeFileSync(file, toHtml(run, { vendor: 'Example Ltd', product: 'Example Scheduler', version: '2.1' }));
    const page = await context.newPage();
    await page.goto(pathToFileURL(file).href);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    expect(await page.locator('header.verdict').textContent()).toContain('Certification of Example Scheduler 2.1 by Example Ltd');
    await page.locator('nav.jumps a', { hasText: 'Left on the target' }).click();
    const left = page.locator('#left-on-target');
    expect(await left.isVisible()).toBe(true);
    expect(await left.locator('pre').textContent()).toBe(run.recoverCommand);
    expect(await left.textContent()).not.toContain('by hand');
  });
});

