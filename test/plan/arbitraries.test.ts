/**
 * JSON Schema -> fast-check arbitraries (plan/arbitraries.ts): every drawn value is valid against the schema it
 * came from (checked with ajv and ajv-formats), for each construct the request generation honours; drawing is
 * deterministic for a seed and never throws, whatever the pattern.
 */
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import type { JsonSchema, Operation } from '../../src/runner/model.ts';
import { bigintText, describeRequest, requestArbitrary, schemaArbitrary } from '../../src/runner/plan/arbitraries.ts';
import { hasInputs } from '../../src/runner/plan/fuzz-inputs.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { openapi30ToJsonSchema } from '../../src/runner/description/json-schema.ts';
import { FUZZ_CASE, planOperation, type PlanOptions } from '../../src/runner/plan/cases.ts';
import { loadExamples } from '../../src/runner/description/examples.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { ROOT } from '../support/runs.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const random = () => new Random('arbitraries');

function draw(schema: JsonSchema, n = 200, options: Parameters<typeof schemaArbitrary>[1] = { random: random() }): unknown[] {
  const arb = schemaArbitrary(schema, options);
  if (!arb) throw new Error('no arbitrary');
  return fc.sample(arb, { seed: 42, numRuns: n });
}

const node: Record<string, unknown> = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } };
(node['properties'] as Record<string, unknown>)['children'] = { type: 'array', items: node };
(node['properties'] as Record<string, unknown>)['parent'] = node;

const TABLE: Array<[string, JsonSchema]> = [
  ['integer with exclusive bounds (3.1 numbers)', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 }],
  ['integer with exclusive bounds (3.0 booleans)', openapi30ToJsonSchema({ type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true })],
  ['number with exclusive bounds (3.0 booleans)', openapi30ToJsonSchema({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true })],
  ['number with exclusive bounds (3.1)', { type: 'number', exclusiveMinimum: -1.5, exclusiveMaximum: 2.5 }],
  ['unbounded number (huge and negative values, no infinity)', { type: 'number' }],
  ['int32', { type: 'integer', format: 'int32' }],
  ['int64 (safe in a JSON body)', { type: 'integer', format: 'int64' }],
  ['integer multipleOf', { type: 'integer', multipleOf: 7, minimum: -100, maximum: 100 }],
  ['number multipleOf 0.5', { type: 'number', multipleOf: 0.5, minimum: 0, maximum: 10 }],
  ['number multipleOf 0.01 (money)', { type: 'number', multipleOf: 0.01, minimum: 0 }],
  ['string lengths', { type: 'string', minLength: 2, maxLength: 5 }],
  ['enum', { type: 'string', enum: ['a', 'b', 'c'] }],
  ['const', { const: 'fixed' }],
  ['nullable (3.0)', openapi30ToJsonSchema({ type: 'string', nullable: true, maxLength: 3 })],
  ['type array', { type: ['integer', 'string', 'null'], maxLength: 4, minimum: 0 }],
  ['formats', { type: 'object', required: ['u', 'dt', 'd', 'e', 'uri', 'h', 'v4', 'v6', 'b'], additionalProperties: false, properties: { u: { type: 'string', format: 'uuid' }, dt: { type: 'string', format: 'date-time' }, d: { type: 'string', format: 'date' }, e: { type: 'string', format: 'email' }, uri: { type: 'string', format: 'uri' }, h: { type: 'string', format: 'hostname' }, v4: { type: 'string', format: 'ipv4' }, v6: { type: 'string', format: 'ipv6' }, b: { type: 'string', format: 'byte' } } }],
  ['pattern', { type: 'string', pattern: '^[A-Z]{2}-\\d{3,5}$' }],
  ['unicode pattern', { type: 'string', pattern: '^\\p{Lu}\\p{Ll}+$' }],
  ['pattern with lookahead (fallback)', { type: 'string', pattern: '^(?=.*\\d)[a-z0-9]{4,8}$' }],
  ['pattern and lengths', { type: 'string', pattern: '^[a-z]+$', minLength: 3, maxLength: 6 }],
  ['array bounds and uniqueness', { type: 'array', items: { type: 'integer', minimum: 0, maximum: 50 }, minItems: 1, maxItems: 4, uniqueItems: true }],
  ['object: required, optional, no additional properties', { type: 'object', required: ['a'], additionalProperties: false, properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'boolean' } } }],
  ['allOf', { allOf: [{ type: 'object', required: ['a'], properties: { a: { type: 'integer', minimum: 5 } } }, { type: 'object', required: ['b'], properties: { a: { maximum: 9 }, b: { type: 'string' } } }] }],
  ['oneOf with a discriminator', { oneOf: [{ title: 'Cat', type: 'object', required: ['kind', 'meows'], properties: { kind: { type: 'string', enum: ['cat'] }, meows: { type: 'boolean' } } }, { title: 'Dog', type: 'object', required: ['kind', 'barks'], properties: { kind: { type: 'string', enum: ['dog'] }, barks: { type: 'integer', minimum: 0 } } }], discriminator: { propertyName: 'kind' } }],
  ['anyOf with null', { anyOf: [{ type: 'integer', maximum: 0 }, { type: 'null' }] }],
];

