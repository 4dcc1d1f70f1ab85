import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderHtml } from '../../src/runner/report/html.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { fixtureRun, HOSTILE, HOSTILE_HEADER, rawOperations, rawRun } from './fixtures/run-results.ts';
import { cannotRun } from '../support/cannot-run.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const OUT_DIR = fileURLToPath(new URL('../.output/report-html/', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../reports/screenshots/', import.meta.url));

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function between(html: string, open: string, close: string): string[] {
  const found: string[] = [];
  let at = html.indexOf(open);
  while (at !== -1) {
    const start = at + open.length;
    const end = html.indexOf(close, start);
    found.push(html.slice(start, end));
    at = html.indexOf(open, end);
  }
  return found;
}

/** An outline of the page: sections and operation rows with their outcome and group. */
function outline(html: string): string {
  const lines: string[] = [];
  const re = /<(section|details|article|header) ([^>]*)>/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const attrs = m[2] ?? '';
    const pick = (name: string): string | undefined => new RegExp(`${name}="([^"]*)"`).exec(attrs)?.[1];
    const parts = [m[1], pick('id') && `#${pick('id')}`, pick('class') && `.${(pick('class') ?? '').split(' ').join('.')}`, pick('data-group') && `group=${pick('data-group')}`, pick('data-outcome') && `outcome=${pick('data-outcome')}`];
    if (/ open(\s|$)/.test(attrs)) parts.push('open');
    lines.push(parts.filter(Boolean).join(' '));
  }
  return `${lines.join('\n')}\n`;
}

