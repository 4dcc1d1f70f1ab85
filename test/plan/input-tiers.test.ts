/**
 * The one table of what a service must refuse and what it may take (plan/input-tiers.ts): every input class the
 * coverage phase and the negative cases send is in exactly one tier, the values each class sends are of its
 * tier's kind, and the check judges them by it (a lenient acceptance is a warning, an error under strictInput).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { negativeDataRejected } from '../../src/runner/checks/negative-data-rejected.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import type { Profile } from '../../src/runner/description/profile.ts';
import type { JsonSchema, Operation, ParameterSpec } from '../../src/runner/model.ts';
import { coverageRequests } from '../../src/runner/plan/coverage-classes.ts';
import { INPUT_CLASSES, kindTier, mustReject, tierOf } from '../../src/runner/plan/input-tiers.ts';
import { planOperation } from '../../src/runner/plan/cases.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { coercibleValues, wrongKindValues } from '../../src/runner/plan/values.ts';

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [{ status: '200', contentTypes: [], pointer: '' }, { status: '400', contentTypes: [], pointer: '' }], secured: false, extensions: {}, ...over };
}
const param = (name: string, where: ParameterSpec['in'], schema: JsonSchema, required = false): ParameterSpec => ({ name, in: where, required: where === 'path' || required, schema, pointer: '' });

/** Operations with every kind of schema the classes vary: each class the generator has shows up in one of them. */
const BODY: JsonSchema = {
  type: 'object',
  required: ['name', 'count'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 8, pattern: '^[a-z]+$' },
    count: { type: 'integer', format: 'int32', minimum: 0, maximum: 100, multipleOf: 2 },
    price: { type: 'number', exclusiveMinimum: 0 },
    when: { type: 'string', format: 'date' },
    id: { type: 'string', format: 'uuid' },
    active: { type: 'boolean' },
    kind: { type: 'string', enum: ['a', 'b'] },
    note: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
    meta: { type: 'object', properties: { x: { type: 'integer' } } },
    big: { type: 'integer' },
    list: { type: 'array', items: { type: 'integer' } },
  },
  dependentRequired: { note: ['kind'] },
};
const OPERATIONS: Array<[Operation, Parameters<typeof coverageRequests>[1]]> = [
  [
    op({
      method: 'POST',
      path: '/things/{id}',
      parameters: [param('id', 'path', { type: 'integer', format: 'int64' }), param('page', 'query', { type: 'integer', minimum: 1 }), param('q', 'query', { type: 'string', minLength: 2 }), param('X-Trace', 'header', { type: 'string', format: 'uuid' }, true)],
      requestBody: { required: true, contentType: 'application/json', schema: BODY, pointer: '' },
    }),
    { pathParams: { id: '5' }, query: { page: 1 }, headers: { 'X-Trace': '0f8fad5b-d9cb-469f-a165-70867728950e' }, body: { name: 'abc', count: 2, price: 1.5, when: '2026-01-02', id: '0f8fad5b-d9cb-469f-a165-70867728950e', active: true, kind: 'a', note: 'n', tags: ['t'], meta: { x: 1 }, big: 3 } },
  ],
  [
    op({
      method: 'GET',
      path: '/things',
      parameters: [param('filter', 'query', { type: 'string' }), param('status', 'query', { type: 'string', enum: ['open', 'closed'] })],
      responses: [{ status: '200', contentTypes: ['application/json', 'application/xml'], pointer: '' }, { status: '400', contentTypes: ['application/problem+json'], pointer: '' }],
    }),
    { pathParams: {}, query: { status: 'open' } },
  ],
  [op({ method: 'PUT', path: '/raw', requestBody: { required: false, contentType: 'application/json', schema: { type: 'array', items: { type: 'integer' } }, pointer: '' } }), { pathParams: {}, query: {}, body: [1] }],
  [op({ method: 'PUT', path: '/untyped', requestBody: { required: true, contentType: 'application/json', schema: { properties: { a: { type: 'string' } } }, pointer: '' } }), { pathParams: {}, query: {}, body: { a: 'x' } }],
];

const ALL = OPERATIONS.flatMap(([operation, positive]) => coverageRequests(operation, positive, new Random('tiers'), 1000));

