/**
 * The compatibility of `run --base-contract` in the reports: JUnit (a testcase per breaking change and warning,
 * valid against the Jenkins schema), the HTML section (escaped; seen in chromium), all from the same results.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'junit2json';
import { chromium } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import type { Compatibility } from '../../src/runner/compat/types.ts';
import { renderHtml } from '../../src/runner/report/html.ts';
import { renderJunit } from '../../src/runner/report/junit.ts';
import { fixtureRun } from './fixtures/run-results.ts';

const OUT = fileURLToPath(new URL('../.output/report-compat/', import.meta.url));
const XSD = fileURLToPath(new URL('./fixtures/junit-10.xsd', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

const compatibility: Compatibility = {
  base: { source: 'contract/v1.yaml', version: '1.0.0' },
  revision: { source: 'contract/v2.yaml', version: '2.0.0' },
  breaking: true,
  proven: true,
  provenNote: 'proven against http://127.0.0.1:1/svc: the base contract\'s cases of 2 operation(s) sent; 2 breaking change(s) settled',
  counts: { breaking: 2, warning: 1, info: 1, ignored: 0 },
  changes: [
    { rule: 'api-path-removed-without-deprecation', level: 'breaking', direction: 'none', area: 'path', operation: 'GET /caches/keys', base: '/paths/~1caches~1keys/get', sentence: 'GET /caches/keys: path `/caches/keys` removed without being deprecated first', fingerprint: '0123456789abcdef', deployment: 'still-served', deploymentDetail: 'removed from the contract, still served: old clients keep working until it goes' },
    { rule: 'request-property-became-required', level: 'breaking', direction: 'request', area: 'request body', operation: 'POST /users', base: '/components/schemas/U/properties/x', revision: '/components/schemas/U/properties/x', sentence: `POST /users: request property \`${HOSTILE}\` became required`, fingerprint: 'fedcba9876543210', deployment: 'fails-today', deploymentDetail: 'old clients fail today: the request the last release documented is refused: answered 400', consumers: ['portal'] },
    { rule: 'endpoint-deprecated', level: 'warning', direction: 'none', area: 'operation', operation: 'GET /users', sentence: 'GET /users: operation deprecated without a sunset date: clients cannot plan the move', fingerprint: '1111111111111111' },
    { rule: 'endpoint-added', level: 'info', direction: 'none', area: 'operation', operation: 'GET /owners', sentence: 'GET /owners: operation added', fingerprint: '2222222222222222' },
  ],
};

const run = (): RunResults => ({ ...fixtureRun(), compatibility });

describe('compatibility in the reports', () => {
  test('JUnit: a failed testcase per breaking change, a passing one per warning, info left out; valid against junit-10.xsd', async () => {
    const xml = renderJunit(run());
    const suites = await parse(xml);
    const suite = (suites as { testsuite?: Array<{ name?: string; testcase?: Array<{ name?: string; failure?: unknown[] }> }> }).testsuite?.find((s) => s.name === 'compatibility');
    expect(suite?.testcase?.map((c) => [c.name?.split(':')[0], Boolean(c.failure)])).toEqual([
      ['api-path-removed-without-deprecation', true],
      ['request-property-became-required', true],
      ['endpoint-deprecated', false],
    ]);
    if (spawnSync('xmllint', ['--version']).status === 0) {
      mkdirSync(OUT, { recursive: true });
      writeFileSync(`${OUT}junit.xml`, xml);
      const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, `${OUT}junit.xml`], { encoding: 'utf8' });
      expect(lint.stderr).toContain('validates');
    }
  });

  test('HTML: a section with each breaking change and warning and what the deployment said; the change text escaped', () => {
    const html = renderHtml(run());
    expect(html).toContain('<section id="compatibility">');
    expect(html).toContain('Breaking: 2 breaking, 1 warning(s), 1 info since contract/v1.yaml (1.0.0)');
    expect(html).toContain('old clients fail today: the request the last release documented is refused: answered 400');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;img src=x onerror=');
    expect(html).not.toContain('GET /owners: operation added');
  });

  test.skipIf(!existsSync(CHROMIUM))('HTML in chromium: the section is on screen and the hostile text runs nothing', async () => {
    mkdirSync(OUT, { recursive: true });
    const file = `${OUT}index.html`;
    writeFileSync(file, renderHtml(run()));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'] });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(file).href);
      const rows = await page.$$eval('#compatibility tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).innerText.split('\t')[1]));
      expect(rows).toEqual(['api-path-removed-without-deprecation', 'request-property-became-required', 'endpoint-deprecated']);
      expect(await page.isVisible('#compatibility')).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    } finally {
      await browser.close();
    }
  });
});
