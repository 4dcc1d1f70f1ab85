/**
 * The coverage phase's input classes (plan/coverage-classes.ts) on small hand-written operations: which items
 * each class gives, the validity each claims (checked against the engine's validator where no BigInt is
 * involved), the order a small budget keeps, and determinism.
 */
import { parse as parseLossless } from 'lossless-json';
import { describe, expect, test } from 'vitest';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { JsonSchema, Operation, ParameterSpec } from '../../src/runner/model.ts';
import { coverageRequests, type CoverageRequest, type PositiveRequest } from '../../src/runner/plan/coverage-classes.ts';
import { tierOf } from '../../src/runner/plan/input-tiers.ts';
import { Random } from '../../src/runner/plan/random.ts';

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [], secured: false, extensions: {}, ...over };
}

function param(name: string, where: ParameterSpec['in'], schema: JsonSchema, required = where === 'path'): ParameterSpec {
  return { name, in: where, required, schema, pointer: '' };
}

function jsonBody(schema: JsonSchema, required = true) {
  return { requestBody: { required, contentType: 'application/json', schema, pointer: '' } };
}

const ALL = 400;
const run = (operation: Operation, positive: PositiveRequest, max = ALL, seed = '1') => coverageRequests(operation, positive, new Random(seed), max);
const byLabel = (items: CoverageRequest[], label: string) => items.find((i) => i.label === label);
const validator = new SchemaValidator();
const ajvValid = (schema: JsonSchema, value: unknown) => validator.validate(JSON.stringify(schema), schema, value).length === 0;

describe('integers beyond int64', () => {
  test('an integer query parameter without format or bounds: ±2^63 and ±2^64 are valid, sent as their digits', () => {
    const operation = op({ method: 'GET', path: '/items', parameters: [param('limit', 'query', { type: 'integer' })] });
    const items = run(operation, { pathParams: {}, query: { limit: 5 } }).filter((i) => i.class === 'beyond-int64');
    expect(items.map((i) => [i.query?.['limit'], i.valid])).toEqual([
      ['9223372036854775808', true],
      ['-9223372036854775809', true],
      ['18446744073709551616', true],
      ['-18446744073709551616', true],
    ]);
    expect(items[0]?.label).toBe('query.limit = 9223372036854775808 (beyond int64)');
  });

  test('a format or a bound makes them invalid: they are still sent, as negatives', () => {
    for (const schema of [{ type: 'integer', format: 'int64' }, { type: 'integer', format: 'int32' }, { type: 'integer', minimum: 0, maximum: 1000 }]) {
      const operation = op({ method: 'GET', path: '/items', parameters: [param('n', 'query', schema)] });
      const items = run(operation, { pathParams: {}, query: {} }).filter((i) => i.class === 'beyond-int64');
      expect(items, JSON.stringify(schema)).toHaveLength(4);
      expect(items.every((i) => !i.valid)).toBe(true);
    }
    // A maximum alone leaves the negative ones valid.
    const below = op({ method: 'GET', path: '/items', parameters: [param('n', 'query', { type: 'integer', maximum: 1000 })] });
    expect(run(below, { pathParams: {}, query: {} }).filter((i) => i.class === 'beyond-int64').map((i) => i.valid)).toEqual([false, true, false, true]);
  });

  test('a body holding one is sent raw, serialised losslessly, as the JSON media type', () => {
    const schema = { type: 'object', properties: { qty: { type: 'integer' }, name: { type: 'string' } } };
    const operation = op({ method: 'POST', path: '/items', ...jsonBody(schema) });
    const item = byLabel(run(operation, { pathParams: {}, query: {}, body: { qty: 1, name: 'n' } }), 'body.qty = 18446744073709551616 (beyond int64)');
    expect(item).toMatchObject({ valid: true, class: 'beyond-int64', contentType: 'application/json' });
    expect(item?.body).toBeUndefined();
    expect(item?.rawBody).toBe('{"qty":18446744073709551616,"name":"n"}');
    expect(String((parseLossless(item?.rawBody ?? '') as { qty: unknown }).qty)).toBe('18446744073709551616');
  });
});

