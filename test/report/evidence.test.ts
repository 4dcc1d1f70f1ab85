/**
 * Evidence a person can act on: the schema fragment behind a schema error, the failures grouped by reason,
 * the console's evidence line and pact summary, and the reproduction script's text (its behaviour against a
 * deployment is proven in test/report/reproduction.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { responseSchemaConformance } from '../../src/runner/checks/response-schema-conformance.ts';
import { schemaFragment } from '../../src/runner/checks/schema-fragment.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import type { Operation } from '../../src/runner/model.ts';
import { renderSummary } from '../../src/runner/report/console.ts';
import { failureGroups, findingEvidence } from '../../src/runner/report/failures.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { reproductionScript, type ChainStep } from '../../src/runner/report/reproduction.ts';
import { fixtureRun, rawRun } from './fixtures/run-results.ts';

describe('schemaFragment', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['a type', { type: 'boolean', description: 'shown to users' }, { type: 'boolean' }],
    ['type and format', { type: 'integer', format: 'int32', example: 3 }, { type: 'integer', format: 'int32' }],
    [
      'an object: required kept, properties summarised by type',
      { type: 'object', required: ['id', 'code'], properties: { id: { type: 'string', format: 'uuid' }, code: { type: 'string', maxLength: 10 }, tags: { type: 'array', items: { type: 'string' } } } },
      { type: 'object', required: ['id', 'code'], properties: { id: 'string (uuid)', code: 'string', tags: 'array' } },
    ],
    ['nullable types', { type: ['string', 'null'] }, { type: ['string', 'null'] }],
    ['an enum', { enum: ['A', 'B'] }, { enum: ['A', 'B'] }],
    ['alternatives summarised', { oneOf: [{ type: 'string' }, { type: 'object', properties: {} }] }, { oneOf: ['string', 'object'] }],
    ['vendor extensions dropped', { type: 'string', 'x-internal': true }, { type: 'string' }],
    ['a boolean schema', false, false],
    ['not a schema', undefined, undefined],
  ];
  test.each(cases)('%s', (_name, given, want) => {
    expect(schemaFragment(given)).toEqual(want);
  });

  test('many properties are cut with a count; recursion is bounded', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node['properties'] as Record<string, unknown>)['self'] = node;
    for (let i = 0; i < 20; i++) (node['properties'] as Record<string, unknown>)[`p${i}`] = { type: 'string' };
    const fragment = schemaFragment(node) as { properties: Record<string, unknown> };
    expect(fragment.properties['self']).toBe('object');
    expect(fragment.properties['…']).toBe('9 more');
    expect(Object.keys(fragment.properties)).toHaveLength(13);
  });
});

describe('response-schema-conformance carries the expected fragment', () => {
  const operation = {
    operationId: 'get-thing',
    method: 'GET',
    path: '/things/{id}',
    group: '/things',
    service: 's',
    specFile: 'thing.yaml',
    pointer: '/paths/~1things~1{id}/get',
    parameters: [],
    responses: [
      {
        status: '200',
        contentTypes: ['application/json'],
        pointer: '/paths/~1things~1{id}/get/responses/200',
        schema: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' }, size: { type: 'integer', format: 'int32' } } },
      },
    ],
    secured: true,
    extensions: {},
  } satisfies Operation;

  function judge(json: unknown) {
    const body = JSON.stringify(json);
    const ctx = {
      exchange: {
        request: { method: 'GET', url: 'http://127.0.0.1/things/1', headers: {} },
        response: { status: 200, headers: { 'content-type': 'application/json' }, body, json, truncated: false, size: body.length },
        durationMs: 1,
      },
      operation,
      profile: {},
      validator: new SchemaValidator(),
    } as unknown as CheckContext;
    return responseSchemaConformance.run(ctx);
  }

  test('a wrong type: expected {type, format} at the failing property, actual the body', () => {
    const [f] = judge({ id: '0b0f6b0e-8d7e-4f55-9a3c-6f2b6f7e2a11', size: 'big' });
    expect(f?.expected).toEqual({ type: 'integer', format: 'int32' });
    expect(f?.schemaErrors?.[0]).toMatchObject({ instancePath: '/size', expected: { type: 'integer', format: 'int32' } });
    expect(findingEvidence(f!)).toEqual({ at: '/size', expected: '{"type":"integer","format":"int32"}', actual: '"big"' });
  });

  test('a missing required field: the object fragment with its required list', () => {
    const [f] = judge({ size: 1 });
    expect(f?.expected).toEqual({ type: 'object', required: ['id'], properties: { id: 'string (uuid)', size: 'integer (int32)' } });
    expect(findingEvidence(f!).at).toBe('(root)');
  });
});

describe('failureGroups', () => {
  test('groups blocking findings and errored cases by reason, the tool errors last; warnings and waived left out', () => {
    const groups = failureGroups(fixtureRun());
    expect(groups.map((g) => [g.reason, g.rows.map((r) => `${r.operationId} › ${r.caseName}`)])).toEqual([
      ['operation-present', ['delete-address-type › presence']],
      ['pact', ['create-address-type › mobile-app › create an address type']],
      ['response-schema-conformance', ['get-address-type-field-list › positive']],
      ['errored', ['customer-get-cache-key-list › positive']],
    ]);
  });

  test('under --fail-on warning the warning is a failure too', () => {
    const run = summarise({ ...rawRun(), failOn: 'warning' });
    expect(failureGroups(run).map((g) => g.reason)).toContain('auth-enforced');
  });
});

describe('console', () => {
  test('the first failure of an operation is followed by its evidence line', () => {
    const text = renderSummary(fixtureRun(), {}, { color: false });
    expect(text).toContain(
      '           positive: response-schema-conformance: The 200 response body does not match the declared schema.\n           at /0/isMandatory expected {"type":"boolean"} got "yes"',
    );
  });

  test('a pact run without operations speaks of interactions, what failed first, with the pact file', () => {
    const text = renderSummary(summarise({ ...rawRun([]), expiredWaivers: [] }), { html: 'reports/index.html' }, { color: false });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^NOT CONFORMANT {2}1 of 3 interactions verified · pact verify · /);
    expect(lines[1]).toBe('Interactions: 1 passed · 1 failed · 0 errored · 1 skipped');
    expect(text).not.toMatch(/Operations|Coverage/);
    expect(lines[3]).toMatch(/^ {2}failed {3}mobile-app › /);
    expect(text).toContain('           pact: pacts/mobile-app-customer-service.json');
    expect(text).toContain('  index.html   reports/index.html');
  });
});

describe('reproductionScript', () => {
  const token = { authorization: 'Bearer $CONFORMANCE_TOKEN', accept: 'application/json' };
  const A = '11111111-1111-4111-8111-111111111111';
  const B = '22222222-2222-4222-8222-222222222222';
  const base = 'http://127.0.0.1:9/svc';
  const chain: ChainStep[] = [
    {
      request: { method: 'POST', url: `${base}/parents`, headers: { ...token, 'content-type': 'application/json' }, body: `{"name":"it's"}` },
      response: { status: 201, json: { total: 1, data: [{ id: A }] } },
      undo: { method: 'DELETE', url: `${base}/parents/${A}` },
    },
    {
      request: { method: 'POST', url: `${base}/parents/${A}/children`, headers: { ...token, 'content-type': 'application/json' }, body: JSON.stringify({ parentId: A, n: 1 }) },
      response: { status: 200, json: [{ id: B, parentId: A }] },
      undo: { method: 'DELETE', url: `${base}/parents/${A}/children/${B}` },
    },
    { request: { method: 'GET', url: `${base}/parents/${A}/children/${B}?expand=${A}`, headers: token }, response: { status: 500, json: { error: { code: 'ERROR' } } } },
  ];

  test('one call that created nothing needs no script (its curl line does)', () => {
    expect(reproductionScript([chain[2]!])).toBeUndefined();
    expect(reproductionScript([])).toBeUndefined();
  });

  test('a failing create: the script shows its answer whatever it holds, and deletes the record only when it has an id', () => {
    const script = reproductionScript([chain[0]!]) ?? '';
    expect(script).toContain("V1=$(json_get '/data/0/id' < \"$work/1.json\" 2>/dev/null) || V1=''");
    expect(script).not.toContain("no value at /data/0/id");
    expect(script).toContain('case "$status" in 2??) [ -n "$V1" ] && created+=(');
    expect(script).toContain('cat "$work/1.json"; echo');
  });

  test('ids the chain reuses are captured from the answers that created them, wherever they are sent', () => {
    const script = reproductionScript(chain, { title: 'get-child › positive', finding: 'not-a-server-error: 500' }) ?? '';
    expect(script).toContain("V1=$(json_get '/data/0/id' < \"$work/1.json\" 2>/dev/null) || V1=''");
    expect(script).toContain("V2=$(json_get '/0/id' < \"$work/2.json\" 2>/dev/null) || V2=''");
    expect(script).toContain(`call 2 -X POST '${base}/parents/'"\${V1}"'/children'`);
    expect(script).toContain(`--data-raw '{"parentId":"'"\${V1}"'","n":1}'`);
    expect(script).toContain(`call 3 '${base}/parents/'"\${V1}"'/children/'"\${V2}"'?expand='"\${V1}"`);
    expect(script).not.toContain(A);
    expect(script).not.toContain(B);
    // A single quote in a body is quoted for the shell.
    expect(script).toContain(`--data-raw '{"name":"it'\\''s"}'`);
    // Clean-up, newest first, runs on exit; the token comes from the environment.
    expect(script).toContain('trap cleanup EXIT');
    expect(script).toContain('"authorization: Bearer ${CONFORMANCE_TOKEN}"');
    expect(script).toContain(`# The run found: not-a-server-error: 500`);
    expect(script).toContain(`if [ "$status" = '500' ]`);
  });
});
