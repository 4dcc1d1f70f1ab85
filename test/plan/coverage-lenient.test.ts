/**
 * The inputs lenient servers mishandle: a body that is not UTF-8, a value lenient parsers coerce (true for a
 * number), numbers at opposite ends of their ranges together, and parameters described by a JSON media type
 * (`content`, e.g. `?filter={...}`), whose values are JSON and vary as a body's do. Plus what a body says of
 * records: a field named like a path parameter follows the path; a reference the run made up is known as one.
 */
import { describe, expect, test } from 'vitest';
import { describe as describeContract } from '../../src/runner/description/load.ts';
import { alignBodyToPath, fillReferences, isReferenceName, madeUpReferences } from '../../src/runner/execute/records/references.ts';
import { RequestBuilder } from '../../src/runner/execute/request-builder.ts';
import { ValuePool } from '../../src/runner/execute/records/value-pool.ts';
import type { JsonSchema, Operation, ParameterSpec } from '../../src/runner/model.ts';
import { accepts } from '../../src/runner/plan/accepts.ts';
import { coverageRequests, type CoverageRequest, type PositiveRequest } from '../../src/runner/plan/coverage-classes.ts';
import { tierOf } from '../../src/runner/plan/input-tiers.ts';
import { Random } from '../../src/runner/plan/random.ts';

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [], secured: false, extensions: {}, ...over };
}

function jsonBody(schema: JsonSchema, required = true) {
  return { requestBody: { required, contentType: 'application/json', schema, pointer: '' } };
}

const run = (operation: Operation, positive: PositiveRequest, max = 400) => coverageRequests(operation, positive, new Random('1'), max);
const CALC = { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } };

describe('a body that is not UTF-8', () => {
  test('the positive body with 0x80 inside its first string, as the JSON media type, judged for its answer only', () => {
    const operation = op({ method: 'POST', path: '/items', ...jsonBody({ type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } }) });
    const item = run(operation, { pathParams: {}, query: {}, body: { name: 'ab', n: 1 } }).find((i) => i.class === 'not-utf8');
    expect(item).toMatchObject({ judgeAs: 'response', rawBodyEncoding: 'latin1', contentType: 'application/json', valid: false });
    const bytes = Buffer.from(item?.rawBody ?? '', 'latin1');
    expect(bytes.toString('hex')).toBe(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0x80]), Buffer.from('ab","n":1}')]).toString('hex'));
    // Not UTF-8: a strict decoder refuses it.
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
  });

  test('a body without strings gets the byte in a key; the rest of the body stays UTF-8', () => {
    const operation = op({ method: 'POST', path: '/add', ...jsonBody(CALC) });
    const item = run(operation, { pathParams: {}, query: {}, body: { a: 1, b: 2 } }).find((i) => i.class === 'not-utf8');
    expect(Buffer.from(item?.rawBody ?? '', 'latin1')).toEqual(Buffer.concat([Buffer.from('{"'), Buffer.from([0x80]), Buffer.from('":0,"a":1,"b":2}')]));
    // A string further down is found too (the first one, depth first).
    const nested = run(op({ method: 'POST', path: '/n', ...jsonBody({ type: 'object', properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } }) }), { pathParams: {}, query: {}, body: { n: 1, tags: ['t'] } }).find((i) => i.class === 'not-utf8');
    expect(Buffer.from(nested?.rawBody ?? '', 'latin1')).toEqual(Buffer.concat([Buffer.from('{"n":1,"tags":["'), Buffer.from([0x80]), Buffer.from('t"]}')]));
    const unicode = run(op({ method: 'POST', path: '/n', ...jsonBody({ type: 'object', properties: { s: { type: 'string' } } }) }), { pathParams: {}, query: {}, body: { s: 'é' } }).find((i) => i.class === 'not-utf8');
    expect(Buffer.from(unicode?.rawBody ?? '', 'latin1')).toEqual(Buffer.concat([Buffer.from('{"s":"'), Buffer.from([0x80]), Buffer.from('é"}')]));
  });

  test('no body, no such item', () => {
    expect(run(op({ method: 'GET', path: '/x' }), { pathParams: {}, query: {} }).some((i) => i.class === 'not-utf8')).toBe(false);
  });
});

