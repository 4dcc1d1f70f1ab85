/**
 * Requests from the whole schema, the resource model and the coverage phase, as pure functions: table tests
 * over small schemas and operations. Every generated value is checked against its schema with ajv.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { routeUnknown } from '../../src/runner/checks/operation-present.ts';
import type { Contract, JsonSchema, Operation, RecordedResponse } from '../../src/runner/model.ts';
import { boundaryValues, shrinkSteps } from '../../src/runner/plan/coverage.ts';
import { coverageRequests } from '../../src/runner/plan/coverage-classes.ts';
import { encodeBody, parameterValues } from '../../src/runner/plan/parameters.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { createdId, producerFor, readerFor } from '../../src/runner/plan/resources.ts';
import { generate, narrowRepetitions, patternValue, UNKNOWN } from '../../src/runner/plan/values.ts';
import { openapi30ToJsonSchema } from '../../src/runner/description/json-schema.ts';
import type { Profile } from '../../src/runner/description/profile.ts';
import { authSchemesOf, linksOf } from '../../src/runner/description/request-shapes.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const valid = (schema: JsonSchema, value: unknown) => ajv.validate(schema as object, value);

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return {
    operationId: `${over.method} ${over.path}`,
    group: '/',
    service: 'svc',
    specFile: 'spec.json',
    pointer: '',
    parameters: [],
    responses: [],
    secured: false,
    extensions: {},
    ...over,
  };
}

describe('values from the schema', () => {
  const cases: Array<[string, JsonSchema]> = [
    ['3.0 exclusive bounds (boolean)', openapi30ToJsonSchema({ type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 2, exclusiveMaximum: true })],
    ['3.1 exclusive bounds (number)', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }],
    ['multipleOf within bounds', { type: 'integer', minimum: 7, maximum: 40, multipleOf: 5 }],
    ['unicode pattern', { type: 'string', pattern: '^\\p{Lu}{2}-\\d{3}$' }],
    ['pattern with length bounds', { type: 'string', pattern: '^[a-z]+$', minLength: 3, maxLength: 5 }],
    ['int64 format', { type: 'integer', format: 'int64' }],
    ['byte format', { type: 'string', format: 'byte' }],
    ['nullable object (3.0)', openapi30ToJsonSchema({ type: 'object', nullable: true, required: ['a'], properties: { a: { type: 'string' } } })],
    // LoopBack's filter fields: a title beside the oneOf says nothing of the value (no string for an object branch).
    ['oneOf with a sibling title', { title: 'Todo.Fields', oneOf: [{ type: 'object', properties: { id: { type: 'boolean' } }, additionalProperties: false }, { type: 'array', items: { type: 'string' } }] }],
    ['allOf with an annotations-only part', { allOf: [{ description: 'the fields' }, { type: 'array', items: { type: 'string', enum: ['id'] } }] }],
  ];
  test.each(cases)('%s: the value is valid', (_, schema) => {
    for (let seed = 1; seed <= 20; seed++) {
      const value = generate(schema, new Random(String(seed)));
      expect(value).not.toBe(UNKNOWN);
      expect(valid(schema, value), JSON.stringify(value)).toBe(true);
    }
  });

  test('readOnly properties are left out of requests, even required ones', () => {
    const schema = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } } };
    expect(generate(schema, new Random('1'))).toEqual({ name: expect.any(String) });
  });

  test('a discriminated oneOf builds a subtype with its discriminator value', () => {
    const cat = { title: 'Cat', type: 'object', required: ['petType', 'meow'], properties: { petType: { type: 'string' }, meow: { type: 'boolean' } } };
    const dog = { title: 'Dog', type: 'object', required: ['petType', 'bark'], properties: { petType: { type: 'string' }, bark: { type: 'boolean' } } };
    const schema = { oneOf: [cat, dog], discriminator: { propertyName: 'petType', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } } };
    expect(generate(schema, new Random('1'))).toEqual({ petType: 'cat', meow: true });
  });

  test('a recursive schema ends (bounded depth) and stays valid', () => {
    const node: Record<string, unknown> = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    (node['properties'] as Record<string, unknown>)['children'] = { type: 'array', items: node };
    (node['properties'] as Record<string, unknown>)['parent'] = node;
    const value = generate(node, new Random('1'));
    expect(JSON.stringify(value).length).toBeLessThan(10_000);
  });

  test('a pattern that does not compile or cannot be met gives no value, never an exception', () => {
    expect(patternValue('(unclosed', new Random('1'))).toBeUndefined();
    expect(patternValue('^a{10}$', new Random('1'), 0, 3)).toBeUndefined();
  });

  test('a huge repetition bound is drawn narrowed: the value matches the real pattern, and minLength is still met', () => {
    const random = new Random('1');
    for (let i = 0; i < 50; i++) {
      const value = patternValue('^.{0,262144}$', random);
      expect(value).toMatch(/^.{0,262144}$/u);
      expect(value!.length).toBeLessThanOrEqual(32);
    }
    expect(patternValue('^[a-z]{0,100000}$', new Random('2'), 40)!.length).toBeGreaterThanOrEqual(40);
    expect(narrowRepetitions('^a{2,9999}\\{1,99999}b{3,4}$', 32)).toBe('^a{2,32}\\{1,99999}b{3,4}$');
  });

  test('an open repetition reaches a least length past what random draws hit: a valid value, and the one just past a maxLength', () => {
    for (const seed of ['1', '2', '3']) {
      // A phone of 12 to 20 characters: a positive body can be built.
      const phone = patternValue('^\\+[0-9]+$', new Random(seed), 12, 20);
      expect(phone).toMatch(/^\+[0-9]+$/);
      expect(phone!.length).toBeGreaterThanOrEqual(12);
      expect(phone!.length).toBeLessThanOrEqual(20);
      // The length just past maxLength 20, still matching the pattern: only the bound is broken.
      expect(patternValue('^\\+[0-9]+$', new Random(seed), 21, 21)).toMatch(/^\+[0-9]{20}$/);
      // Two open repetitions and a fixed part.
      const code = patternValue('^[A-Z]{2}-[a-z]+\\.[0-9]*$', new Random(seed), 31, 31);
      expect(code).toMatch(/^[A-Z]{2}-[a-z]+\.[0-9]*$/);
      expect(code).toHaveLength(31);
    }
    // No open repetition: a least length the pattern cannot reach gives no value.
    expect(patternValue('^[0-9]{3}$', new Random('1'), 10, 20)).toBeUndefined();
  });
});

describe('parameters and bodies', () => {
  const operation = op({
    method: 'GET',
    path: '/things',
    parameters: [
      { name: 'page', in: 'query', required: true, schema: { type: 'integer', minimum: 1 }, pointer: '' },
      { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' }, pointer: '', example: 'acme' },
      { name: 'session', in: 'cookie', required: true, schema: { type: 'string', format: 'uuid' }, pointer: '' },
      { name: 'sort', in: 'query', required: false, schema: { type: 'string', enum: ['asc', 'desc'] }, pointer: '' },
    ],
  });

  test('required parameters are always sent, in every location; optional ones on a seeded toss', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const random = new Random(String(seed));
      expect(parameterValues(operation, 'query', random)).toHaveProperty('page');
      expect(parameterValues(operation, 'header', random)).toEqual({ 'X-Tenant': 'acme' });
      expect(parameterValues(operation, 'cookie', random)).toHaveProperty('session');
    }
    const tosses = Array.from({ length: 20 }, (_, i) => 'sort' in parameterValues(operation, 'query', new Random(`s${i}`)));
    expect(tosses).toContain(true);
    expect(tosses).toContain(false);
    expect(parameterValues(operation, 'query', new Random('1'), 'none')).not.toHaveProperty('sort');
  });

  test('form-urlencoded and multipart bodies (files as parts with a filename)', () => {
    expect(encodeBody({ a: 1, b: 'x y' }, 'application/x-www-form-urlencoded', {}, 'seed')).toEqual({
      body: 'a=1&b=x+y',
      contentType: 'application/x-www-form-urlencoded',
    });
    const multipart = encodeBody({ name: 'n', file: 'content' }, 'multipart/form-data', { type: 'object', properties: { file: { type: 'string', format: 'binary' } } }, 'seed');
    expect(multipart.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.body).toContain('Content-Disposition: form-data; name="file"; filename="file.txt"');
    expect(multipart.body).toContain('Content-Disposition: form-data; name="name"\r\n\r\nn\r\n');
  });

  test('security schemes from the description: bearer, basic, apiKey in header/query/cookie', () => {
    const api = {
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          basic: { type: 'http', scheme: 'basic' },
          header: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          query: { type: 'apiKey', in: 'query', name: 'api_key' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
          mtls: { type: 'mutualTLS' },
        },
      },
    };
    expect(authSchemesOf([{ basic: [] }], api)).toEqual([{ name: 'basic', kind: 'basic' }]);
    expect(authSchemesOf([{ mtls: [] }, { query: [] }], api)).toEqual([{ name: 'query', kind: 'apiKey', in: 'query', parameter: 'api_key' }]);
    expect(authSchemesOf([{ header: [], cookie: [] }], api).map((s) => s.name)).toEqual(['header', 'cookie']);
    expect(authSchemesOf([{}], api)).toEqual([]);
  });
});

describe('resources', () => {
  const create = op({ method: 'POST', path: '/heroes/', requestBody: { required: true, contentType: 'application/json', schema: {}, pointer: '' } });
  const read = op({ method: 'GET', path: '/heroes/{hero_id}' });
  const update = op({ method: 'PATCH', path: '/heroes/{hero_id}/' });
  const putItem = op({ method: 'PUT', path: '/files/{name}', requestBody: { required: true, contentType: 'application/json', schema: {}, pointer: '' } });
  const getItem = op({ method: 'GET', path: '/files/{name}' });
  const contract: Contract = { services: [], operations: [create, read, update, putItem, getItem] };

  test('POST /heroes/ produces {hero_id}; trailing slashes do not matter', () => {
    expect(producerFor(contract, read, 'hero_id')).toMatchObject({ producer: create, via: 'path' });
    expect(producerFor(contract, update, 'hero_id')).toMatchObject({ producer: create, via: 'path' });
    expect(readerFor(contract, update)).toBe(read);
  });

  test('PUT-to-create: the client names the record', () => {
    expect(producerFor(contract, getItem, 'name')).toMatchObject({ producer: putItem, via: 'put' });
  });

  test('OpenAPI links name the producer and where the id is', () => {
    const creator = op({ method: 'POST', path: '/orders', operationId: 'createOrder' });
    const reader = op({ method: 'GET', path: '/order-by-number/{number}', operationId: 'getOrder' });
    creator.links = linksOf({ '201': { links: { get: { operationId: 'getOrder', parameters: { 'path.number': '$response.body#/orderNumber' } } } } }, {});
    const found = producerFor({ services: [], operations: [creator, reader] }, reader, 'number');
    expect(found).toMatchObject({ producer: creator, via: 'link', pointer: '/orderNumber' });
    expect(createdId({ orderNumber: 42 }, 'number', found?.pointer)).toBe('42');
  });

  test.each([
    ['record with an integer id', { id: 7, name: 'x' }, 'hero_id', '7'],
    ['record with the parameter name', { hero_id: 'h-1' }, 'hero_id', 'h-1'],
    ['record with the camelCase name', { heroId: 'h-2' }, 'hero_id', 'h-2'],
    ['bare array', [{ id: 'a' }, { id: 'b' }], 'hero_id', 'a'],
    ['page', { total: 1, data: [{ id: 'p' }] }, 'hero_id', 'p'],
  ])('created ids: %s', (_, body, param, expected) => {
    expect(createdId(body, param)).toBe(expected);
  });
});

describe('presence: missing needs evidence the route is unknown', () => {
  const profile = { missing: { gatewayStatuses: [404, 405, 501] }, errorEnvelope: { codePointer: '/error/code' } } as unknown as Profile;
  const res = (status: number, body: string, headers: Record<string, string> = {}): RecordedResponse => ({
    status,
    headers,
    body,
    json: JSON.parse(body) as unknown,
    truncated: false,
    size: body.length,
  });
  const unknown = res(404, '{"detail":"Not Found"}');

  test.each([
    ['a record-not-found 404 unlike the unknown route', res(404, '{"message":"Item 5 not found"}'), unknown, false],
    ['a 404 answered exactly like the unknown route', res(404, '{"detail":"Not Found"}'), unknown, true],
    ['a 404 without a comparison (the profile rule alone)', res(404, '{"detail":"Not Found"}'), undefined, true],
    ['a 404 with the platform envelope', res(404, '{"error":{"code":"NOT_FOUND"}}'), unknown, false],
    ['a 405 whose Allow leaves the method out', res(405, '{"detail":"Method Not Allowed"}', { allow: 'GET' }), unknown, true],
  ])('%s', (_, probe, compare, missing) => {
    expect(routeUnknown(probe, 'POST', profile, compare)).toBe(missing);
  });
});

describe('coverage phase', () => {
  const schema = {
    type: 'object',
    required: ['amount', 'kind'],
    properties: {
      amount: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
      kind: { type: 'string', enum: ['a', 'b', 'c'] },
      note: { type: ['string', 'null'], maxLength: 5 },
      count: { type: 'integer', format: 'int32' },
      id: { type: 'integer', readOnly: true },
    },
  };
  const operation = op({
    method: 'POST',
    path: '/payments',
    requestBody: { required: true, contentType: 'application/json', schema, pointer: '' },
    parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 50 }, pointer: '' }],
  });
  const body = { amount: 10, kind: 'a', note: 'n', count: 3 };

  test('every coverage request is what its label claims, bounded by max and the same for the same seed', () => {
    const positive = { pathParams: {}, query: { limit: 5 }, body };
    const requests = coverageRequests(operation, positive, new Random('1:op:coverage'), 40);
    expect(requests.length).toBe(40);
    const limit = { type: 'integer', minimum: 1, maximum: 50 };
    for (const r of requests) {
      // Not JSON, no body, or integers JSON.parse cannot hold: accepts.test.ts judges those. An integer written
      // 2.0 is JSON Schema's integer sent as input a parser may refuse (plan/input-tiers.ts).
      if (['malformed-json', 'undeclared-media-type', 'empty-body', 'beyond-int64', 'integer-as-decimal'].includes(r.class)) continue;
      const sentBody = r.rawBody !== undefined ? JSON.parse(r.rawBody) : r.body !== undefined ? r.body : body;
      const sentLimit = r.query ? r.query['limit'] : 5;
      const ok = valid(schema, sentBody) && (sentLimit === undefined || valid(limit, sentLimit));
      expect(ok, r.label).toBe(r.valid);
    }
    expect(coverageRequests(operation, positive, new Random('1:op:coverage'), 40)).toEqual(requests);
    expect(coverageRequests(operation, positive, new Random('1:op:coverage'), 3)).toHaveLength(3);
    const labels = coverageRequests(operation, positive, new Random('1:op:coverage'), 200).filter((r) => r.valid).map((r) => r.label);
    for (const expected of ['body.kind = "b" (enum value)', 'body.kind = "c" (enum value)', 'body.note = null (nullable)', 'body.note left out (optional)', 'body.count = 2147483647 (int32 maximum)', 'body.amount = 100 (maximum 100)', 'query.limit = 50 (maximum 50)', 'query.limit left out (optional)']) {
      expect(labels).toContain(expected);
    }
    expect(labels.some((l) => l.startsWith('body.id'))).toBe(false);
  });

  test('boundary values honour exclusive bounds and reach huge and negative numbers where allowed', () => {
    const values = boundaryValues({ type: 'number' }, new Random('1'));
    expect(values).toEqual(expect.arrayContaining([0, -1, 1.7976931348623157e308, -1.7976931348623157e308]));
    const positive = boundaryValues({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, new Random('1')) as number[];
    expect(positive.every((v) => v > 0 && v < 1)).toBe(true);
    expect(boundaryValues({ type: 'string', minLength: 2, maxLength: 4 }, new Random('1'))).toEqual(expect.arrayContaining(['xx', 'xxxx']));
  });

  test('shrinking tries fewer fields first, then the plain values', () => {
    const failing = { label: 'x', body: { amount: 100, kind: 'c', note: 'n', count: 3 } };
    const steps = shrinkSteps(operation, failing, { body, query: {} });
    expect(steps[0]?.body).toEqual({ amount: 100, kind: 'c', count: 3 });
    expect(steps.some((s) => JSON.stringify(s.body) === JSON.stringify({ amount: 10, kind: 'c', note: 'n', count: 3 }))).toBe(true);
  });
});
