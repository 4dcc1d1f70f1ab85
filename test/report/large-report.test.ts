/**
 * The reports of a large run: the HTML page renders a summary and one row per operation, and the details of an
 * operation in the browser when its row is opened (from gzip+base64 data in the page, within the page's CSP);
 * JUnit keeps one testcase per case but one per reason for plain skipped cases; results.json (schemaVersion 2)
 * stores skipped cases by reason and reads back to the same verdict.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { CaseResult, OperationResult, RunResults } from '../../src/runner/model.ts';
import { isLargeRun, LAZY_FAILURE_ROWS, renderHtml } from '../../src/runner/report/html.ts';
import { renderJunit } from '../../src/runner/report/junit.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { expandResults } from '../../src/runner/report/results-format.ts';
import { validateResults } from '../../src/runner/report/results-schema.ts';
import { serialiseResults } from '../../src/runner/report/write.ts';
import { HOSTILE_HEADER, rawOperations, rawRun } from './fixtures/run-results.ts';
import { cannotRun } from '../support/cannot-run.ts';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const NO_CHROMIUM = `chromium not installed at ${CHROMIUM}`;
const OUT_DIR = fileURLToPath(new URL('../.output/report-large/', import.meta.url));

const COPIES = 40;
/** Compress the page's data in small batches, so the browser decodes a stream of several. */
const DATA_BATCH = 1 << 16;

/** Untested: every case but presence skipped for one reason (as when setup finds no id). */
function untestedOperation(k: number): OperationResult {
  const skipped = (name: string, kind: CaseResult['kind']): CaseResult => ({
    name,
    kind,
    outcome: 'skipped',
    skipReason: `setup: create-thing-s${k} answered 200 without a record id`,
    durationMs: 1,
    checks: [],
    findings: [],
    exchanges: [],
  });
  return {
    operationId: `get-thing-s${k}`,
    method: 'GET',
    path: `/s${k}/things/{id}`,
    group: `/s${k}`,
    service: 'customer-service',
    outcome: 'passed',
    durationMs: 5,
    cases: [
      { name: 'presence', kind: 'presence', outcome: 'passed', durationMs: 2, checks: [{ id: 'operation-present', status: 'passed' }], findings: [], exchanges: [], curl: `curl -g 'http://127.0.0.1:4010/s${k}/things/x'` },
      skipped('positive', 'positive'),
      ...['no token', 'empty bearer token', 'Basic scheme', 'malformed token', 'wrong token'].map((n) => skipped(`auth: ${n}`, 'auth')),
      skipped('negative: non-uuid path id id', 'negative'),
    ],
  };
}

/** The fixture's operations COPIES times (each copy under its own group and ids), plus as many untested ones. */
function largeRun(): RunResults {
  const operations: OperationResult[] = [];
  for (let k = 1; k <= COPIES; k++) {
    for (const op of rawOperations()) {
      const operationId = `${op.operationId}-s${k}`;
      operations.push({
        ...op,
        operationId,
        group: `/s${k}${op.group}`,
        cases: op.cases.map((c) => ({ ...c, findings: c.findings.map((f) => ({ ...f, operationId })) })),
      });
    }
    for (let j = 0; j < 3; j++) operations.push(untestedOperation(k * 10 + j));
  }
  return summarise(rawRun(operations));
}

