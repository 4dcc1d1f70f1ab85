/**
 * Evidence a person can act on: the schema fragment behind a schema error, the failures grouped by reason,
 * the console's evidence line and pact summary, the reproduction script's text (its behaviour against a
 * deployment is proven in test/report/reproduction.test.ts), and which findings fold into "the same as in …".
 */
import { describe, expect, test } from 'vitest';
import { responseSchemaConformance } from '../../src/runner/checks/response-schema-conformance.ts';
import { schemaFragment } from '../../src/runner/checks/schema-fragment.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { Evidence, groupAcrossCases, judge as judgeExchange } from '../../src/runner/execute/judge.ts';
import type { CaseResult, Exchange, Finding, Operation } from '../../src/runner/model.ts';
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

  test('a short id the answer gives as a record\'s id (an integer 4, a string "7") is read from the answer too; a page number is not', () => {
    const steps: ChainStep[] = [
      {
        request: { method: 'POST', url: `${base}/categories`, headers: { ...token, 'content-type': 'application/json' }, body: '{"name":"c"}' },
        response: { status: 201, json: { id: 4, name: 'c', size: 4 } },
        undo: { method: 'DELETE', url: `${base}/categories/4` },
      },
      {
        request: { method: 'POST', url: `${base}/items`, headers: { ...token, 'content-type': 'application/json' }, body: '{"category":4,"categoryId":4,"count":4,"label":"4"}' },
        response: { status: 201, json: { id: '7', category: 4 } },
        undo: { method: 'DELETE', url: `${base}/items/7` },
      },
      { request: { method: 'PATCH', url: `${base}/categories/4/items/7?page=4`, headers: token }, response: { status: 500, json: {} } },
    ];
    const script = reproductionScript(steps) ?? '';
    expect(script).toContain("V1=$(json_get '/id' < \"$work/1.json\" 2>/dev/null) || V1=''");
    // Into the fields whose name says they name a record, unquoted as the integer it was; not into a count, a
    // label or a field whose name says nothing of records (`category` may be a record's id or its count).
    expect(script).toContain(`--data-raw '{"category":4,"categoryId":'"\${V1}"',"count":4,"label":"4"}'`);
    expect(script).toContain(`'${base}/categories/'"\${V1}"'/items/'"\${V2}"'?page=4'`);
    // Each create's clean-up deletes the record the script made, by the id read again.
    expect(script).toContain(`created+=('-X DELETE '\\''${base}/categories/'\\''"\${V1}" -H`);
    expect(script).toContain(`created+=('-X DELETE '\\''${base}/items/'\\''"\${V2}" -H`);
    expect(script).not.toMatch(/\/categories\/4\b/);
  });

  test("a create whose id cannot be read from its answer: the script does not delete the run's record (someone else's by now) and says so", () => {
    const steps: ChainStep[] = [
      {
        request: { method: 'POST', url: `${base}/categories`, headers: { ...token, 'content-type': 'application/json' }, body: '{"name":"c"}' },
        response: { status: 201, json: { name: 'c' } },
        undo: { method: 'DELETE', url: `${base}/categories/4` },
      },
      { request: { method: 'GET', url: `${base}/categories`, headers: token }, response: { status: 500, json: {} } },
    ];
    const script = reproductionScript(steps) ?? '';
    expect(script).not.toContain('created+=(');
    expect(script).toContain('note: what step 1 created is not deleted on exit: its id could not be read from the answer');
    // A PUT that creates the record it names deletes it by its own URL.
    const put: ChainStep[] = [{ request: { method: 'PUT', url: `${base}/things/ab`, headers: token, body: '{}' }, response: { status: 201, json: {} }, undo: { method: 'DELETE', url: `${base}/things/ab` } }];
    expect(reproductionScript(put)).toContain('created+=(');
  });
});

const generic = await loadProfile(GENERIC_PROFILE);