describe('bounds', () => {
  test('int32 with minimum and maximum: each bound valid, each bound ±1 outside invalid', () => {
    const operation = op({ method: 'GET', path: '/items', parameters: [param('limit', 'query', { type: 'integer', format: 'int32', minimum: 1, maximum: 100 })] });
    const items = run(operation, { pathParams: {}, query: {} });
    const bound = (label: string) => byLabel(items, label)?.valid;
    expect(bound('query.limit = 1 (minimum 1)')).toBe(true);
    expect(bound('query.limit = 0 (below minimum 1)')).toBe(false);
    expect(bound('query.limit = 100 (maximum 100)')).toBe(true);
    expect(bound('query.limit = 101 (above maximum 100)')).toBe(false);
    // The declared bounds are the edges here, not the int32 limits.
    expect(items.some((i) => i.label.includes('int32'))).toBe(false);
  });

  test('int32 without bounds: its limits are the bounds', () => {
    const operation = op({ method: 'GET', path: '/items', parameters: [param('n', 'query', { type: 'integer', format: 'int32' })] });
    const items = run(operation, { pathParams: {}, query: {} });
    expect(byLabel(items, 'query.n = 2147483647 (int32 maximum)')?.valid).toBe(true);
    expect(byLabel(items, 'query.n = 2147483648 (beyond int32)')?.valid).toBe(false);
    expect(byLabel(items, 'query.n = -2147483648 (int32 minimum)')?.valid).toBe(true);
    expect(byLabel(items, 'query.n = -2147483649 (below int32)')?.valid).toBe(false);
  });

  test('exclusive bounds, lengths and item counts', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
        price: { type: 'number', minimum: 0 },
        code: { type: 'string', minLength: 2, maxLength: 4 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
      },
    };
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema) });
    const items = run(operation, { pathParams: {}, query: {}, body: { n: 5, price: 1, code: 'abc', tags: ['a'] } });
    const expected: Array<[string, boolean]> = [
      ['body.n = 1 (lowest above exclusiveMinimum 0)', true],
      ['body.n = 0 (not above exclusiveMinimum 0)', false],
      ['body.n = 9 (highest below exclusiveMaximum 10)', true],
      ['body.n = 10 (not below exclusiveMaximum 10)', false],
      ['body.price = 0 (minimum 0)', true],
      ['body.price = -1 (below minimum 0)', false],
      ['body.code = "xx" (minLength 2)', true],
      ['body.code = "x" (below minLength 2)', false],
      ['body.code = "xxxx" (maxLength 4)', true],
      ['body.code = "xxxxx" (above maxLength 4)', false],
    ];
    for (const [label, valid] of expected) expect(byLabel(items, label)?.valid, label).toBe(valid);
    const tags = items.filter((i) => i.label.startsWith('body.tags') && i.class === 'bound');
    expect(tags.map((i) => [((i.body as { tags: unknown[] }).tags).length, i.valid])).toEqual([
      [0, false],
      [3, false],
      [1, true],
      [2, true],
    ]);
  });
});