describe('a large run, as text', () => {
  const run = largeRun();
  const html = renderHtml(run, { dataBatch: DATA_BATCH });

  test('is large, and renders one row per operation without the details', () => {
    expect(isLargeRun(run)).toBe(true);
    expect((html.match(/<details class="op /g) ?? []).length).toBe(run.operations.length);
    expect(html).not.toContain('<article class="case');
    expect(html).toContain('<script type="application/json" id="report-data" data-encoding="gzip+base64">');
  });

  test('the data in the page is every operation\'s details, in row order, and holds no markup of the run', () => {
    const data = /<script type="application\/json" id="report-data"[^>]*>([^<]*)<\/script>/.exec(html)?.[1] ?? '';
    expect(data).toMatch(/^[A-Za-z0-9+/=]+$/);
    const json = gunzipSync(Buffer.from(data, 'base64')).toString('utf8');
    // Several batches of the streamed compression (the browser test below decodes the same page).
    expect(json.length).toBeGreaterThan(4 * DATA_BATCH);
    const details = JSON.parse(json) as Array<{ outcome: string; cases: unknown[] }>;
    const rows = [...html.matchAll(/<details class="op [^"]*" id="[^"]*" data-outcome="([^"]*)"/g)].map((m) => m[1]);
    expect(details.map((d) => d.outcome)).toEqual(rows);
    expect(JSON.stringify(details)).toContain('<script>window.__pwned=1</script>');
    // The service's markup appears in the page only escaped.
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain(HOSTILE_HEADER);
  });

  test('What failed counts every failing case but lists at most LAZY_FAILURE_ROWS per reason', () => {
    const section = /<section id="failures"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    for (const body of section.split('<tbody class="reason"').slice(1)) {
      expect((body.match(/<tr>/g) ?? []).length).toBeLessThanOrEqual(LAZY_FAILURE_ROWS);
    }
    expect(section).toMatch(/\d+ more cases? for this reason/);
  });

  test('a small run keeps the full page', () => {
    const small = renderHtml(summarise(rawRun()));
    expect(small).toContain('<article class="case');
    expect(small).not.toContain('id="report-data"');
  });

  test('JUnit: plain skipped cases of one reason are one testcase that counts them; failures stay one per case', () => {
    const xml = renderJunit(run);
    expect(xml).toContain('name="get-thing-s10 › positive (+6 more)"');
    expect(xml).toContain('<skipped message="untested: setup: create-thing-s10 answered 200 without a record id"/>');
    expect(xml).not.toContain('get-thing-s10 › auth: no token');
    // The run's properties once, on the first testsuite, however many suites there are.
    expect((xml.match(/<testsuite /g) ?? []).length).toBeGreaterThan(100);
    expect((xml.match(/<property name="verdict" /g) ?? []).length).toBe(1);
    // It stands for several cases: no per-case properties.
    expect(/name="get-thing-s10 › positive \(\+6 more\)"[^>]*>\s*<skipped [^>]*\/>\s*<\/testcase>/.test(xml)).toBe(true);
    const failures = run.operations.flatMap((op) => op.cases).filter((c) => c.outcome === 'failed' || c.outcome === 'missing').length;
    expect((xml.match(/<failure /g) ?? []).length).toBeGreaterThanOrEqual(failures);
  });

  test('results.json: skipped cases by reason, valid, and read back to the same outcomes and findings', () => {
    const text = serialiseResults(run);
    const stored = JSON.parse(text) as { operations: Array<{ operationId: string; skipped?: unknown; cases?: unknown[] }> };
    expect(validateResults(stored)).toEqual([]);
    const untested = stored.operations.find((o) => o.operationId === 'get-thing-s10');
    expect(untested?.skipped).toEqual([
      {
        reason: 'setup: create-thing-s10 answered 200 without a record id',
        cases: { positive: ['positive'], auth: ['auth: no token', 'auth: empty bearer token', 'auth: Basic scheme', 'auth: malformed token', 'auth: wrong token'], negative: ['negative: non-uuid path id id'] },
      },
    ]);
    const back = summarise(expandResults(stored));
    expect(back.verdict).toBe(run.verdict);
    expect(back.counts).toEqual(run.counts);
    const view = (r: RunResults) => r.operations.map((op) => [op.operationId, op.outcome, op.reason, op.cases.map((c) => [c.name, c.outcome, c.skipReason, c.findings.map((f) => [f.check, f.message, f.specLocation, f.operationId, f.method, f.path])])]);
    expect(view(back)).toEqual(view(run));
  });
});

test('results.json keeps the count of records left behind that no id names, adds up alike entries (merged shards), and reads the counts back', () => {
  const record = { operationId: 'create-thing', method: 'POST' as const, path: '/things', createdBy: 'http://127.0.0.1:4010/things', reason: 'the answer (200) named no id' };
  const run = { ...summarise(rawRun([])), leftBehind: [{ ...record, count: 3 }, { ...record, id: 'a1' }, record, { ...record, count: 2 }] };
  const stored = JSON.parse(serialiseResults(run)) as { leftBehind: unknown[] };
  expect(stored.leftBehind).toEqual([{ ...record, count: 6 }, { ...record, id: 'a1' }]);
  expect(validateResults(stored)).toEqual([]);
  expect(expandResults(stored).leftBehind).toEqual([{ ...record, count: 6 }, { ...record, id: 'a1' }]);
  // One record alone carries no count.
  const single = JSON.parse(serialiseResults({ ...summarise(rawRun([])), leftBehind: [record] })) as { leftBehind: unknown[] };
  expect(single.leftBehind).toEqual([record]);
  expect(validateResults(single)).toEqual([]);
});

describe('a large run in a real browser (chromium)', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const file = `${OUT_DIR}index.html`;

  beforeAll(async () => {
    if (!HAS_CHROMIUM) return;
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(file, renderHtml(largeRun(), { dataBatch: DATA_BATCH }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (r.url() !== pathToFileURL(file).href) problems.push(`request: ${r.url()}`);
    });
    await page.goto(pathToFileURL(file).href);
  });

  afterAll(async () => {
    await browser?.close();
  });

  test('opens with no console error and no request, and renders no details before a row is opened', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    expect(problems).toEqual([]);
    expect(await page.locator('article.case').count()).toBe(0);
    expect(await page.locator('#shown').textContent()).toMatch(/^Showing \d+ of \d+ operations$/);
  });

  test("a failed operation's details render on demand: findings, exchanges, the reproduction with a copy button", async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    const row = page.locator('#op-customer-service-get-address-type-field-list-s7');
    await row.locator('summary').click();
    await expect.poll(() => row.getAttribute('data-rendered')).toBe('true');
    expect(await row.locator('article.case').count()).toBeGreaterThan(0);
    await expect(row.locator('.finding .check-id').first().textContent()).resolves.toBe('response-schema-conformance');
    await expect(row.locator('code.spec').first().textContent()).resolves.toContain('#/paths/');
    const bodies = await row.locator('pre.response-body').allTextContents();
    expect(bodies.some((b) => b.includes('<script>window.__pwned=1</script>'))).toBe(true);
    const headers = await row.locator('pre.http').allTextContents();
    expect(headers.some((h) => h.includes(`x-evil: ${HOSTILE_HEADER}`))).toBe(true);
    const button = row.locator('button.copy').first();
    await button.click();
    await expect.poll(() => button.textContent()).toMatch(/^(Copied|Selected: press Ctrl\+C)$/);
    expect(await row.locator('code[id^="lazy-copy-"]').first().textContent()).toContain('curl ');
  });

  test('hostile strings stay text: nothing ran, no image was created', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    await page.click('#expand-all');
    await expect.poll(() => page.locator('details.op[data-rendered="loading"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  test('the search finds a row by operation id, method or path', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    await page.fill('#search', 'get-thing-s391');
    const visible = await page.$$eval('details.op', (rows) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => r.id));
    expect(visible).toEqual(['op-customer-service-get-thing-s391']);
    await page.fill('#search', '/s10/things');
    expect(await page.locator('#shown').textContent()).toMatch(/^Showing 1 of /);
    await page.fill('#search', '');
  });

  test('a link to an operation opens it with its details', async ({ skip }) => {
    if (!HAS_CHROMIUM) cannotRun(skip, NO_CHROMIUM);
    await page.click('#collapse-all');
    await page.goto(`${pathToFileURL(file).href}#op-customer-service-delete-address-type-s3`);
    const row = page.locator('#op-customer-service-delete-address-type-s3');
    await expect.poll(() => row.getAttribute('data-rendered')).toBe('true');
    await expect(row.locator('.missing-note').textContent()).resolves.toContain('Missing:');
  });
});
