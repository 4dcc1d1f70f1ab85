import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, type TestCase, type TestSuite, type TestSuites } from 'junit2json';
import type { RunResults } from '../../src/runner/model.ts';
import { renderJunit, type JunitOptions } from '../../src/runner/report/junit.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { fixtureRun, HOSTILE, rawRun } from './fixtures/run-results.ts';
import { cannotRun } from '../support/cannot-run.ts';

const OUT = fileURLToPath(new URL('../.output/report-junit/', import.meta.url));
const XSD = fileURLToPath(new URL('./fixtures/junit-10.xsd', import.meta.url));
const HAS_XMLLINT = spawnSync('xmllint', ['--version']).status === 0;

mkdirSync(OUT, { recursive: true });

/** Runs xmllint; returns its stderr ('' when the file validates). */
function xmllint(xml: string, name: string, schema?: string): { ok: boolean; stderr: string } {
  const file = `${OUT}${name}.xml`;
  writeFileSync(file, xml);
  const args = schema ? ['--noout', '--schema', schema, file] : ['--noout', file];
  const run = spawnSync('xmllint', args, { encoding: 'utf8' });
  return { ok: run.status === 0, stderr: run.stderr };
}

/** The Jenkins schema with <properties> also allowed inside <testcase> (for the 'element' option only). */
function schemaWithTestcaseProperties(): string {
  const xsd = readFileSync(XSD, 'utf8');
  const anchor = '<xs:element ref="skipped"/>';
  expect(xsd).toContain(anchor);
  const file = `${OUT}junit-10-testcase-properties.xsd`;
  writeFileSync(file, xsd.replace(anchor, `<xs:element ref="properties"/>\n                    ${anchor}`));
  return file;
}

async function parsed(results: RunResults, options?: JunitOptions): Promise<TestSuites> {
  const out = await parse(renderJunit(results, options));
  if (!out || !('testsuite' in out) || !Array.isArray((out as TestSuites).testsuite)) throw new Error('no <testsuites> root');
  return out as TestSuites;
}

function suite(root: TestSuites, name: string): TestSuite {
  const found = root.testsuite?.find((s) => s.name === name);
  if (!found) throw new Error(`no suite ${name}`);
  return found;
}

function testcase(s: TestSuite, name: string): TestCase {
  const found = s.testcase?.find((c) => c.name === name);
  if (!found) throw new Error(`no testcase ${name} in ${String(s.name)}`);
  return found;
}

/** Times vary between runs of the engine: the golden file compares structure and text. */
function normaliseTimes(xml: string): string {
  return xml.replace(/ time="[0-9.]+"/g, ' time="T"').replace(/ timestamp="[^"]*"/g, ' timestamp="TS"');
}