describe('types, nulls, strings, arrays and enums', () => {
  test('a wrong-type value for every non-string parameter; none for a string one', () => {
    const operation = op({
      method: 'GET',
      path: '/items/{id}/{slug}',
      parameters: [param('id', 'path', { type: 'integer' }), param('slug', 'path', { type: 'string' }), param('flag', 'query', { type: 'boolean' }), param('X-Count', 'header', { type: 'number' }), param('session', 'cookie', { type: 'integer' })],
    });
    const items = run(operation, { pathParams: { id: '1', slug: 's' }, query: {} }).filter((i) => i.class === 'wrong-type');
    expect(items.map((i) => i.label).sort()).toEqual([
      'cookie.session = "not-a-number" (not an integer)',
      'header.X-Count = "not-a-number" (not a number)',
      'path.id = "not-a-number" (not an integer)',
      'query.flag = "not-a-boolean" (not a boolean)',
    ]);
    expect(items.every((i) => !i.valid)).toBe(true);
    expect(items.find((i) => i.label.startsWith('path.id'))?.pathParams).toEqual({ id: 'not-a-number' });
  });

  test('a string the format rejects, for each format the engine knows', () => {
    const operation = op({
      method: 'GET',
      path: '/items/{id}',
      parameters: [param('id', 'path', { type: 'string', format: 'uuid' }), param('from', 'query', { type: 'string', format: 'date' }), param('at', 'query', { type: 'string', format: 'date-time' }), param('mail', 'query', { type: 'string', format: 'email' }), param('blob', 'query', { type: 'string', format: 'binary' })],
    });
    const items = run(operation, { pathParams: { id: '0f8fad5b-d9cb-469f-a165-70867728950e' }, query: {} }).filter((i) => i.class === 'invalid-format');
    expect(items.map((i) => [i.label, i.valid]).sort()).toEqual([
      ['path.id = "0f8fad5b-d9cb-469f-a165-70867728950" (invalid uuid, close to a valid one)', false],
      ['path.id = "0f8fad5b-d9cb-469f-a165-70867728950e1" (invalid uuid, close to a valid one)', false],
      ['path.id = "0f8fad5b-d9cb-469f-a165-70867728950g" (invalid uuid, close to a valid one)', false],
      ['path.id = "not-a-uuid" (invalid uuid)', false],
      ['query.at = "2026-01-15" (invalid date-time, close to a valid one)', false],
      ['query.at = "2026-02-30T25:61:00Z" (invalid date-time)', false],
      ['query.from = "2020-01-01T00:00:00" (invalid date, close to a valid one)', false],
      ['query.from = "2020-01-01T00:00:00Z" (invalid date, close to a valid one)', false],
      ['query.from = "2026-02-30" (invalid date)', false],
      ['query.mail = "@example.com" (invalid email, close to a valid one)', false],
      ['query.mail = "conformance.example.com" (invalid email, close to a valid one)', false],
      ['query.mail = "conformance@" (invalid email, close to a valid one)', false],
      ['query.mail = "not-an-email" (invalid email)', false],
    ]);
    // Another spelling of the path's uuid, judged by the validator as every value is: one it refuses is input of
    // the lenient tier; upper-case is valid (RFC 9562 reads UUIDs case-insensitively), judged as any valid value;
    // the URN form, which ajv-formats takes beyond the format's definition, is judged for its answer only.
    const respelled = run(operation, { pathParams: { id: '0f8fad5b-d9cb-469f-a165-70867728950e' }, query: {} }).filter((i) => i.class === 'format-respelling');
    expect(respelled.map((i) => [i.pathParams?.['id'], i.valid, i.judgeAs ?? 'intent'])).toEqual([
      ['0f8fad5bd9cb469fa16570867728950e', false, 'intent'],
      ['{0f8fad5b-d9cb-469f-a165-70867728950e}', false, 'intent'],
      ['0F8FAD5B-D9CB-469F-A165-70867728950E', true, 'intent'],
      ['urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e', true, 'response'],
    ]);
  });

  describe('another spelling of a valid value is as valid as the contract\'s own validator says', () => {
    const UUID = { type: 'string', format: 'uuid' };
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    // Where the uuid is: a path parameter, a query parameter, a body field (judged with the whole body).
    const operations = [
      ['path', op({ method: 'GET', path: '/items/{id}', parameters: [param('id', 'path', UUID)] }), { pathParams: { id }, query: {} }, (i: CoverageRequest) => i.pathParams?.['id']],
      ['query', op({ method: 'GET', path: '/items', parameters: [param('ref', 'query', UUID)] }), { pathParams: {}, query: { ref: id } }, (i: CoverageRequest) => i.query?.['ref']],
      ['body', op({ method: 'POST', path: '/items', ...jsonBody({ type: 'object', required: ['ref'], properties: { ref: UUID } }) }), { pathParams: {}, query: {}, body: { ref: id } }, (i: CoverageRequest) => (i.body as { ref?: unknown } | undefined)?.ref],
    ] as const;
    test.each([
      ['upper-case', id.toUpperCase(), true],
      ['without hyphens', id.replace(/-/g, ''), false],
      ['in braces', `{${id}}`, false],
      ['as a URN', `urn:uuid:${id}`, true],
    ])('a uuid %s (%s): valid %s by the validator, and so is the item, in the path, the query and the body', (_name, spelling, validByAjv) => {
      // What the engine's validator (ajv with ajv-formats) says of the spelling.
      expect(ajvValid(UUID, spelling)).toBe(validByAjv);
      for (const [where, operation, positive, valueOf] of operations) {
        const items = run(operation, positive).filter((i) => valueOf(i) === spelling);
        expect(items.map((i) => i.class), where).toEqual(['format-respelling']);
        const item = items[0]!;
        expect(item.valid, where).toBe(validByAjv);
        // The lenient items are exactly the spellings the validator refuses: no valid value is judged as a negative.
        const lenient = !item.valid && item.judgeAs === undefined && tierOf(item.class) === 'lenient';
        expect(lenient, where).toBe(!validByAjv);
      }
    });
  });

  test('a nullable written anyOf [X, null] gets the classes of X; a date-time for a nullable date is refused', () => {
    const schema = { type: 'object', properties: { born: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] }, size: { anyOf: [{ type: 'integer', format: 'int32' }, { type: 'null' }] } } };
    const operation = op({ method: 'POST', path: '/people', ...jsonBody(schema) });
    const items = run(operation, { pathParams: {}, query: {}, body: { born: '2000-01-02', size: 3 } });
    const labels = items.map((i) => [i.label, i.valid]);
    expect(labels).toContainEqual(['body.born = "2020-01-01T00:00:00" (invalid date, close to a valid one)', false]);
    expect(labels).toContainEqual(['body.born = null (nullable)', true]);
    // The integer's bounds and beyond-int64 values, as for a plain int32.
    expect(labels).toContainEqual(['body.size = 2147483648 (beyond int32)', false]);
    expect(items.some((i) => i.class === 'beyond-int64' && i.label.startsWith('body.size'))).toBe(true);
    expect(items.some((i) => i.class === 'wrong-type' && i.label.startsWith('body.size'))).toBe(true);
  });

  test('null is valid where nullable and invalid where not', () => {
    const schema = { type: 'object', properties: { note: { type: ['string', 'null'] }, name: { type: 'string' }, any: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } };
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema) });
    const items = run(operation, { pathParams: {}, query: {}, body: { note: 'n', name: 'x', any: 1 } });
    expect(byLabel(items, 'body.note = null (nullable)')?.valid).toBe(true);
    expect(byLabel(items, 'body.name = null (not nullable)')?.valid).toBe(false);
    expect(byLabel(items, 'body.any = null (nullable)')?.valid).toBe(true);
  });

  test('each enum value is valid, a value outside it is not', () => {
    const operation = op({ method: 'GET', path: '/items', parameters: [param('status', 'query', { type: 'string', enum: ['open', 'closed'] })] });
    const items = run(operation, { pathParams: {}, query: { status: 'open' } });
    expect(items.filter((i) => i.class === 'enum').map((i) => [i.query?.['status'], i.valid])).toEqual([['closed', true]]); // "open" is the positive request
    expect(items.find((i) => i.class === 'outside-enum')).toMatchObject({ valid: false, query: { status: 'zz-not-in-enum' } });
    expect(items.some((i) => i.class === 'no-match-filter')).toBe(false);
  });

  test('empty and non-ASCII strings, empty arrays: as the schema judges them', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', minLength: 1 }, list: { type: 'array', items: { type: 'integer' } } } };
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema) });
    const items = run(operation, { pathParams: {}, query: {}, body: { a: 'x', b: 'y', list: [1] } });
    expect(byLabel(items, 'body.a = "" (empty string)')?.valid).toBe(true);
    // The same request as minLength's neighbour: sent once, under the label that says more.
    expect(byLabel(items, 'body.b = "" (below minLength 1)')?.valid).toBe(false);
    expect(byLabel(items, 'body.b = "" (empty string)')).toBeUndefined();
    expect(byLabel(items, 'body.a = "Ünïcødé ✓ 𝔘 中文" (non-ASCII)')?.valid).toBe(true);
    expect(byLabel(items, 'body.list = [] (empty array)')?.valid).toBe(true);
  });

  test('no empty string in a path (it changes the route), no non-ASCII header, no null or empty array in a URL', () => {
    const operation = op({
      method: 'GET',
      path: '/items/{slug}',
      parameters: [param('slug', 'path', { type: ['string', 'null'] }), param('X-Name', 'header', { type: 'string' }), param('ids', 'query', { type: 'array', items: { type: 'integer' } })],
    });
    const items = run(operation, { pathParams: { slug: 's' }, query: { ids: [1] } });
    expect(items.some((i) => i.pathParams?.['slug'] === '')).toBe(false);
    expect(items.some((i) => /[^\x20-\x7e]/.test(i.headers?.['X-Name'] ?? ''))).toBe(false);
    expect(items.some((i) => i.class === 'null' || i.class === 'empty-array')).toBe(false);
    expect(items.find((i) => i.class === 'wrong-type' && i.label.startsWith('query.ids'))).toMatchObject({ valid: false, query: { ids: ['not-a-number'] } });
  });

  test('an empty value in the query, a header or a cookie: a probe only where both readings (left out, "") are invalid', () => {
    const operation = op({
      method: 'GET',
      path: '/books',
      parameters: [
        param('genre', 'query', { type: 'string', enum: ['fiction', 'poetry'] }),
        param('name', 'query', { type: 'string', minLength: 1 }),
        param('q', 'query', { type: 'string' }),
        param('kind', 'query', { type: 'string', enum: ['a', 'b'] }, true),
        param('term', 'query', { type: 'string' }, true),
        param('X-Tenant', 'header', { type: 'string', minLength: 2 }),
        param('X-Region', 'header', { type: 'string', minLength: 2 }, true),
        param('session', 'cookie', { type: 'string', pattern: '^[a-z]+$' }),
      ],
    });
    const items = run(operation, { pathParams: {}, query: { kind: 'a', term: 't', genre: 'fiction' }, headers: { 'X-Region': 'eu' } });
    const empty = items.filter((i) => Object.values({ ...i.query, ...i.headers, ...i.cookies }).some((v) => v === ''));
    // Required ones whose schema refuses "" (kind, X-Region) go out empty as probes that must be refused; term's
    // "" is valid to its schema but may read as missing: not sent. Optional query parameters whose schema refuses
    // "" (genre, name) go out empty as lenient input (many binders read it as left out: accepting it is a warning);
    // q's "" is valid, and optional headers and cookies (X-Tenant, session) never go out empty.
    expect(empty.map((i) => [i.label, i.valid, i.class]).sort()).toEqual([
      ['header.X-Region = "" (empty string)', false, 'empty-string'],
      ['query.genre = "" (an empty value)', false, 'empty-optional-query'],
      ['query.kind = "" (empty string)', false, 'empty-string'],
      ['query.name = "" (an empty value)', false, 'empty-optional-query'],
    ]);
  });

  test('allowEmptyValue: an empty query value is the schema\'s to judge; a JSON query parameter sends "" as its text', () => {
    const operation = op({
      method: 'GET',
      path: '/books',
      parameters: [
        { ...param('q', 'query', { type: 'string' }), allowEmptyValue: true },
        { ...param('genre', 'query', { type: 'string', enum: ['fiction'] }), allowEmptyValue: true },
        { ...param('filter', 'query', { type: 'string' }), contentType: 'application/json' },
      ],
    });
    const items = run(operation, { pathParams: {}, query: {} });
    expect(byLabel(items, 'query.q = "" (empty string)')?.valid).toBe(true);
    expect(byLabel(items, 'query.genre = "" (empty string)')?.valid).toBe(false);
    expect(byLabel(items, 'query.filter = "" (empty string)')?.valid).toBe(true);
  });

  test('a GET with a string query parameter: a filter nothing matches, valid', () => {
    const operation = op({ method: 'GET', path: '/customers', parameters: [param('name', 'query', { type: 'string', maxLength: 40 }), param('id', 'query', { type: 'string', format: 'uuid' })] });
    const items = run(operation, { pathParams: {}, query: {} }).filter((i) => i.class === 'no-match-filter');
    expect(items).toHaveLength(2);
    expect(items.every((i) => i.valid)).toBe(true);
    expect(String(items.find((i) => i.label.startsWith('query.name'))?.query?.['name'])).toMatch(/^zz-nomatch-/);
    expect(String(items.find((i) => i.label.startsWith('query.id'))?.query?.['id'])).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    // Not for a write.
    expect(run({ ...operation, method: 'POST' }, { pathParams: {}, query: {} }).some((i) => i.class === 'no-match-filter')).toBe(false);
  });

  test('optional fields and parameters left out (valid) or added; required ones are not the coverage phase\'s', () => {
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, note: { type: 'string' }, extra: { type: 'integer' } } };
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema), parameters: [param('dry', 'query', { type: 'boolean' }, false), param('v', 'query', { type: 'integer' }, true)] });
    const items = run(operation, { pathParams: {}, query: { dry: true, v: 1 }, body: { name: 'n', note: 'x' } });
    expect(byLabel(items, 'body.note left out (optional)')).toMatchObject({ valid: true, body: { name: 'n' } });
    expect(byLabel(items, 'query.dry left out (optional)')).toMatchObject({ valid: true, query: { v: 1 } });
    expect(items.find((i) => i.class === 'optional-present')?.label).toMatch(/^body\.extra = -?\d+ \(optional, present\)$/);
    expect(items.some((i) => i.label.startsWith('body.name left out') || i.label.startsWith('query.v left out'))).toBe(false);
  });
});