describe('every input class in exactly one tier', () => {
  test('the table, as the contract makes each class certain or not', () => {
    const by = (rule: string) => Object.entries(INPUT_CLASSES).filter(([, r]) => r === rule).map(([c]) => c).sort();
    expect(by('lenient')).toEqual(['coercible-type', 'empty-optional-query', 'format-respelling', 'integer-as-decimal', 'null', 'null-body', 'undeclared-media-type']);
    expect(by('response-only')).toEqual(['accept-undeclared', 'dot-segment', 'encoded-separator', 'identifier-like', 'invalid-percent-encoding', 'malformed-content-type', 'not-utf8']);
    expect(by('valid')).toEqual(['accept-declared', 'additional-property', 'all-at-bound', 'enum', 'no-match-filter', 'random']);
    // Everything else must be refused: what the contract makes certain.
    expect(by('must-reject')).toEqual(
      ['beyond-int64', 'bound', 'boolean', 'deep-nesting', 'empty-array', 'empty-body', 'empty-string', 'example-negative', 'invalid-format', 'malformed-json', 'missing-required', 'multiple-of', 'non-object-body', 'one-element-array', 'optional-left-out', 'optional-present', 'outside-enum', 'pattern', 'unicode', 'values-as-array', 'wrong-type', 'wrong-type-body'].sort(),
    );
  });

  test('every class the coverage phase sends is a row of the table, and each item is judged in its row', () => {
    const classes = new Set(ALL.map((i) => i.class));
    for (const c of classes) expect(Object.keys(INPUT_CLASSES), c).toContain(c);
    // The operations above exercise every class of the phase.
    const sent = new Set(classes);
    for (const c of Object.keys(INPUT_CLASSES).filter((k) => !['missing-required', 'example-negative', 'boolean', 'pattern'].includes(k))) expect(sent, c).toContain(c);
    for (const item of ALL) {
      const rule = INPUT_CLASSES[item.class as keyof typeof INPUT_CLASSES];
      if (rule === 'valid') expect(item.valid, item.label).toBe(true);
      if (rule === 'response-only') expect(item.judgeAs, item.label).toBe('response');
      if (item.judgeAs === 'response') continue;
      // An invalid item is judged in its class's tier; only a valid one is judged as a positive.
      if (!item.valid) expect(['must-reject', 'lenient'], item.label).toContain(tierOf(item.class));
    }
  });

  test('the negative cases of the examples phase carry their class, all of them must-reject', () => {
    const [operation] = OPERATIONS[0]!;
    const plan = planOperation({ services: [], operations: [operation] }, operation, GENERIC, { operations: {} } as never, { seed: 1, readOnly: false, allowIrreversible: true, otpSource: false });
    const negatives = plan.cases.filter((c) => c.kind === 'negative');
    expect(negatives.length).toBeGreaterThan(5);
    for (const c of negatives) {
      expect(c.inputClass, c.name).toBeDefined();
      expect(tierOf(c.inputClass), c.name).toBe('must-reject');
    }
    // A wrong type is a JSON kind no parser coerces: an array for a string, text for a number.
    const wrong = (field: string) => (negatives.find((c) => c.name === `negative: wrong type for body field ${field}`)?.request.body as Record<string, unknown>)[field];
    expect(wrong('name')).toEqual([expect.any(String)]);
    expect(wrong('count')).toEqual([expect.any(Number)]);
    expect(wrong('meta')).toEqual(['conformance']);
  });

  test('the profile schema lists exactly the lenient classes for strictInput', () => {
    const schema = JSON.parse(readFileSync(new URL('../../src/runner/schemas/profile.schema.json', import.meta.url), 'utf8')) as { properties: { strictInput: { oneOf: Array<{ items?: { enum: string[] } }> } } };
    const listed = schema.properties.strictInput.oneOf.find((o) => o.items)?.items?.enum;
    expect([...(listed ?? [])].sort()).toEqual(Object.entries(INPUT_CLASSES).filter(([, r]) => r === 'lenient').map(([c]) => c).sort());
  });
});