describe('renderJunit', () => {
  test('matches the golden file (times normalised)', async () => {
    await expect(normaliseTimes(renderJunit(fixtureRun()))).toMatchFileSnapshot('./fixtures/junit.golden.xml');
  });

  test('validates against the Jenkins xUnit junit-10.xsd', ({ skip }) => {
    if (!HAS_XMLLINT) cannotRun(skip, 'xmllint not installed: cannot validate against the JUnit schema');
    const result = xmllint(renderJunit(fixtureRun()), 'fixture', XSD);
    expect(result.stderr).toContain('validates');
    expect(result.ok).toBe(true);
  });

  test("testcaseProperties 'element' writes <properties> in <testcase>; that needs the extended schema", ({ skip }) => {
    if (!HAS_XMLLINT) cannotRun(skip, 'xmllint not installed: cannot validate against the JUnit schema');
    const xml = renderJunit(fixtureRun(), { testcaseProperties: 'element' });
    expect(xmllint(xml, 'element-strict', XSD).ok).toBe(false);
    const result = xmllint(xml, 'element', schemaWithTestcaseProperties());
    expect(result.stderr).toContain('validates');
    expect(xml).not.toContain('[[PROPERTY|');
  });

  test('a run without operations or pact is a valid empty report', ({ skip }) => {
    if (!HAS_XMLLINT) cannotRun(skip, 'xmllint not installed: cannot validate against the JUnit schema');
    const { pact: _pact, ...empty } = rawRun([]);
    const xml = renderJunit(summarise(empty));
    expect(xml).toContain('tests="0"');
    expect(xmllint(xml, 'empty', XSD).ok).toBe(true);
  });

  test('characters XML cannot carry are replaced, and the file stays well-formed', ({ skip }) => {
    if (!HAS_XMLLINT) cannotRun(skip, 'xmllint not installed: cannot check well-formedness');
    const run = fixtureRun();
    const exchange = run.operations.find((o) => o.operationId === 'create-address-type')?.cases[0]?.exchanges[0];
    if (!exchange?.response) throw new Error('fixture changed');
    exchange.response.body = 'bell \u0007 nul \u0000 esc \u001b ]]> end';
    const xml = renderJunit(run);
    expect(xml).toContain('bell \uFFFD nul \uFFFD esc \uFFFD ]]&gt; end');
    expect(xmllint(xml, 'control-chars', XSD).ok).toBe(true);
  });

  test('CI parsers read the counts per suite and in the root', async () => {
    const root = await parsed(fixtureRun());
    expect(root.testsuite?.map((s) => s.name)).toEqual(['/address-types', '/caches', '/customers', '/users', '/reference-numbers', 'pact', 'waivers']);
    const counts = Object.fromEntries(
      (root.testsuite ?? []).map((s) => [s.name, { tests: s.tests, failures: s.failures, errors: s.errors, skipped: s.skipped }]),
    );
    expect(counts).toEqual({
      '/address-types': { tests: 6, failures: 2, errors: 0, skipped: 0 },
      '/caches': { tests: 2, failures: 0, errors: 1, skipped: 1 },
      '/customers': { tests: 1, failures: 0, errors: 0, skipped: 1 },
      '/users': { tests: 1, failures: 0, errors: 0, skipped: 1 },
      '/reference-numbers': { tests: 1, failures: 0, errors: 0, skipped: 0 },
      pact: { tests: 3, failures: 1, errors: 0, skipped: 1 },
      waivers: { tests: 1, failures: 1, errors: 0, skipped: 0 },
    });
    expect({ tests: root.tests, failures: root.failures, errors: root.errors, time: root.time }).toEqual({
      tests: 15,
      failures: 4,
      errors: 1,
      time: 12.5,
    });
    // Suite time is the sum of its testcases' times.
    const addressTypes = suite(root, '/address-types');
    const sum = (addressTypes.testcase ?? []).reduce((n, c) => n + Number(c.time ?? 0), 0);
    expect(Number(addressTypes.time)).toBeCloseTo(sum, 3);
  });

  test('testcase names and classnames both carry the operationId', async () => {
    const root = await parsed(fixtureRun());
    const names = (root.testsuite ?? []).filter((s) => s.name?.startsWith('/')).flatMap((s) => (s.testcase ?? []).map((c) => [c.classname, c.name]));
    expect(names).toEqual([
      ['customer-service./address-types.create-address-type', 'create-address-type › positive'],
      ['customer-service./address-types.create-address-type', 'create-address-type › auth: no token'],
      ['customer-service./address-types.delete-address-type', 'delete-address-type › presence'],
      ['customer-service./address-types.get-address-type-field-list', 'get-address-type-field-list › positive'],
      ['customer-service./address-types.get-address-type-field-list', 'get-address-type-field-list › auth: no token'],
      ['customer-service./address-types.update-address-type-field', 'update-address-type-field › positive'],
      ['customer-service./caches.customer-get-cache-key-list', 'customer-get-cache-key-list › positive'],
      ['customer-service./caches.customer-refresh-cache', 'customer-refresh-cache › positive'],
      ['customer-service./customers.get-customer-list', 'get-customer-list › not described'],
      ['customer-service./users.exchange-user-token', 'exchange-user-token › not described'],
      ['foreign-trade-service./reference-numbers.get-foreign-trade-reference-number', 'get-foreign-trade-reference-number › positive'],
    ]);
  });

  const outcomes: Array<[string, { suite: string; name: string; check: (c: TestCase) => void }]> = [
    [
      'a contract failure is a <failure> typed with the check id, findings in its text',
      {
        suite: '/address-types',
        name: 'get-address-type-field-list › positive',
        check: (c) => {
          expect(c.failure?.[0]?.type).toBe('response-schema-conformance');
          expect(c.failure?.[0]?.message).toBe('response-schema-conformance: The 200 response body does not match the declared schema.');
          const text = c.failure?.[0]?.inner ?? '';
          expect(text).toContain('expected: {');
          expect(text).toContain('actual:   [');
          expect(text).toContain(`"fieldKey": ${JSON.stringify(HOSTILE)}`);
          expect(text).toContain('schema:   /0/isMandatory must be boolean (at #/items/properties/isMandatory/type)\n            expected {"type":"boolean"}');
          expect(text).toContain('spec:     contract/customer-service.openapi.yaml#/paths/~1address-types~1{id}~1fields/get/responses/200');
        },
      },
    ],
    [
      'a missing operation is a <failure> whose message starts with "missing"',
      {
        suite: '/address-types',
        name: 'delete-address-type › presence',
        check: (c) => {
          expect(c.failure?.[0]?.message).toMatch(/^missing: DELETE \/address-types\/\{id\} answered 404/);
          expect(c.failure?.[0]?.type).toBe('operation-present');
        },
      },
    ],
    [
      'a tool or network problem is an <error>, not a failure',
      {
        suite: '/caches',
        name: 'customer-get-cache-key-list › positive',
        check: (c) => {
          expect(c.error?.[0]).toMatchObject({ type: 'timeout', message: 'timeout: no response within 10000 ms' });
          expect(c.failure).toBeUndefined();
        },
      },
    ],
    [
      'a skipped case is <skipped> with its reason',
      {
        suite: '/caches',
        name: 'customer-refresh-cache › positive',
        // The operation is untested: its positive case is skipped with the reason, marked as what made it untested.
        check: (c) => expect(c.skipped?.[0]?.message).toBe('untested: irreversible: refreshes a shared cache (use --allow-irreversible)'),
      },
    ],
    [
      'a not-described operation is skipped with "not described: reason"',
      {
        suite: '/users',
        name: 'exchange-user-token › not described',
        check: (c) => expect(c.skipped?.[0]?.message).toBe('not described: method and path not shown (seed §4.4)'),
      },
    ],
    [
      'a waived finding passes and says so in a property',
      {
        suite: '/address-types',
        name: 'update-address-type-field › positive',
        check: (c) => {
          expect(c.failure).toBeUndefined();
          expect(c['system-out']?.[0]).toContain('[[PROPERTY|waived=status-code-conformance until 2099-12-31: CUS-1234: 204 on update until release 42]]');
        },
      },
    ],
    [
      'a warning does not fail its case but is reported',
      {
        suite: '/address-types',
        name: 'get-address-type-field-list › auth: no token',
        check: (c) => {
          expect(c.failure).toBeUndefined();
          expect(c['system-out']?.[0]).toContain('[warning] auth-enforced: A call without credentials was rejected with 400; expected 401 or 403.');
        },
      },
    ],
    [
      'properties name the method, path, the checks that did not pass and how many passed (the classname names service and operation)',
      {
        suite: '/address-types',
        name: 'create-address-type › positive',
        check: (c) => {
          const out = c['system-out']?.[0] ?? '';
          for (const line of [
            '[[PROPERTY|method=POST]]',
            '[[PROPERTY|path=/address-types]]',
            '[[PROPERTY|checks-passed=3]]',
          ]) {
            expect(out).toContain(line);
          }
          expect(out).not.toContain('[[PROPERTY|check=');
        },
      },
    ],
    [
      'a failing case lists the check that failed as a property',
      {
        suite: '/address-types',
        name: 'get-address-type-field-list › positive',
        check: (c) => {
          const out = c['system-out']?.[0] ?? '';
          expect(out).toContain('[[PROPERTY|check=response-schema-conformance]]');
          expect(out).toContain('[[PROPERTY|checks-passed=1]]');
        },
      },
    ],
    [
      'the redacted exchange is in <system-out>: request line, headers, body, status, response',
      {
        suite: '/address-types',
        name: 'create-address-type › positive',
        check: (c) => {
          const out = c['system-out']?.[0] ?? '';
          expect(out).toContain('> POST http://127.0.0.1:4010/customer-service/address-types\n> authorization: Bearer $CONFORMANCE_TOKEN');
          expect(out).toContain('>\n{"code":"CT-1","name":"Home"}');
          expect(out).toContain('< 200\n< content-type: application/json\n<\n{"id":"6f1c2a8e-3d4b-4f5a-9b6c-7d8e9f0a1b2c"}');
          // A passed case shows its curl line only with its exchanges (the fixture keeps them).
          expect(out).toContain(`reproduce: curl -g -X POST`);
        },
      },
    ],
    [
      'bodies over 4 KiB are cut with a note',
      {
        suite: '/reference-numbers',
        name: 'get-foreign-trade-reference-number › positive',
        check: (c) => {
          const out = c['system-out']?.[0] ?? '';
          expect(out).toMatch(/\[body truncated; first 4 KiB of 11(\.\d)? KiB shown\]/);
          expect(out.length).toBeLessThan(6000);
        },
      },
    ],
    [
      'pact interactions are testcases named consumer › description',
      {
        suite: 'pact',
        name: 'mobile-app › create an address type',
        check: (c) => {
          expect(c.classname).toBe('pact.mobile-app.customer-service');
          expect(c.failure?.[0]?.type).toBe('pact-mismatch');
          expect(c.failure?.[0]?.message).toBe('Expected status 201 but the contract declares only 200 for create-address-type (+1 more)');
          expect(c.failure?.[0]?.inner).toContain(`but was ${HOSTILE}`);
        },
      },
    ],
    [
      'an expired waiver is a failing testcase naming it',
      {
        suite: 'waivers',
        name: 'expired waiver › delete-address-type › property-casing',
        check: (c) => expect(c.failure?.[0]?.message).toBe('expired waiver: delete-address-type / property-casing expired on 2020-01-01'),
      },
    ],
  ];
  test.each(outcomes)('%s', async (_name, { suite: suiteName, name, check }) => {
    check(testcase(suite(await parsed(fixtureRun()), suiteName), name));
  });

  test("with testcaseProperties 'element', CI parsers read the properties of each testcase", async () => {
    const root = await parsed(fixtureRun(), { testcaseProperties: 'element' });
    const c = testcase(suite(root, '/address-types'), 'create-address-type › positive') as TestCase & { properties?: Array<{ name?: string; value?: string }> };
    expect(c.properties).toEqual([
      { name: 'method', value: 'POST' },
      { name: 'path', value: '/address-types' },
      { name: 'case-kind', value: 'positive' },
      { name: 'checks-passed', value: 3 },
    ]);
  });

  test('failing cases of one operation whose repeated failure was shown in full before are one testcase naming the others; a different failure or kept evidence stays its own', async () => {
    const raw = rawRun();
    const op = raw.operations.find((o) => o.cases.some((c) => c.outcome === 'failed' && c.findings.some((f) => f.severity === 'error')))!;
    const failing = op.cases.find((c) => c.outcome === 'failed' && c.findings.some((f) => f.severity === 'error'))!;
    const omitted = (name: string, message = failing.findings[0]!.message) => ({
      ...failing,
      name,
      exchanges: [],
      omittedExchanges: 1,
      findings: failing.findings.map((f, i) => (i === 0 ? { ...f, message } : f)),
    });
    op.cases = [failing, omitted('repeat one'), omitted('repeat two'), omitted('repeat three'), omitted('another failure', 'something else went wrong')];
    const results = summarise(raw);
    const root = await parsed(results);
    const cases = root.testsuite!.flatMap((s) => s.testcase ?? []).filter((c) => c.classname?.endsWith(`.${op.operationId}`));
    expect(cases.map((c) => c.name)).toEqual([
      `${op.operationId} › ${failing.name}`,
      `${op.operationId} › repeat one (+2 more)`,
      `${op.operationId} › another failure`,
    ]);
    const grouped = cases[1]!;
    expect(grouped.failure?.[0]?.inner).toContain('the same failure in 2 more cases of this operation:\n  repeat two\n  repeat three');
    expect(cases[2]!.failure?.[0]?.message).toContain('something else went wrong');
    expect(cases[0]!.failure).toHaveLength(1);
  });

  test('a flaky case is a <failure> typed flaky with its attempts; the operation, the counts and the verdict say flaky', () => {
    const raw = rawRun();
    const op = raw.operations.find((o) => o.operationId === 'create-address-type')!;
    op.cases[0] = { ...op.cases[0]!, outcome: 'flaky', flaky: { attempts: 3, failed: 1 } };
    const results = summarise(raw);
    expect(results.operations.find((o) => o.operationId === 'create-address-type')?.outcome).toBe('flaky');
    expect(results.counts.flaky).toBe(1);
    expect(results.verdict).toBe('not-conformant');
    const xml = renderJunit(results);
    expect(xml).toMatch(/<failure message="flaky: 1 of 3 identical attempts failed[^"]*" type="flaky"/);
  });

  test('a deployment that stopped answering between requests (no case failed on it) is a failing testcase of its own, with what it last answered', async () => {
    const raw = rawRun();
    for (const op of raw.operations) op.cases = op.cases.map((c) => (c.outcome === 'failed' ? { ...c, outcome: 'passed', findings: [] } : c));
    const down = {
      service: 'customer-service',
      baseUrl: 'http://127.0.0.1:1',
      message: 'the deployment stopped answering after GET http://127.0.0.1:1/x (answered 400): connections to http://127.0.0.1:1 are refused',
      after: { method: 'GET' as const, url: 'http://127.0.0.1:1/x', status: 400, curl: "curl -sS 'http://127.0.0.1:1/x'" },
    };
    const results = summarise({ ...raw, targetDown: down });
    expect(results.verdict).toBe('not-conformant');
    const root = await parsed(results);
    expect(Number(root.failures)).toBeGreaterThanOrEqual(1);
    const c = testcase(suite(root, 'deployment'), 'customer-service › stopped answering');
    expect(c.failure?.[0]?.message).toBe(down.message);
    expect(c.failure?.[0]?.inner).toContain("last answered (400):\ncurl -sS 'http://127.0.0.1:1/x'");
    // Where a case failed (its request was cut in flight), that case carries it: no testcase of its own.
    expect(renderJunit(summarise({ ...rawRun(), targetDown: down }))).not.toContain('stopped answering"');
  });

  test('hostile text arrives as text: the XML has no raw markup from the service', () => {
    const xml = renderJunit(fixtureRun());
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('<img');
  });
});