describe('body-level classes', () => {
  const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  const positive = { pathParams: {}, query: {}, body: { name: 'n' } };

  test('malformed JSON, no body, a non-object and an undeclared media type come first, all invalid', () => {
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema) });
    const items = run(operation, positive, 4);
    expect(items.map((i) => i.class)).toEqual(['malformed-json', 'empty-body', 'non-object-body', 'undeclared-media-type']);
    expect(items.every((i) => !i.valid)).toBe(true);
    expect(items[0]).toMatchObject({ rawBody: '{"', contentType: 'application/json' });
    expect(items[1]).toMatchObject({ noBody: true, label: 'no body (the body is required)' });
    expect(items[2]).toMatchObject({ rawBody: '[]', contentType: 'application/json' });
    expect(items[3]).toMatchObject({ rawBody: '{"name":"n"}', contentType: 'text/plain' });
    const all = run(operation, positive);
    expect(all.filter((i) => i.class === 'non-object-body').map((i) => i.rawBody)).toEqual(['[]', '"conformance"', '1', 'true']);
    expect(all.filter((i) => i.class === 'non-object-body').every((i) => !i.valid && i.judgeAs === undefined)).toBe(true);
    expect(all.find((i) => i.class === 'null-body')).toMatchObject({ rawBody: 'null', valid: false });
  });

  test('a property the schema does not list, where it lets others through; none where additionalProperties is false', () => {
    const open = run(op({ method: 'POST', path: '/things', ...jsonBody(schema) }), positive).find((i) => i.class === 'additional-property');
    expect(open).toMatchObject({ valid: true, body: { name: 'n', conformanceExtra: 'conformance' } });
    expect(open?.label).toBe('body.conformanceExtra = "conformance" (not in the schema, which allows others)');
    // The first of the later body-level items: a small max still reaches it after one round over the fields.
    expect(run(op({ method: 'POST', path: '/things', ...jsonBody(schema) }), positive, 6).some((i) => i.class === 'additional-property')).toBe(true);
    const closed = { ...schema, additionalProperties: false };
    expect(run(op({ method: 'POST', path: '/things', ...jsonBody(closed) }), positive).some((i) => i.class === 'additional-property')).toBe(false);
    const typedExtra = { ...schema, additionalProperties: { type: 'integer' } };
    expect(run(op({ method: 'POST', path: '/things', ...jsonBody(typedExtra) }), positive).some((i) => i.class === 'additional-property')).toBe(false);
  });

  test('a body schema naming properties but no type: other JSON kinds are sent, and only their answers are judged', () => {
    const untyped = { required: ['name'], properties: { name: { type: 'string' } } };
    const all = run(op({ method: 'POST', path: '/things', ...jsonBody(untyped) }), positive);
    const kinds = all.filter((i) => i.class === 'non-object-body');
    expect(kinds.map((i) => i.rawBody)).toEqual(['[]', '"conformance"', '1', 'true']);
    for (const item of kinds) {
      expect(item).toMatchObject({ valid: true, judgeAs: 'response', contentType: 'application/json' });
      expect(item.label).toMatch(/; the body schema allows it\)$/);
    }
    // The first of them still comes among the body-level classes sent first.
    expect(run(op({ method: 'POST', path: '/things', ...jsonBody(untyped) }), positive, 4).map((i) => i.class)).toContain('non-object-body');
    // A schema that says "object" keeps them negatives (the test above); one whose type allows an array sends no `[]`.
    const arrays = run(op({ method: 'POST', path: '/things', ...jsonBody({ type: ['object', 'array'], properties: { name: { type: 'string' } } }) }), positive);
    const arrayItem = arrays.find((i) => i.rawBody === '[]');
    expect(arrayItem).toMatchObject({ valid: true, judgeAs: 'response' });
    expect(arrays.find((i) => i.rawBody === 'true')).toMatchObject({ valid: false });
  });

  test('no body is valid where the body is optional', () => {
    const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema, false) });
    expect(run(operation, positive).find((i) => i.class === 'empty-body')).toMatchObject({ valid: true, label: 'no body (the body is optional)' });
  });

  test('the media type sent is one no declared type covers, wildcards included', () => {
    const declare = (...types: string[]) => op({ method: 'POST', path: '/things', requestBody: { required: true, contentType: types[0] as string, schema, pointer: '' }, requestBodies: types.map((contentType) => ({ required: true, contentType, schema, pointer: '' })) });
    const mediaOf = (operation: Operation) => run(operation, positive).find((i) => i.class === 'undeclared-media-type')?.contentType;
    expect(mediaOf(declare('application/json', 'text/plain; charset=utf-8'))).toBe('application/xml');
    expect(mediaOf(declare('application/json', 'text/*', 'application/xml'))).toBe('application/x-www-form-urlencoded');
    expect(mediaOf(declare('application/json', '*/*'))).toBeUndefined();
  });

  test('an operation without a body has none of them', () => {
    const operation = op({ method: 'GET', path: '/things', parameters: [param('q', 'query', { type: 'string' })] });
    expect(run(operation, { pathParams: {}, query: {} }).some((i) => /body/.test(i.class) || i.class === 'malformed-json' || i.class === 'undeclared-media-type')).toBe(false);
  });
});

