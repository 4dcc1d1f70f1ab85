import { describe, expect, test } from 'vitest';
import { ConsoleProgress, isLive, isInteractive, renderSummary, type ProgressStream } from '../../src/runner/report/console.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { fixtureRun, rawRun } from './fixtures/run-results.ts';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

class Capture implements ProgressStream {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 120,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

describe('isInteractive', () => {
  const table: Array<[string, boolean, Record<string, string | undefined>, boolean]> = [
    ['a terminal', true, {}, true],
    ['a pipe', false, {}, false],
    ['a terminal with NO_COLOR', true, { NO_COLOR: '1' }, false],
    ['a terminal in CI', true, { CI: 'true' }, false],
    ['a terminal with CI=false', true, { CI: 'false' }, true],
    ['a terminal with an empty NO_COLOR', true, { NO_COLOR: '' }, true],
  ];
  test.each(table)('%s -> %s', (_name, isTTY, env, want) => {
    expect(isInteractive({ isTTY }, env)).toBe(want);
  });
});

describe('ConsoleProgress', () => {
  test('off a terminal: plain lines, one per 10 %, no ANSI codes', () => {
    const out = new Capture(false);
    const progress = new ConsoleProgress(out, { env: {} });
    progress.start(40);
    for (let done = 1; done <= 40; done++) progress.update(done, done > 20 ? 1 : 0, `op-${done}`);
    progress.finish();
    expect(out.text).not.toMatch(ANSI);
    expect(out.text).not.toContain('\r');
    const lines = out.text.trim().split('\n');
    expect(lines[0]).toBe('conformance: testing 40 operations');
    expect(lines.slice(1)).toEqual([
      'progress: 4/40 operations (10%), 0 failing',
      'progress: 8/40 operations (20%), 0 failing',
      'progress: 12/40 operations (30%), 0 failing',
      'progress: 16/40 operations (40%), 0 failing',
      'progress: 20/40 operations (50%), 0 failing',
      'progress: 24/40 operations (60%), 1 failing',
      'progress: 28/40 operations (70%), 1 failing',
      'progress: 32/40 operations (80%), 1 failing',
      'progress: 36/40 operations (90%), 1 failing',
      'progress: 40/40 operations (100%), 1 failing',
    ]);
  });

  test('off a terminal with few operations: a line per operation at most', () => {
    const out = new Capture(false);
    const progress = new ConsoleProgress(out, { env: {} });
    progress.start(3);
    for (let done = 1; done <= 3; done++) progress.update(done, 0);
    expect(out.text.trim().split('\n')).toHaveLength(4);
  });

  test('on a terminal: one coloured line rewritten in place, cleared at the end', () => {
    const out = new Capture(true, 100);
    const progress = new ConsoleProgress(out, { env: {} });
    progress.start(10);
    progress.update(5, 2, 'get-address-type-field-list');
    expect(out.text).toMatch(ANSI);
    expect(out.text).not.toContain('\n');
    const last = out.text.split('\r').pop() ?? '';
    // eslint-disable-next-line no-control-regex
    const visible = last.replace(/\u001b\[[0-9;]*[mK]/g, '');
    expect(visible).toContain(' 50% 5/10 · 2 failing');
    expect(visible).toContain('get-address-type-field-list');
    progress.finish();
    expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
  });

  test('a terminal with NO_COLOR keeps the live progress, without colour', () => {
    const out = new Capture(true);
    const progress = new ConsoleProgress(out, { env: { NO_COLOR: '1' } });
    progress.start(10);
    progress.update(5, 1, 'get-address-type-field-list › positive');
    expect(out.text).not.toMatch(/\u001b\[[0-9;]*m/);
    expect(out.text).toContain('\r');
    expect(out.text).toContain('5/10 · 1 failing');
    expect(out.text).toContain('get-address-type-field-list › positive');
    expect(isLive({ isTTY: true }, { NO_COLOR: '1' })).toBe(true);
    expect(isLive({ isTTY: true }, { CI: 'true' })).toBe(false);
  });

  test('quiet mode prints no progress at all', () => {
    const out = new Capture(true);
    const progress = new ConsoleProgress(out, { env: {}, quiet: true });
    progress.start(10);
    progress.update(5, 1, 'x');
    progress.finish();
    expect(out.text).toBe('');
  });
});

describe('renderSummary', () => {
  const paths = { resultsJson: 'reports/results.json', junitXml: 'reports/junit.xml', html: 'reports/index.html' };

  test('listed not-described operations of which the catalog shows a method and path (absent from the loaded contract files) are "named in the catalog only"', () => {
    const run = fixtureRun();
    const operations = run.operations.map((o) => (o.operationId === 'exchange-user-token' ? { ...o, method: 'POST' as const, path: '/users/token', reason: 'not in the loaded contract files' } : o));
    const text = renderSummary({ ...run, operations }, paths, { color: false });
    expect(text).toContain(' · 1 untested · 2 named in the catalog only: not testable\n');
    expect(text.match(/not described/g)).toHaveLength(1);
  });

  test('plain: verdict, coverage, counts, failing operations with their first finding, slowest, reports', () => {
    const text = renderSummary(fixtureRun(), paths, { color: false });
    expect(text).not.toMatch(ANSI);
    expect(text).toContain('NOT CONFORMANT  Customer da1dea94286d · 12.50 s');
    expect(text).toContain('Coverage: 15 of 287 catalog operations described · 6 tested · 272 not described by the contract');
    // The operation whose positive case was skipped is untested, and the skipped cases are counted as cases. The
    // two listed operations the contract does not describe are named by what they are, not "not described" again.
    expect(text).toContain('Operations: 3 passed · 1 failed · 1 missing · 1 errored · 1 untested · 2 named in the interface without method or path: not testable');
    expect(text.match(/not described/g)).toHaveLength(1);
    expect(text).toContain('Cases: 8 ran · 1 case skipped');
    expect(text).toContain(
      'Verdict: not conformant: 1 failed, 1 missing of 7 operations; 1 pact interaction failed; 1 waiver expired; 1 untested: irreversible side effects (pass --allow-irreversible against a disposable deployment)',
    );
    expect(text).toContain('  untested  customer-refresh-cache\n            irreversible: refreshes a shared cache (use --allow-irreversible)');
    // Warnings have their own section; under failOn error it says they do not fail the run.
    expect(text).toContain('Warnings (reported, not failing the run; --fail-on warning makes them fatal):');
    expect(text).toContain('  warning  get-address-type-field-list › auth: no token: auth-enforced:');
    expect(text).toContain(
      '  failed   get-address-type-field-list  GET /address-types/{id}/fields\n           positive: response-schema-conformance: The 200 response body does not match the declared schema.',
    );
    expect(text).toContain('  missing  delete-address-type  DELETE /address-types/{id}');
    expect(text).toContain('  errored  customer-get-cache-key-list  GET /caches/keys\n           positive: timeout: no response within 10000 ms');
    expect(text).toContain('  delete-address-type / property-casing  expired 2020-01-01: CUS-999: old casing');
    expect(text).toContain('  failed   mobile-app › create an address type');
    const slowest = text.split('Slowest operations (wall time from the first request to the last answer):\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(slowest).toEqual([
      '    10.00 s  customer-get-cache-key-list',
      '     240 ms  get-address-type-field-list',
      '     130 ms  create-address-type',
      '      95 ms  get-foreign-trade-reference-number',
      '      70 ms  update-address-type-field',
    ]);
    expect(text).toContain('Reports:\n  results.json reports/results.json\n  junit.xml    reports/junit.xml\n  index.html   reports/index.html\n');
  });

  test('under --fail-on warning the warnings section and the failing line say the warning failed the run', () => {
    const run = fixtureRun();
    const text = renderSummary(summarise({ ...run, failOn: 'warning' }), paths, { color: false });
    expect(text).not.toContain('Warnings (reported, not failing the run');
    expect(text).toContain('Warnings (--fail-on warning: they fail the run):');
    // The warning's own line is marked fatal too, and the failing line of its operation says the warning failed it.
    expect(text).toContain('(a warning: --fail-on warning failed the run on it)');
  });

  test('coloured when asked', () => {
    expect(renderSummary(fixtureRun(), paths, { color: true })).toMatch(ANSI);
  });

  test('a conformant run lists no problems', () => {
    const { pact: _pact, ...raw } = rawRun(rawRun().operations.filter((o) => o.outcome === 'passed'));
    const text = renderSummary(summarise(raw), {}, { color: false });
    expect(text.startsWith('CONFORMANT')).toBe(true);
    expect(text).not.toContain('Failed, missing');
    expect(text).not.toContain('Reports:');
  });
});