describe('values lenient parsers coerce', () => {
  test('one scalar of each JSON kind a parser coerces: invalid, lenient; none of a kind the field allows', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' }, i: { type: 'integer' }, flag: { type: 'boolean' }, either: { type: ['number', 'boolean'] }, s: { type: 'string' } } };
    const items = run(op({ method: 'POST', path: '/x', ...jsonBody(schema) }), { pathParams: {}, query: {}, body: { n: 1, i: 7, flag: false, either: 1, s: 'a' } }).filter((i) => i.class === 'coercible-type');
    expect(items.map((i) => [i.label, i.valid]).sort()).toEqual([
      ['body.either = "true" (a string, not a number)', false],
      ['body.flag = "true" (a string, not a boolean)', false],
      ['body.flag = 1 (a number, not a boolean)', false],
      ['body.i = "7" (a numeric string, not an integer)', false],
      ['body.i = true (a boolean, not an integer)', false],
      ['body.n = "1" (a numeric string, not a number)', false],
      ['body.n = true (a boolean, not a number)', false],
      ['body.s = 12345 (a number, not a string)', false],
      ['body.s = true (a boolean, not a string)', false],
    ]);
    expect(items.every((i) => tierOf(i.class) === 'lenient')).toBe(true);
  });

  test('a date or date-time string gets the number lenient parsers read as Unix time, a whole day', () => {
    const schema = { type: 'object', properties: { dob: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] }, at: { type: 'string', format: 'date-time' } } };
    const items = run(op({ method: 'POST', path: '/x', ...jsonBody(schema) }), { pathParams: {}, query: {}, body: { dob: '2020-01-01', at: '2020-01-01T00:00:00Z' } }).filter((i) => i.class === 'coercible-type');
    expect(items.map((i) => [i.label, i.valid]).sort()).toEqual([
      ['body.at = 946684800 (a number, not a string)', false],
      ['body.at = true (a boolean, not a string)', false],
      ['body.dob = 946684800 (a number, not a string)', false],
      ['body.dob = true (a boolean, not a string)', false],
    ]);
  });

  test('never in a URL (there every value is text)', () => {
    const operation = op({ method: 'GET', path: '/x', parameters: [{ name: 'n', in: 'query', required: false, schema: { type: 'integer' }, pointer: '' }] });
    expect(run(operation, { pathParams: {}, query: { n: 1 } }).some((i) => i.class === 'coercible-type')).toBe(false);
  });
});

describe('numbers at their ends together', () => {
  test('all high, all low, then opposite ends both ways: each valid', () => {
    const items = run(op({ method: 'POST', path: '/subtract', ...jsonBody(CALC) }), { pathParams: {}, query: {}, body: { a: 1, b: 2 } }).filter((i) => i.class === 'all-at-bound');
    const max = Number.MAX_VALUE;
    expect(items.map((i) => [i.label, i.body, i.valid])).toEqual([
      ['every number at its high end (a, b)', { a: max, b: max }, true],
      ['every number at its low end (a, b)', { a: -max, b: -max }, true],
      ['every number at opposite ends, the first high (a, b)', { a: max, b: -max }, true],
      ['every number at opposite ends, the first low (a, b)', { a: -max, b: max }, true],
    ]);
  });
});