describe('validity is shown, never assumed', () => {
  const schema = {
    type: 'object',
    required: ['name', 'price'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 8, pattern: '^[a-z]+$' },
      price: { type: 'number', exclusiveMinimum: 0, maximum: 1000, multipleOf: 0.5 },
      kind: { enum: ['a', 'b', 1] },
      when: { type: 'string', format: 'date' },
      count: { type: 'integer', minimum: -5, maximum: 5, multipleOf: 2 },
      note: { type: ['string', 'null'], maxLength: 3 },
      tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, uniqueItems: true, maxItems: 2 },
    },
    dependentRequired: { note: ['kind'] },
    additionalProperties: false,
  };
  const operation = op({ method: 'POST', path: '/things', ...jsonBody(schema), parameters: [param('page', 'query', { type: 'integer', minimum: 1 }), param('sort', 'query', { type: 'string', pattern: '^[a-z]+:(asc|desc)$' })] });
  const positive = { pathParams: {}, query: { page: 1 }, body: { name: 'abc', price: 10, kind: 'a', when: '2026-01-02', count: 2, note: 'n', tags: ['x'] } };

  test('every JSON item\'s validity is what the engine\'s validator says of it', () => {
    const items = run(operation, positive);
    expect(items.length).toBeGreaterThan(40);
    for (const item of items) {
      if (item.body !== undefined) expect(ajvValid(schema, item.body), item.label).toBe(item.valid);
      // An integer written 2.0 is JSON Schema's integer, sent as input a parser may refuse (plan/input-tiers.ts).
      if (item.rawBody !== undefined && item.contentType === 'application/json' && !/\d{16}/.test(item.rawBody) && item.class !== 'malformed-json' && item.class !== 'integer-as-decimal') {
        expect(ajvValid(schema, JSON.parse(item.rawBody)), item.label).toBe(item.valid);
      }
      if (item.query && item.label.startsWith('query.page') && !item.label.includes('left out') && item.class !== 'beyond-int64') {
        const page = item.query['page'];
        expect(ajvValid({ type: 'integer', minimum: 1 }, typeof page === 'string' && /^-?\d+$/.test(page) ? Number(page) : page), item.label).toBe(item.valid);
      }
    }
    // dependentRequired: leaving out kind while note is there is invalid, not "optional".
    expect(byLabel(items, 'body.kind left out (optional, but another field needs it)')?.valid).toBe(false);
  });

  test('a value whose validity accepts() cannot decide is left out', () => {
    const open = { type: 'object', properties: { a: { type: 'integer', $ref: '#/unresolved' } } };
    const items = run(op({ method: 'POST', path: '/x', ...jsonBody(open) }), { pathParams: {}, query: {}, body: { a: 1 } }).filter((i) => i.label.startsWith('body.a = '));
    // Only what another keyword already rejects (the type) can be claimed; leaving it out is valid (not shown here).
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => !i.valid)).toBe(true);
  });

  test('a body holding a {{template}} claims no validity the rest of the body would have to vouch for', () => {
    const s = { type: 'object', required: ['owner'], properties: { owner: { type: 'string', format: 'uuid' }, n: { type: 'integer', maximum: 5 } } };
    const items = run(op({ method: 'POST', path: '/x', ...jsonBody(s) }), { pathParams: {}, query: {}, body: { owner: '{{customer./id}}', n: 1 } }).filter((i) => i.label.startsWith('body.n'));
    expect(items.some((i) => i.label === 'body.n = 6 (above maximum 5)' && !i.valid)).toBe(true);
    expect(items.every((i) => !i.valid)).toBe(true);
  });
});

