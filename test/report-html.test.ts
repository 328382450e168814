/**
 * The HTML report as a person sees it: headless Chromium opens the report of a run against the
 * reference with a fault switched on, the verdict shows, the failure filter hides passes, a
 * failure's details expand to the request, response and cURL, and nothing is fetched from
 * anywhere. The screenshot is kept in test/artifacts/ (UPDATE_SCREENSHOT=1 also refreshes docs/report.png).
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { startReference, type RunningReference } from '../reference/server.ts';
import { projectRoot } from '../helpers/core/paths.ts';
import { runInProcess, type CliRun } from './support/cli.ts';
import { CHROMIUM, hasChromium } from './support/validators.ts';

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
    run = await runInProcess(['--base-url', ref.url, '--only', 'OP-DOCUMENTED:'], { SCHEDULING_API_KEY: KEY, SCHEDULING_EXPIRED_KEY: ref.expiredKey });
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
});