describe('parameters described by a JSON media type', () => {
  const FILTER = { type: 'object', additionalProperties: false, properties: { where: { type: 'object' }, limit: { type: 'integer', minimum: 1 }, fields: { type: 'array', items: { type: 'string', enum: ['id', 'title'] } } } };
  const spec = {
    openapi: '3.0.3',
    info: { title: 'T', version: '1' },
    paths: { '/todos': { get: { operationId: 'find', parameters: [{ name: 'filter', in: 'query', content: { 'application/json': { schema: FILTER, example: { limit: 2 } } } }], responses: { '200': { description: 'ok' } } } } },
  };

  test('the loader takes the media type\'s schema and example, and marks the parameter as JSON', () => {
    const { operations } = describeContract(spec as never, 'todo.json');
    const filter = operations[0]?.parameters[0] as ParameterSpec;
    expect(filter).toMatchObject({ name: 'filter', in: 'query', required: false, contentType: 'application/json', example: { limit: 2 } });
    expect(filter.schema).toMatchObject({ type: 'object', properties: { limit: { type: 'integer', minimum: 1 } } });
  });

  test('its value goes in the URL as one JSON text, arrays and large integers included', () => {
    const { operations } = describeContract(spec as never, 'todo.json');
    const builder = new RequestBuilder({ baseUrls: { [operations[0]!.service]: 'http://127.0.0.1:1' }, runId: 'r', token: () => 't', profileOf: () => ({}) as never });
    const url = new URL(builder.url(operations[0]!, {}, { filter: { fields: ['id'], limit: 2n ** 64n } }));
    expect(url.searchParams.getAll('filter')).toEqual(['{"fields":["id"],"limit":18446744073709551616}']);
    // A parameter described by a schema keeps the form style (one value per array item).
    const plain = op({ method: 'GET', path: '/x', service: operations[0]!.service, parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } }, pointer: '' }] });
    expect(new URL(builder.url(plain, {}, { tag: ['a', 'b'] })).searchParams.getAll('tag')).toEqual(['a', 'b']);
  });

  test('the coverage phase varies it as JSON: null, another JSON type, each bound of its fields as drawn values', () => {
    const { operations } = describeContract(spec as never, 'todo.json');
    const items: CoverageRequest[] = run(operations[0]!, { pathParams: {}, query: { filter: { limit: 2 } } });
    const filters = items.filter((i) => i.label.startsWith('query.filter')).map((i) => [i.class, i.query?.['filter'], i.valid]);
    expect(filters).toContainEqual(['null', null, false]);
    // A JSON kind no parser turns into an object: an array, a number.
    expect(filters).toContainEqual(['wrong-type', ['conformance'], false]);
    expect(filters).toContainEqual(['wrong-type', 12345, false]);
    expect(filters).toContainEqual(['optional-left-out', undefined, true]);
    // Every value sent is a JSON value the schema judges (objects stay objects, not text).
    for (const [, value, valid] of filters) if (value !== undefined) expect(accepts(FILTER, value), JSON.stringify(value)).toBe(valid);
  });
});