describe('order, budget and determinism', () => {
  const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'boolean' }, d: { type: ['number', 'null'], minimum: 0 } } };
  const operation = op({
    method: 'PUT',
    path: '/things/{id}',
    ...jsonBody(schema),
    // q allows an empty value: its first class is the empty string, so no two of the first items share a class.
    parameters: [param('id', 'path', { type: 'integer', format: 'int64' }), { ...param('q', 'query', { type: 'string' }), allowEmptyValue: true }, param('X-Req', 'header', { type: 'integer' }), param('s', 'cookie', { type: 'string' })],
  });
  const positive = { pathParams: { id: '7' }, query: { q: 'x' }, headers: { 'X-Req': '1' }, cookies: { s: 'k' }, body: { a: 1, b: 'x', c: true, d: 2 } };

  test('the body-level classes first, then one item for every parameter and field before any gets a second', () => {
    const items = run(operation, positive, 12);
    expect(items.slice(0, 4).map((i) => i.class)).toEqual(['malformed-json', 'empty-body', 'non-object-body', 'undeclared-media-type']);
    const targets = items.slice(4).map((i) => i.label.split(/ = | left out/)[0]);
    expect(targets).toEqual(['path.id', 'query.q', 'header.X-Req', 'cookie.s', 'body.a', 'body.b', 'body.c', 'body.d']);
    // And each of them a class kind not sent before, where it has one.
    const kinds = items.map((i) => i.class);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  test('cut at max, no request twice, none the positive request itself', () => {
    expect(run(operation, positive, 0)).toEqual([]);
    expect(run(operation, positive, 7)).toHaveLength(7);
    const items = run(operation, positive);
    const key = (i: CoverageRequest) => JSON.stringify([i.pathParams, i.rawPathParams, i.query, i.headers, i.cookies, i.body, i.rawBody, i.contentType, i.noBody]);
    expect(new Set(items.map(key)).size).toBe(items.length);
    expect(items.some((i) => JSON.stringify(i.body) === JSON.stringify(positive.body) && !i.query && !i.pathParams && !i.headers && !i.cookies)).toBe(false);
    expect(items.every((i) => i.label.length <= 90)).toBe(true);
  });

  test('the same seed gives the same list; the classes come before random variations', () => {
    const first = run(operation, positive, 200, '42');
    expect(run(operation, positive, 200, '42')).toEqual(first);
    const classes = first.map((i) => i.class);
    const firstRandom = classes.indexOf('random');
    expect(firstRandom).toBeGreaterThan(0);
    expect(classes.slice(firstRandom).every((c) => c === 'random')).toBe(true);
    expect(first.filter((i) => i.class === 'random').every((i) => i.valid)).toBe(true);
  });
});