describe('the kind of a value sent where a type is declared', () => {
  test.each([
    // value, declared types, tier
    [['a@b.co'], ['string'], 'must-reject'],
    [{ a: 1 }, ['string'], 'must-reject'],
    ['not-a-number', ['number'], 'must-reject'],
    ['not-a-boolean', ['boolean'], 'must-reject'],
    [1.5, ['integer'], 'must-reject'],
    ['abc', ['array'], 'must-reject'],
    [[], ['object'], 'must-reject'],
    [3, ['object'], 'must-reject'],
    [{}, ['array'], 'must-reject'],
    [7, ['boolean'], 'must-reject'],
    [12345, ['string'], 'lenient'],
    [true, ['string'], 'lenient'],
    ['12', ['number'], 'lenient'],
    ['12', ['integer'], 'lenient'],
    [' 1.5e3 ', ['number'], 'lenient'],
    ['1.5', ['integer'], 'must-reject'],
    [true, ['number'], 'lenient'],
    [1, ['boolean'], 'lenient'],
    ['true', ['boolean'], 'lenient'],
    [null, ['string'], 'lenient'],
    [null, ['object'], 'lenient'],
    [5, ['number'], undefined],
    [null, ['string', 'null'], undefined],
    ['x', [], undefined],
  ] as const)('%j where %j is declared: %s', (value, types, tier) => {
    expect(kindTier(value, types)).toBe(tier);
  });

  test('the wrong kinds are must-reject, the coerced ones lenient, one value of each JSON kind', () => {
    expect(wrongKindValues({ type: 'string', format: 'email' }, 'a@b.co')).toEqual([['a@b.co'], { conformance: 'a@b.co' }, 12345].filter((v) => kindTier(v, ['string']) === 'must-reject'));
    expect(wrongKindValues({ type: 'integer' }, 4)).toEqual([[4], { conformance: 4 }, 'not-a-number']);
    expect(wrongKindValues({ type: 'array' })).toEqual([{ conformance: 'conformance' }, 'conformance', 12345]);
    expect(coercibleValues({ type: 'string' })).toEqual([12345, true]);
    expect(coercibleValues({ type: 'number' }, 2.5)).toEqual([true, '2.5']);
    expect(coercibleValues({ type: 'boolean' })).toEqual([1, 'true']);
    expect(coercibleValues({ type: 'object' })).toEqual([]);
    expect(wrongKindValues({})).toEqual([]);
  });
});

const GENERIC = { statuses: [], errorEnvelope: { codePointer: '/error/code', appliesTo: [] }, auth: { header: 'Authorization', rejectStatuses: [401, 403], otherRejectionSeverity: 'warning' }, sideEffects: [], createShape: { shapes: [], page: { totalFormat: 'int64', dataRequired: true }, operations: [] }, missing: { gatewayStatuses: [404] } } as unknown as Profile;

describe('negative-data-rejected judges an accepted input by its tier', () => {
  const judge = (inputClass: string, status: number, profile: Partial<Profile> = {}) =>
    negativeDataRejected.run({
      exchange: { request: { method: 'POST', url: 'http://x/things', headers: {} }, response: { status, headers: {}, body: '{}', json: {}, truncated: false, size: 2 }, durationMs: 1 },
      operation: OPERATIONS[0]![0],
      profile: { ...GENERIC, ...profile },
      validator: new SchemaValidator(),
      expectation: 'rejected',
      inputClass,
      coverage: { label: 'body.note = null (not nullable)', sent: 1 },
    } as CheckContext);

  test.each([
    ['null', 200, {}, [{ severity: 'warning', lenient: true }]],
    ['undeclared-media-type', 201, {}, [{ severity: 'warning', lenient: true }]],
    ['null', 200, { strictInput: true }, [{ severity: 'error' }]],
    ['null', 200, { strictInput: ['null'] }, [{ severity: 'error' }]],
    ['coercible-type', 200, { strictInput: ['null'] }, [{ severity: 'warning', lenient: true }]],
    ['wrong-type', 200, {}, [{ severity: 'error' }]],
    ['missing-required', 200, { strictInput: false }, [{ severity: 'error' }]],
    ['null', 400, {}, []],
    ['wrong-type', 400, {}, []],
  ] as const)('%s answered %d under %j', (inputClass, status, profile, want) => {
    const found = judge(inputClass, status, profile as Partial<Profile>);
    expect(found.map((f) => ({ severity: f.severity, ...(f.lenient ? { lenient: true } : {}) }))).toEqual(want);
    for (const f of found) expect(f.inputClass).toBe(inputClass);
    if (found[0]?.lenient) expect(found[0].message).toMatch(/accepted leniently with \d+ \(body.note = null/);
  });

  test('a class no row names is held as must-reject', () => {
    expect(tierOf('something-new')).toBe('must-reject');
    expect(mustReject(undefined, undefined)).toBe(true);
  });
});