describe('groupAcrossCases: only the same finding folds, and a folded one speaks of its own evidence', () => {
  const person = { type: 'object', required: ['id', 'name', 'age'], properties: { id: { type: 'integer' }, name: { type: 'string' }, age: { type: 'integer' } } };
  const create = {
    operationId: 'createPerson',
    method: 'POST',
    path: '/people',
    group: '/people',
    service: 's',
    specFile: 'people.yaml',
    pointer: '/paths/~1people/post',
    parameters: [],
    responses: [
      { status: '201', contentTypes: ['application/json'], pointer: '/paths/~1people/post/responses/201', schema: person },
      { status: '400', contentTypes: [], pointer: '/paths/~1people/post/responses/400' },
    ],
    secured: false,
    extensions: {},
  } satisfies Operation;
  const validator = new SchemaValidator();

  /** One case of the create: each answer judged (response conformance), gathered as a case gathers them. */
  function kase(name: string, ...answers: Array<[number, unknown]>): CaseResult {
    const evidence = new Evidence();
    answers.forEach(([status, json], i) => {
      const body = JSON.stringify(json);
      const exchange: Exchange = {
        request: { method: 'POST', url: `http://127.0.0.1:9/people?case=${encodeURIComponent(name)}&i=${i}`, headers: { 'content-type': 'application/json' }, body: '{}' },
        response: { status, headers: { 'content-type': 'application/json' }, body, json, truncated: false, size: body.length },
        durationMs: 1,
      };
      evidence.add(exchange, judgeExchange({ operation: create, profile: generic, validator, exchange }));
    });
    return { name, kind: 'negative', outcome: evidence.outcome(), checks: evidence.checkResults(), findings: evidence.findings(), exchanges: evidence.evidence(), durationMs: 1 };
  }
  const of = (c: CaseResult | undefined, check: Finding['check']) => c?.findings.filter((f) => f.check === check) ?? [];

  const table: Array<[string, [number, unknown], [number, unknown], { folded: boolean; first: string; second: string }]> = [
    [
      'two 201 bodies that miss different required properties: two findings',
      [201, { id: 1, age: 3 }],
      [201, { id: 2, name: 'b' }],
      { folded: false, first: "Response 201 does not match the schema: (root) must have required property 'name'.", second: "Response 201 does not match the schema: (root) must have required property 'age'." },
    ],
    [
      'two 201 bodies that miss the same property: one finding, the later one folded into it',
      [201, { id: 1, age: 3 }],
      [201, { id: 2, age: 4 }],
      { folded: true, first: "Response 201 does not match the schema: (root) must have required property 'name'. (seen on 2 requests)", second: `the same as in "negative: A": Response 201 does not match the schema: (root) must have required property 'name'.` },
    ],
    [
      'the same first error with more besides: folded, in its own words',
      [201, { id: 1, age: 3 }],
      [201, { id: 2, age: 'x' }],
      { folded: true, first: "Response 201 does not match the schema: (root) must have required property 'name'. (seen on 2 requests)", second: `the same as in "negative: A": Response 201 does not match the schema: (root) must have required property 'name' (+1 more).` },
    ],
    [
      'the same property a body may not lack, on another instance: two findings',
      [201, { id: 1, age: 3, name: 'a' }],
      [201, { id: 'x', age: 3, name: 'a' }],
      { folded: false, first: '', second: 'Response 201 does not match the schema: /id must be integer.' },
    ],
  ];
  test.each(table)('%s', (_name, a, b, want) => {
    const [first, second] = groupAcrossCases([kase('negative: A', a), kase('negative: B', b)]);
    const one = of(first, 'response-schema-conformance');
    const two = of(second, 'response-schema-conformance');
    expect(two).toHaveLength(1);
    expect(two[0]!.message).toBe(want.second);
    if (want.folded) {
      expect(one[0]?.message).toBe(want.first);
      expect(one[0]?.count).toBe(2);
      expect(two[0]).toMatchObject({ sameAs: 'negative: A', request: { status: 201 } });
      expect(two[0]!.count).toBeUndefined();
    } else {
      expect(two[0]!.sameAs).toBeUndefined();
      expect(two[0]!.message).not.toContain('the same as in');
      if (want.first) expect(one[0]?.message).toBe(want.first);
      expect(one[0]?.count).toBeUndefined();
    }
  });

  test('a folded message states its own status: a server error on another status is another finding', () => {
    const [a, b, c] = groupAcrossCases([kase('negative: A', [500, {}]), kase('negative: B', [502, {}]), kase('negative: C', [500, {}])]);
    expect(of(a, 'not-a-server-error')[0]?.message).toBe('The deployment answered 500, a server error. (seen on 2 requests)');
    expect(of(b, 'not-a-server-error')[0]).toMatchObject({ message: 'The deployment answered 502, a server error.', request: { status: 502 } });
    expect(of(b, 'not-a-server-error')[0]?.sameAs).toBeUndefined();
    expect(of(c, 'not-a-server-error')[0]).toMatchObject({ message: 'the same as in "negative: A": The deployment answered 500, a server error.', sameAs: 'negative: A', request: { status: 500 } });
  });

  test('within one case too, bodies missing different properties are two findings, each with its own request', () => {
    const c = kase('coverage', [201, { id: 1, age: 3 }], [201, { id: 2, name: 'b' }], [201, { id: 3, age: 5 }]);
    const found = of(c, 'response-schema-conformance');
    expect(found.map((f) => [f.schemaErrors?.[0]?.missingProperty, f.count, f.request?.url.replace(/.*&/, '')])).toEqual([
      ['name', 2, 'i=0'],
      ['age', undefined, 'i=1'],
    ]);
  });
});