describe('names and numbers in a string, the items of a list', () => {
  const items = (schema: JsonSchema, where: ParameterSpec['in'] = 'query', method = 'GET') => {
    const path = where === 'path' ? '/things/{p}' : '/things';
    const operation = op({ method: method as Operation['method'], path, parameters: [param('p', where, schema)] });
    return run(operation, where === 'path' ? { pathParams: { p: 'conf-1' }, query: {} } : { pathParams: {}, query: {} });
  };

  test('a string nothing constrains, in the query or the path: a plain word, "0" and a number beyond int64, its answer judged only', () => {
    for (const where of ['query', 'path'] as const) {
      const probes = items({ type: 'string' }, where).filter((i) => i.class === 'identifier-like');
      const values = probes.map((i) => (where === 'path' ? i.pathParams?.['p'] : i.query?.['p']));
      expect(values, where).toHaveLength(3);
      expect(values[0]).toMatch(/^[a-z]{6}$/);
      expect(values.slice(1)).toEqual(['0', '-92233720368547758090']);
      expect(probes.every((i) => i.judgeAs === 'response' && i.valid)).toBe(true);
    }
  });

  test('not where a format, a pattern, an enum or a length refuses them, nor in a header or a body', () => {
    for (const schema of [{ type: 'string', format: 'uuid' }, { type: 'string', pattern: '^[A-Z]{2}$' }, { type: 'string', enum: ['a', 'b'] }]) {
      expect(items(schema).filter((i) => i.class === 'identifier-like'), JSON.stringify(schema)).toEqual([]);
    }
    // minLength 2 leaves out "0"; maxLength 6 the long number.
    expect(items({ type: 'string', minLength: 2, maxLength: 6 }).filter((i) => i.class === 'identifier-like').map((i) => i.query?.['p'])).toHaveLength(1);
    expect(items({ type: 'string' }, 'header').filter((i) => i.class === 'identifier-like')).toEqual([]);
    const body = op({ method: 'POST', path: '/things', ...jsonBody({ type: 'object', properties: { name: { type: 'string' } } }) });
    expect(run(body, { pathParams: {}, query: {}, body: { name: 'n' } }).filter((i) => i.class === 'identifier-like')).toEqual([]);
  });

  test('a list in the URL: its string items get the probes and its integer items a value beyond int64, as lists of one', () => {
    const strings = items({ type: 'array', items: { type: 'string' } }).filter((i) => i.class === 'identifier-like');
    expect(strings.map((i) => i.query?.['p'])).toEqual([[expect.stringMatching(/^[a-z]{6}$/)], ['0'], ['-92233720368547758090']]);
    const integers = items({ type: 'array', items: { type: 'integer' } }).filter((i) => i.class === 'beyond-int64');
    expect(integers.map((i) => [i.label, i.valid])).toEqual([
      ['query.p = [9223372036854775808] (an item beyond int64)', true],
      ['query.p = [-9223372036854775809] (an item below int64)', true],
    ]);
    // An int64 item makes them invalid: still sent, as negatives.
    expect(items({ type: 'array', items: { type: 'integer', format: 'int64' } }).filter((i) => i.class === 'beyond-int64').map((i) => i.valid)).toEqual([false, false]);
  });

  test('a valid path value of another record is not sent to an unsafe method by the plan alone: it is marked valid', () => {
    // The coverage phase holds such values back from unsafe methods without --allow-irreversible (namesAnotherRecord).
    const probes = items({ type: 'string' }, 'path', 'DELETE').filter((i) => i.class === 'identifier-like');
    expect(probes.every((i) => i.valid && i.pathParams !== undefined)).toBe(true);
  });
});