describe('every drawn value is valid against its schema', () => {
  test.each(TABLE)('%s', (_name, schema) => {
    const validate = ajv.compile(schema as object);
    for (const value of draw(schema)) {
      const ok = validate(JSON.parse(JSON.stringify(value)));
      expect(ok, `${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  test('a recursive schema (a cyclic object graph) ends at the depth bound', () => {
    const values = draw(node, 100);
    const depth = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
    expect(Math.max(...values.map(depth))).toBeLessThanOrEqual(8);
    const validate = ajv.compile({ $defs: { node: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, children: { type: 'array', items: { $ref: '#/$defs/node' } }, parent: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' });
    for (const v of values) expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
  });

  test('readOnly properties are left out of requests; optional ones are sometimes absent', () => {
    const values = draw({ type: 'object', required: ['id', 'name'], properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' }, note: { type: 'string' } } }) as Array<Record<string, unknown>>;
    expect(values.some((v) => 'id' in v)).toBe(false);
    expect(values.every((v) => typeof v['name'] === 'string')).toBe(true);
    expect(values.some((v) => 'note' in v)).toBe(true);
    expect(values.some((v) => !('note' in v))).toBe(true);
  });

  test('strings reach beyond ASCII, numbers reach huge and negative values', () => {
    expect(draw({ type: 'string' }).some((s) => /[^\x00-\x7f]/.test(s as string))).toBe(true);
    const numbers = draw({ type: 'number' }, 300) as number[];
    expect(numbers.some((n) => n > 1e100)).toBe(true);
    expect(numbers.some((n) => n < 0)).toBe(true);
  });
});

describe('values sent as text', () => {
  test('header values are printable ASCII without surrounding space', () => {
    for (const v of draw({ type: 'string' }, 300, { random: random(), text: 'header' })) expect(v).toMatch(/^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/);
  });

  test('path values are non-empty segments, never "." or ".." or holding a slash', () => {
    for (const v of draw({ type: 'string' }, 300, { random: random(), text: 'segment' })) {
      expect(v).not.toBe('');
      expect(['.', '..']).not.toContain(v);
      expect(v as string).not.toContain('/');
    }
  });

  test('int64 parameters cover the whole 64-bit range as exact digits', () => {
    const values = draw({ type: 'integer', format: 'int64' }, 300, { random: random(), int64Digits: true }) as bigint[];
    expect(values.every((v) => typeof v === 'bigint' && v >= -(2n ** 63n) && v <= 2n ** 63n - 1n)).toBe(true);
    expect(values.some((v) => v > 2n ** 53n || v < -(2n ** 53n))).toBe(true);
  });

  test('a Unicode property pattern draws letters every Unicode version knows (a repertoire of Unicode 2.0), all matching, still varied', () => {
    const schema = { type: 'string', minLength: 1, maxLength: 30, pattern: "^[\\p{L}]+([ '-][\\p{L}]+){0,2}$" };
    const values = draw(schema, 300) as string[];
    const pattern = new RegExp(schema.pattern, 'u');
    for (const v of values) {
      expect(v).toMatch(pattern);
      expect(v).toMatch(/^[\u0000-\u07FF\u3040-\u30FF\u4E00-\u9FA5\uAC00-\uD7A3]*$/u);
    }
    expect(values.some((v) => /[^\x00-\x7f]/.test(v))).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(100);
    // Without a property escape, characters beyond the BMP that the pattern names are drawn as they are.
    const emoji = draw({ type: 'string', minLength: 1, pattern: '^[\\u{1F600}-\\u{1F64F}]+$' }, 50) as string[];
    expect(emoji.every((v) => /^[\u{1F600}-\u{1F64F}]+$/u.test(v))).toBe(true);
  });

  test('a pattern nothing can draw gives no arbitrary (the caller falls back), never an exception', () => {
    expect(schemaArbitrary({ type: 'string', pattern: '(' }, { random: random() })).toBeUndefined();
    expect(schemaArbitrary({ type: 'string', pattern: '(' }, { random: random() }, 'kept')).toBeDefined();
    expect(fc.sample(schemaArbitrary({ type: 'string', pattern: '(' }, { random: random() }, 'kept')!, 3)).toEqual(['kept', 'kept', 'kept']);
  });

  test('a property whose type is not shown keeps the positive value; one that takes any value gets a string', () => {
    const schema = { type: 'object', required: ['meta', 'n'], properties: { meta: { 'x-type': 'not shown' }, n: { type: 'integer' } } };
    // Without a value to keep, the object cannot be built without inventing a type for "meta".
    expect(schemaArbitrary(schema, { random: random() })).toBeUndefined();
    const any = fc.sample(schemaArbitrary({ ...schema, properties: { ...schema.properties, meta: {} } }, { random: random() })!, { seed: 1, numRuns: 5 }) as Array<Record<string, unknown>>;
    expect(any.every((v) => typeof v['meta'] === 'string')).toBe(true);
    const values = fc.sample(schemaArbitrary(schema, { random: random() }, { meta: { any: 'thing' }, n: 1 })!, { seed: 1, numRuns: 50 }) as Array<Record<string, unknown>>;
    expect(values.every((v) => JSON.stringify(v['meta']) === '{"any":"thing"}' && Number.isInteger(v['n']))).toBe(true);
  });
});

const OP: Operation = {
  operationId: 'find',
  method: 'GET',
  path: '/things/{id}',
  service: 'svc',
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'string' }, pointer: '' },
    { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 100 }, pointer: '' },
    { name: 'q', in: 'query', required: false, schema: { type: 'string' }, pointer: '' },
    { name: 'X-Trace', in: 'header', required: false, schema: { type: 'string' }, pointer: '' },
    { name: 'Authorization', in: 'header', required: true, schema: { type: 'string' }, pointer: '' },
  ],
  responses: [],
} as unknown as Operation;

describe('requests', () => {
  test('required parameters always, optional ones sometimes; path ids kept unless drawn; same seed, same requests', () => {
    const arb = requestArbitrary(OP, { pathParams: { id: 'record-1' }, query: { limit: 5 } }, random());
    const a = fc.sample(arb, { seed: 7, numRuns: 100 });
    const b = fc.sample(requestArbitrary(OP, { pathParams: { id: 'record-1' }, query: { limit: 5 } }, random()), { seed: 7, numRuns: 100 });
    expect(JSON.stringify(a, bigintText)).toBe(JSON.stringify(b, bigintText));
    expect(a.every((r) => r.pathParams['id'] === 'record-1')).toBe(true);
    expect(a.every((r) => typeof r.query['limit'] === 'number' && (r.query['limit'] as number) >= 1 && (r.query['limit'] as number) <= 100)).toBe(true);
    expect(a.some((r) => 'q' in r.query) && a.some((r) => !('q' in r.query))).toBe(true);
    expect(a.some((r) => 'X-Trace' in r.headers)).toBe(true);
    expect(a.some((r) => 'Authorization' in r.headers)).toBe(false);
    const drawn = fc.sample(requestArbitrary(OP, { pathParams: { id: 'record-1' }, query: { limit: 5 } }, random(), new Set(['id'])), { seed: 7, numRuns: 100 });
    expect(drawn.some((r) => r.pathParams['id'] !== 'record-1')).toBe(true);
    expect(describeRequest(a[0]!, { pathParams: { id: 'record-1' }, query: {} })).toMatch(/query\.limit = /);
  });

  test('no empty value in the query, a header or a cookie unless allowEmptyValue (a server may read it as left out)', () => {
    const param = (name: string, where: 'query' | 'header' | 'cookie', schema: JsonSchema, required = false, over = {}) => ({ name, in: where, required, schema, pointer: '', ...over });
    const op = {
      ...OP,
      path: '/things',
      parameters: [
        param('q', 'query', { type: 'string' }),
        param('term', 'query', { type: 'string' }, true),
        param('ids', 'query', { type: 'array', items: { type: 'string' } }, true),
        param('tags', 'query', { type: 'array', items: { type: 'string' } }),
        param('X-Note', 'header', { type: 'string' }),
        param('pref', 'cookie', { type: 'string' }),
        param('open', 'query', { type: 'string' }, false, { allowEmptyValue: true }),
        param('only', 'query', { type: 'string', enum: [''] }),
      ],
    } as unknown as Operation;
    const requests = fc.sample(requestArbitrary(op, { pathParams: {}, query: {} }, random()), { seed: 3, numRuns: 400 });
    const values = (name: string) => requests.flatMap((r) => (name in r.query ? [r.query[name]] : name in r.headers ? [r.headers[name]] : name in r.cookies ? [r.cookies[name]] : []));
    for (const name of ['q', 'term', 'X-Note', 'pref']) {
      expect(values(name).length, name).toBeGreaterThan(50);
      expect(values(name).includes(''), name).toBe(false);
    }
    // A required array is never empty (it would send nothing); an optional one may be (the same as left out).
    expect(values('ids').some((v) => Array.isArray(v) && (v.length === 0 || v.includes('')))).toBe(false);
    expect(values('tags').some((v) => Array.isArray(v) && v.includes(''))).toBe(false);
    // Where the contract allows it, or the schema has nothing else, the empty value is drawn.
    expect(values('open').includes('')).toBe(true);
    expect(values('only').every((v) => v === '')).toBe(true);
  });

  test('an operation with nothing to vary has no fuzzing phase', () => {
    expect(hasInputs({ ...OP, parameters: [OP.parameters[0]!] } as Operation)).toBe(false);
    expect(hasInputs(OP)).toBe(true);
  });
});

describe('the fuzzing case obeys the same rules as the coverage case', () => {
  test('--read-only, irreversible effects, records to create: each fuzzing case is skipped exactly when its coverage case is', async () => {
    const [contract, profile, examples] = await Promise.all([
      loadContract(['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'].map((f) => `${ROOT}${f}`)),
      loadProfile(`${ROOT}contract/profile.yaml`),
      loadExamples(`${ROOT}contract/examples.yaml`),
    ]);
    let compared = 0;
    for (const options of [{ readOnly: true, allowIrreversible: false }, { readOnly: false, allowIrreversible: false }, { readOnly: false, allowIrreversible: true }]) {
      const all: PlanOptions = { seed: 1, otpSource: true, ...options };
      for (const op of contract.operations) {
        const cases = planOperation(contract, op, profile, examples, all).cases;
        const coverage = cases.find((c) => c.name === 'coverage');
        const fuzzing = cases.find((c) => c.name === FUZZ_CASE);
        if (!fuzzing) continue;
        compared++;
        expect(fuzzing.fixture).toBe(coverage?.fixture);
        // Where the operation's valid calls may not be made, the coverage case sends what must be refused alone:
        // the fuzzing case (valid requests) does not run.
        const guarded = (options.readOnly && !['GET', 'HEAD', 'OPTIONS'].includes(op.method)) || (!options.allowIrreversible && profile.sideEffects.some((e) => e.operation === op.operationId && e.class === 'irreversible'));
        if (guarded) {
          expect(fuzzing.skip, `${op.operationId} ${JSON.stringify(options)}`).toMatch(options.readOnly ? /--read-only/ : /irreversible/);
          expect(coverage?.mustRefuseOnly === true || coverage?.skip !== undefined, op.operationId).toBe(true);
          continue;
        }
        expect(coverage?.mustRefuseOnly).toBeUndefined();
        expect(fuzzing.skip, `${op.operationId} ${JSON.stringify(options)}`).toBe(coverage?.skip);
      }
    }
    expect(compared).toBeGreaterThan(10);
    const readOnly = contract.operations.flatMap((op) => planOperation(contract, op, profile, examples, { seed: 1, otpSource: true, readOnly: true, allowIrreversible: false }).cases.map((c) => ({ c, op })));
    for (const { c, op } of readOnly) if (c.name === FUZZ_CASE && !['GET', 'HEAD', 'OPTIONS'].includes(op.method)) expect(c.skip).toMatch(/--read-only/);
    const irreversible = planOperation(contract, contract.operations.find((o) => o.operationId === 'create-user')!, profile, examples, { seed: 1, otpSource: true, readOnly: false, allowIrreversible: false });
    expect(irreversible.cases.find((c) => c.name === FUZZ_CASE)?.skip).toMatch(/irreversible/);
  });

  test('an operation whose valid calls may not be made gets a coverage case of what must be refused, gated as its negative cases', async () => {
    const [contract, profile, examples] = await Promise.all([
      loadContract(['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'].map((f) => `${ROOT}${f}`)),
      loadProfile(`${ROOT}contract/profile.yaml`),
      loadExamples(`${ROOT}contract/examples.yaml`),
    ]);
    const plan = (id: string, options: Partial<PlanOptions>) =>
      planOperation(contract, contract.operations.find((o) => o.operationId === id)!, profile, examples, { seed: 1, otpSource: false, readOnly: false, allowIrreversible: false, ...options }).cases;
    const coverage = (id: string, options: Partial<PlanOptions>) => plan(id, options).find((c) => c.name === 'coverage');
    // Irreversible, safe default: the positive case is skipped, the coverage case runs guarded, without the setup
    // steps (an OTP is sent by one) and without an OTP source.
    for (const id of ['create-user', 'send-forget-password-otp', 'verify-forget-password-otp', 'customer-refresh-cache', 'get-foreign-trade-reference-number']) {
      expect(plan(id, {}).find((c) => c.name === 'positive')?.skip, id).toMatch(/irreversible/);
      const c = coverage(id, {});
      expect(c?.skip, id).toBeUndefined();
      expect(c?.mustRefuseOnly, id).toBe(true);
      expect(c?.request.setup, id).toEqual([]);
      expect(JSON.stringify(c?.request.body ?? null), id).not.toMatch(/\{\{(?!unique\}\})/);
    }
    // With --allow-irreversible the coverage case is the full one.
    expect(coverage('create-user', { allowIrreversible: true })?.mustRefuseOnly).toBeUndefined();
    // --read-only: an unsafe method's coverage is guarded where its negative cases run (no record of the run needed),
    // skipped where they are (an irreversible effect, a record to create); a safe method's is the full one.
    expect(coverage('create-address-type', { readOnly: true })?.mustRefuseOnly).toBe(true);
    expect(coverage('create-user', { readOnly: true })?.skip).toMatch(/--read-only/);
    expect(coverage('update-address-type', { readOnly: true })?.skip).toMatch(/--read-only/);
    expect(coverage('get-address-type-field-list', { readOnly: true })?.mustRefuseOnly).toBeUndefined();
    expect(coverage('get-address-type-field-list', { readOnly: true })?.skip).toMatch(/needs records created by the run/);
    // A reversible create in the safe default is not guarded.
    expect(coverage('create-address-type', {})?.mustRefuseOnly).toBeUndefined();
  });
});