describe('renderHtml (as text)', () => {
  const html = renderHtml(fixtureRun());

  test('page outline matches the golden file', async () => {
    await expect(outline(html)).toMatchFileSnapshot('./fixtures/html-outline.golden.txt');
  });

  test('service content is escaped: no markup from a body, header or message reaches the page', () => {
    expect(html).not.toContain('window.__pwned=1</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain(HOSTILE_HEADER);
    expect(html).toContain(escapeHtml(HOSTILE));
    expect(html).toContain(escapeHtml(HOSTILE_HEADER));
  });

  test('one inline style and one inline script, both pinned by hash in the Content-Security-Policy', () => {
    const styles = between(html, '<style>', '</style>');
    const scripts = between(html, '<script>', '</script>');
    expect(styles).toHaveLength(1);
    expect(scripts).toHaveLength(1);
    const hash = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = (/http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '').replace(/&#39;/g, "'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src ${hash(styles[0] ?? '')}`);
    expect(csp).toContain(`script-src ${hash(scripts[0] ?? '')}`);
    expect(scripts[0]).not.toMatch(/\beval\(|new Function|innerHTML/);
  });

  test('self-contained: nothing refers to another file or the network', () => {
    const refs = [...html.matchAll(/\s(?:src|href|action|srcset)="([^"]*)"/g)].map((m) => m[1]);
    expect(refs.filter((r) => !r?.startsWith('#') && !r?.startsWith('data:'))).toEqual([]);
    expect(html).not.toMatch(/@import|url\(/);
  });

  test('top of the page: verdict, counts, targets, contract, duration and catalog coverage', () => {
    expect(html).toContain('<div class="verdict-label">Not conformant</div>');
    expect(html).toContain('<div class="coverage" id="coverage">15 of 287 catalog operations described · 6 tested · 272 not described by the contract</div>');
    // The count of listed not-described operations says what they are, in the summary, the filters and the groups.
    expect(html).toContain('<li class="count o-not-described"><span class="n">2</span> <span class="label">named in the interface without method or path: not testable</span></li>');
    expect(html).toContain('data-outcome="not-described" aria-pressed="true">named in the interface without method or path: not testable <span class="n">2</span></button>');
    expect(html).toContain('<span class="mini o-not-described">1 named in the interface without method or path: not testable</span>');
    expect(html).toContain('http://127.0.0.1:4010/customer-service');
    expect(html).toContain('Customer <span class="contract-version">da1dea94286d</span>');
    expect(html).toContain('<dt>Duration</dt><dd>12.50 s</dd>');
  });

  test('failures show expected vs actual, schema paths, the spec location and the curl line', () => {
    expect(html).toContain(
      '<td><code>/0/isMandatory</code></td><td>must be boolean</td><td><code class="expected">{&quot;type&quot;:&quot;boolean&quot;}</code></td><td><code class="actual">&quot;yes&quot;</code></td><td><code>#/items/properties/isMandatory/type</code></td>',
    );
    expect(html).toContain('contract/customer-service.openapi.yaml#/paths/~1address-types~1{id}~1fields/get/responses/200');
    expect(html).toContain(escapeHtml(`-H "authorization: Bearer $CONFORMANCE_TOKEN"`));
  });

  test('what failed comes first, grouped by reason, before the operations table', () => {
    const failures = html.indexOf('<section id="failures"');
    expect(failures).toBeGreaterThan(html.indexOf('<section class="summary"'));
    expect(failures).toBeLessThan(html.indexOf('<section id="operations"'));
    const section = html.slice(failures, html.indexOf('</section>', failures));
    const reasons = [...section.matchAll(/data-reason="([^"]*)"/g)].map((m) => m[1]);
    expect(reasons).toEqual(['operation-present', 'pact', 'response-schema-conformance', 'errored']);
    // A failed pact interaction links to the interactions table.
    expect(section).toContain('<td>mobile-app › create an address type</td>');
    expect(section).toContain('<a href="#pact"><code>create-address-type</code></a>');
    // One row per failing case: the operation (linked), the case, one line of why and the evidence.
    expect(section).toContain('<a href="#op-customer-service-get-address-type-field-list"><code>get-address-type-field-list</code></a>');
    expect(section).toContain('<span class="why">The 200 response body does not match the declared schema.</span>');
    expect(section).toContain('at <code>/0/isMandatory</code> expected <code class="expected">{&quot;type&quot;:&quot;boolean&quot;}</code> got <code class="actual">&quot;yes&quot;</code>');
    // Warnings that do not fail the run are not listed as failures.
    expect(section).not.toContain('auth-enforced');
  });

  test('no empty Expected or Actual box: a finding with only one of them shows one column', () => {
    const [op] = rawOperations().filter((o) => o.operationId === 'get-address-type-field-list');
    const { expected: _dropped, ...noExpected } = op!.cases[0]!.findings[0]!;
    const run = summarise(rawRun([{ ...op!, cases: [{ ...op!.cases[0]!, findings: [noExpected] }] }]));
    const page = renderHtml(run);
    expect(page).not.toMatch(/<pre class="(expected|actual)"><\/pre>/);
    expect(page).toContain('<div class="diff single">');
    // The schema fragment still shows per schema error, from the error itself.
    expect(renderHtml(fixtureRun())).not.toMatch(/<pre class="(expected|actual)"><\/pre>/);
  });

  test('a case with a reproduction script shows it with a copy button instead of the lone curl line', () => {
    const [op] = rawOperations().filter((o) => o.operationId === 'get-address-type-field-list');
    const script = '#!/usr/bin/env bash\n# Reproduces x\ncall 1 \'<script>alert(1)</script>\'\n';
    const page = renderHtml(summarise(rawRun([{ ...op!, cases: [{ ...op!.cases[0]!, reproduction: script }] }])));
    expect(page).toContain('Reproduce the whole chain');
    expect(page).toContain(escapeHtml(script));
    expect(page).toMatch(/<button type="button" class="copy" data-copy="repro-1">Copy<\/button>/);
    expect(page).not.toContain('<script>alert(1)</script>');
  });

  test('a pact run without operations leads with the interactions and speaks of them', () => {
    const pactRun = summarise({ ...rawRun([]), expiredWaivers: [] });
    const page = renderHtml(pactRun);
    expect(page).not.toContain('<section id="operations"');
    expect(page).not.toContain('Operations');
    expect(page).not.toContain('broke the contract');
    expect(page).not.toContain('<section id="failures"');
    expect(page).toContain('<div class="verdict-explain">1 of 3 interactions verified; 1 failed (see the interactions below).</div>');
    expect(page).toContain('3 interactions from 2 pact files · verified against the deployment');
    expect(page.indexOf('<section id="pact"')).toBeLessThan(page.indexOf('</main>'));
    expect(page.indexOf('<section id="pact"')).toBeGreaterThan(page.indexOf('<section class="summary"'));
    const rows = [...page.matchAll(/<tr class="pact-row o-([a-z]+)"/g)].map((m) => m[1]);
    expect(rows).toEqual(['failed', 'skipped', 'passed']);
    expect(page).toContain('<code>pacts/mobile-app-customer-service.json</code>');
    expect(page).toContain('data-counts-of="interactions"');
  });

  test('bodies over 8 KiB are cut with a note', () => {
    expect(html).toMatch(/\[body truncated; first 8 KiB of 11(\.\d)? KiB shown\]/);
  });

  test('an empty run renders', () => {
    const { pact: _pact, ...empty } = rawRun([]);
    expect(renderHtml(summarise(empty))).toContain('<div class="verdict-label">Conformant</div>');
  });
});

const NO_CHROMIUM = `chromium not installed at ${CHROMIUM}`;

describe('the HTML report in a real browser (chromium)', () => {
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  const otherRequests: string[] = [];
  const file = `${OUT_DIR}index.html`;

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(file, renderHtml(fixtureRun()));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => failedRequests.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
    page.on('request', (r) => {
      if (r.url() !== pathToFileURL(file).href) otherRequests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
  });

  afterAll(async () => {
    await browser?.close();
  });

  const visibleRows = (): Promise<string[]> =>
    page.$$eval('details.op', (rows) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => r.id));

  test('loads with no console errors, no failed requests and no request but the page', ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    expect(consoleErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
    expect(otherRequests).toEqual([]);
  });

  test('the hostile body shows as text and runs nothing', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    const bodies = await page.locator('pre.response-body').allTextContents();
    expect(bodies.some((b) => b.includes('<script>window.__pwned=1</script><img src=x onerror=\\"window.__pwned=2\\">'))).toBe(true);
    const headers = await page.locator('pre.http').allTextContents();
    expect(headers.some((h) => h.includes(`x-evil: ${HOSTILE_HEADER}`))).toBe(true);
  });

  test('filters hide and show rows', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    // Not-described operations start hidden.
    const initial = await visibleRows();
    expect(initial).toHaveLength(7);
    expect(await page.locator('#shown').textContent()).toBe('Showing 7 of 9 operations');

    // Problems: failed, missing, flaky, errored and untested operations, and those with warnings.
    await page.click('button[data-filter-preset="problems"]');
    expect(await visibleRows()).toEqual([
      'op-customer-service-delete-address-type',
      'op-customer-service-get-address-type-field-list',
      'op-customer-service-customer-get-cache-key-list',
      'op-customer-service-customer-refresh-cache',
    ]);

    await page.click('button.filter[data-outcome="not-described"]');
    expect(await visibleRows()).toHaveLength(6);

    await page.selectOption('#group-filter', '/caches');
    expect(await visibleRows()).toEqual(['op-customer-service-customer-get-cache-key-list', 'op-customer-service-customer-refresh-cache']);
    expect(await page.locator('section.group[data-group="/address-types"]').isVisible()).toBe(false);

    await page.selectOption('#group-filter', '');
    await page.click('button[data-filter-preset="all"]');
    await page.fill('#search', 'reference-numbers');
    expect(await visibleRows()).toEqual(['op-foreign-trade-service-get-foreign-trade-reference-number']);
    await page.fill('#search', '');
    expect(await visibleRows()).toHaveLength(9);
  });

  test('failed, missing and errored operations start open; missing ones are labelled', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    const open = await page.$$eval('details.op[open]', (rows) => rows.map((r) => r.getAttribute('data-outcome')));
    expect(open.sort()).toEqual(['errored', 'failed', 'missing']);
    await expect(page.locator('#op-customer-service-delete-address-type .missing-note').textContent()).resolves.toContain('Missing:');
  });

  test('the copy button copies the curl line or selects it', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    const button = page.locator('#op-customer-service-get-address-type-field-list button.copy').first();
    await button.click();
    await expect.poll(() => button.textContent()).toMatch(/^(Copied|Selected: press Ctrl\+C)$/);
  });

  test('what failed is on screen above the operations, each row linking to its operation', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    const failures = await page.locator('#failures').boundingBox();
    const operations = await page.locator('#operations').boundingBox();
    expect(failures && operations && failures.y < operations.y).toBe(true);
    expect(await page.locator('#failures tbody.reason').count()).toBe(4);
    await page.click('#failures a[href="#op-customer-service-customer-get-cache-key-list"]');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#op-customer-service-customer-get-cache-key-list');
    expect(await page.locator('#op-customer-service-customer-get-cache-key-list').getAttribute('open')).not.toBeNull();
  });

  test('a pact-only report: interactions first, no operations section, screenshot', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    const pactFile = `${OUT_DIR}pact.html`;
    writeFileSync(pactFile, renderHtml(summarise({ ...rawRun([]), expiredWaivers: [] })));
    const pactPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    pactPage.on('pageerror', (e) => errors.push(e.message));
    await pactPage.goto(pathToFileURL(pactFile).href);
    expect(await pactPage.locator('#operations').count()).toBe(0);
    expect(await pactPage.locator('.verdict-explain').textContent()).toBe('1 of 3 interactions verified; 1 failed (see the interactions below).');
    const first = await pactPage.locator('tr.pact-row').first().getAttribute('data-outcome');
    expect(first).toBe('failed');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await pactPage.screenshot({ path: `${SCREENSHOTS}pact-report.png`, fullPage: true });
    await pactPage.close();
    expect(errors).toEqual([]);
  });

  test('screenshot for a human look', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.click('button[data-filter-preset="all"]');
    await page.click('button.filter[data-outcome="not-described"]'); // back to the initial view
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENSHOTS}report.png`, fullPage: true });
    expect(existsSync(`${SCREENSHOTS}report.png`)).toBe(true);
    expect(consoleErrors).toEqual([]);
  });
});