describe('what a body says of records', () => {
  const TODO = { type: 'object', properties: { id: { type: 'number' }, title: { type: 'string' }, ownerId: { type: 'integer' }, code: { type: 'string' } } };
  const put = op({ method: 'PUT', path: '/todos/{id}', ...jsonBody(TODO) });

  test('a field named like a path parameter takes the path\'s value, in the field\'s type', () => {
    expect(alignBodyToPath(put, { id: 492.09, title: 'a' }, { id: '13' })).toEqual({ id: 13, title: 'a' });
    expect(alignBodyToPath(put, { id: 5, title: 'a' }, { id: '0' })).toEqual({ id: 0, title: 'a' });
    // A body without the field gets none; a path value the field's type cannot hold leaves it alone.
    expect(alignBodyToPath(put, { title: 'a' }, { id: '13' })).toEqual({ title: 'a' });
    expect(alignBodyToPath(put, { id: 5 }, { id: 'not-a-number' })).toEqual({ id: 5 });
    expect(alignBodyToPath(put, { id: 5 }, { id: '9223372036854775808' })).toEqual({ id: 5 });
  });

  test('a bare id is the record\'s own: it takes the value of the parameter the path ends in, whatever its name', () => {
    const named = op({ method: 'PUT', path: '/pettypes/{petTypeId}', ...jsonBody(TODO) });
    expect(alignBodyToPath(named, { id: 1, title: 'a' }, { petTypeId: '128' })).toEqual({ id: 128, title: 'a' });
    // A path that ends in a collection names no record of its own: the body's id is left as it is.
    const nested = op({ method: 'POST', path: '/owners/{ownerId}/pets', ...jsonBody(TODO) });
    expect(alignBodyToPath(nested, { id: 1, title: 'a' }, { ownerId: '5' })).toEqual({ id: 1, title: 'a' });
  });

  test('a null names no record: it stays where a variation means to send it (keepNull), else takes the path\'s value', () => {
    expect(alignBodyToPath(put, { id: null, title: 'a' }, { id: '13' })).toEqual({ id: 13, title: 'a' });
    expect(alignBodyToPath(put, { id: null, title: 'a' }, { id: '13' }, { keepNull: true })).toEqual({ id: null, title: 'a' });
  });

  // JSON:API: the record is the object of the body's one member, `data`.
  const RESOURCE = {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['blog'] }, id: {}, attributes: { type: 'object', properties: { name: { type: 'string' } } } } } },
  };
  const patch = op({ method: 'PATCH', path: '/blogs/{id}', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, pointer: '' }], ...jsonBody(RESOURCE) });

  test('inside a one-member envelope (JSON:API\'s data), the object\'s field named like a path parameter takes its value', () => {
    expect(alignBodyToPath(patch, { data: { type: 'blog', id: 'x-1', attributes: { name: 'a' } } }, { id: '7' })).toEqual({ data: { type: 'blog', id: '7', attributes: { name: 'a' } } });
    expect(alignBodyToPath(patch, { data: { type: 'blog', id: null } }, { id: '7' }, { keepNull: true })).toEqual({ data: { type: 'blog', id: null } });
    // Not past the envelope's object, and not where the body has more than one member or names the field itself.
    expect(alignBodyToPath(patch, { data: { type: 'blog', attributes: { id: 3 } } }, { id: '7' })).toEqual({ data: { type: 'blog', attributes: { id: 3 } } });
    expect(alignBodyToPath(patch, { data: { id: 'x' }, meta: {} }, { id: '7' })).toEqual({ data: { id: 'x' }, meta: {} });
    expect(alignBodyToPath(put, { id: 5, title: 'a' }, { id: '7' })).toEqual({ id: 7, title: 'a' });
  });

  test('the coverage phase varies the envelope object\'s fields too: a null id (it names no record), another kind of attributes', () => {
    const body = { data: { type: 'blog', id: '7', attributes: { name: 'a' } } };
    const items = run(patch, { pathParams: { id: '7' }, query: {}, body });
    const labels = items.map((i) => i.label);
    const nullId = items.find((i) => i.label.startsWith('body.data.id = null'));
    expect(nullId, labels.join('\n')).toMatchObject({ valid: true, body: { data: { type: 'blog', id: null, attributes: { name: 'a' } } } });
    // A valid id other than the path's would name another record: none is sent.
    expect(items.filter((i) => i.label.startsWith('body.data.id =') && i.valid && (i.body as typeof body).data.id !== null)).toEqual([]);
    expect(items.find((i) => i.label.startsWith('body.data.attributes = 12345'))).toMatchObject({ valid: false, body: { data: { type: 'blog', id: '7', attributes: 12345 } } });
    expect(items.find((i) => i.label.startsWith('body.data.type') && i.class === 'outside-enum')).toMatchObject({ valid: false });
    // The fields of the envelope object's objects too (JSON:API's attributes), each judged by the whole body.
    expect(items.find((i) => i.label.startsWith('body.data.attributes.name = 12345'))).toMatchObject({ valid: false, class: 'coercible-type', body: { data: { type: 'blog', id: '7', attributes: { name: 12345 } } } });
    expect(items.find((i) => i.label.startsWith('body.data.attributes.name = ""'))).toMatchObject({ valid: true, body: { data: { attributes: { name: '' } } } });
  });

  test('reference names: a field that names another record, not the record\'s own id', () => {
    expect(['user_id', 'userId', 'orderUuid', 'typeId'].every(isReferenceName)).toBe(true);
    expect(['id', 'uuid', 'Id', 'paid', 'valid', 'rapid', 'title'].filter(isReferenceName)).toEqual([]);
  });

  test('a record the run deleted leaves the pool: a read no longer takes its id', () => {
    const pool = new ValuePool();
    const answer = (status: number, json?: unknown) => ({ request: { method: 'GET', url: 'http://x/pets', headers: {} }, response: { status, headers: {}, body: JSON.stringify(json ?? null), json, size: 1 }, durationMs: 1 }) as Record<string, unknown>;
    const list = op({ method: 'GET', path: '/pets' });
    const read = op({ method: 'GET', path: '/pets/{petId}' });
    const remove = op({ method: 'DELETE', path: '/pets/{petId}' });
    pool.harvest(list, answer(200, [{ id: 1 }, { id: 2 }]) as never);
    expect(pool.values(read, 'petId')).toEqual(['1', '2']);
    pool.harvest(remove, { ...answer(204), request: { method: 'DELETE', url: 'http://x/pets/2', headers: {} } } as never);
    expect(pool.values(read, 'petId')).toEqual(['1']);
    // A refused delete removed nothing.
    pool.harvest(remove, { ...answer(404, { detail: 'no' }), request: { method: 'DELETE', url: 'http://x/pets/1', headers: {} } } as never);
    expect(pool.values(read, 'petId')).toEqual(['1']);
  });

  test('a reference is made up unless the plan took it from a record of the run, the path or an answer', () => {
    const pool = new ValuePool();
    const users = op({ method: 'POST', path: '/users' });
    pool.harvest(users, { request: { method: 'POST', url: 'http://x/users', headers: {} }, response: { status: 201, headers: {}, body: '{"id":7}', json: { id: 7 }, size: 8 }, durationMs: 1 } as never);
    const seen = (v: string) => pool.seen(v);
    expect(madeUpReferences({ user_id: 245, title: 'a' }, { user_id: 245 }, {}, seen)).toEqual(['user_id = 245']);
    expect(madeUpReferences({ user_id: 7 }, { user_id: 245 }, {}, seen)).toEqual([]);
    expect(madeUpReferences({ user_id: 'u-1' }, { user_id: '{{steps.user.id}}' }, {}, seen)).toEqual([]);
    expect(madeUpReferences({ ownerId: 3 }, { ownerId: 3 }, { ownerId: '3' }, seen)).toEqual([]);
    // The pool offers the ids of the collection the name points to.
    expect(pool.forReference('user_id')).toEqual(['7']);
    expect(pool.forReference('userId')).toEqual(['7']);
    const create = op({ method: 'POST', path: '/agreements', ...jsonBody({ type: 'object', properties: { user_id: { type: 'integer' }, note: { type: 'string' } } }) });
    expect(fillReferences(create, { user_id: 245, note: 'n' }, { user_id: 245 }, (n) => pool.forReference(n), accepts)).toEqual({ user_id: 7, note: 'n' });
    // Nothing of that kind seen, or a {{template}} of the plan: left as it is.
    expect(fillReferences(create, { user_id: 245 }, { user_id: 245 }, () => [], accepts)).toEqual({ user_id: 245 });
    expect(fillReferences(create, { user_id: 9 }, { user_id: '{{steps.u.id}}' }, (n) => pool.forReference(n), accepts)).toEqual({ user_id: 9 });
  });
});
