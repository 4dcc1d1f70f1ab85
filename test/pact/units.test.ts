/** Pure parts of the pact support: pact-file reading, the verifier report, operation matching, the schema walk. */
import { describe, expect, test } from 'vitest';
import type { Contract } from '../../src/runner/model.ts';
import { PactInputError } from '../../src/runner/pact/errors.ts';
import { matchOperation } from '../../src/runner/pact/match-operation.ts';
import { parsePact } from '../../src/runner/pact/pact-file.ts';
import { undeclaredProperties, withoutRequired } from '../../src/runner/pact/schema-walk.ts';
import { createdIds } from '../../src/runner/pact/states.ts';
import { interactionLabel, mapMismatch, parseDuration, parseVerifierReport } from '../../src/runner/pact/verifier-results.ts';

describe('parsePact', () => {
  test('reads a V2 pact (providerState, query string, raw JSON body)', () => {
    const doc = parsePact(
      JSON.stringify({
        consumer: { name: 'c' },
        provider: { name: 'p' },
        interactions: [
          {
            description: 'd',
            providerState: 's',
            request: { method: 'get', path: '/a', query: 'x=1&x=2&y=3', headers: { Authorization: 'Bearer t' } },
            response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { id: 1 } },
          },
        ],
        metadata: { pactSpecification: { version: '2.0.0' } },
      }),
      'v2.json',
    );
    expect(doc.interactions[0]).toMatchObject({
      description: 'd',
      providerStates: [{ name: 's', params: {} }],
      request: { method: 'GET', path: '/a', query: { x: ['1', '2'], y: ['3'] }, headers: { authorization: ['Bearer t'] } },
      response: { status: 200, body: { content: { id: 1 }, json: true } },
    });
  });

  test('reads a V4 pact and keeps message interactions apart', () => {
    const doc = parsePact(
      JSON.stringify({
        consumer: { name: 'c' },
        provider: { name: 'p' },
        interactions: [
          {
            type: 'Synchronous/HTTP',
            description: 'http',
            providerStates: [{ name: 's', params: { id: 1 } }],
            request: { method: 'POST', path: '/a', body: { content: { a: 1 }, contentType: 'application/json', encoded: false } },
            response: { status: 201 },
          },
          { type: 'Asynchronous/Messages', description: 'event', contents: {} },
        ],
        metadata: { pactSpecification: { version: '4.0' } },
      }),
      'v4.json',
    );
    expect(doc.interactions).toHaveLength(1);
    expect(doc.interactions[0]?.request.body).toEqual({ content: { a: 1 }, contentType: 'application/json', json: true });
    expect(doc.interactions[0]?.providerStates).toEqual([{ name: 's', params: { id: 1 } }]);
    expect(doc.messages).toEqual([{ index: 1, description: 'event', type: 'Asynchronous/Messages' }]);
  });

  test.each([
    ['not json', 'x.json: not valid JSON'],
    ['[]', 'x.json: not a pact file (the document is not a JSON object)'],
    ['{"consumer":{"name":"c"}}', 'x.json: not a pact file (consumer.name and provider.name are required)'],
    ['{"consumer":{"name":"c"},"provider":{"name":"p"}}', 'x.json: not a pact file (no "interactions" array)'],
  ])('rejects %s', (text, message) => {
    expect(() => parsePact(text, 'x.json')).toThrow(PactInputError);
    expect(() => parsePact(text, 'x.json')).toThrow(message);
  });
});

describe('verifier report', () => {
  test.each([
    ['93ms', 93],
    ['1.126s', 1126],
    ['1s 126ms', 1126],
    ['2m 3s', 123_000],
    ['250µs', 0],
    ['soon', undefined],
  ])('duration %s is %s ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test('the report is parsed and mismatches become messages with pact locations', () => {
    const report = parseVerifierReport(
      JSON.stringify({
        result: false,
        output: ['x'],
        errors: [
          {
            interaction: 'Verifying a pact between c and p Given s - d',
            mismatch: {
              type: 'mismatches',
              interactionId: '',
              mismatches: [
                { type: 'StatusMismatch', expected: 200, actual: 500, mismatch: 'expected 200 but was 500' },
                { type: 'BodyMismatch', path: '$.a', expected: '1', actual: '2', mismatch: 'Expected 1 but got 2' },
                { type: 'HeaderMismatch', key: 'Content-Type', expected: 'a', actual: 'b', mismatch: 'bad header' },
              ],
            },
          },
        ],
        pendingErrors: [],
        interactionResults: [{ description: 'd', duration: '12ms', result: 'Error' }],
        notices: [],
      }),
    );
    expect(report?.interactionResults).toEqual([{ description: 'd', durationMs: 12, ok: false, pending: false }]);
    expect(report?.errors[0]?.interaction).toBe(interactionLabel('c', 'p', { description: 'd', states: ['s'] }));
    const mapped = mapMismatch(report?.errors[0]?.mismatch ?? {}, 'f.json#/interactions/0');
    expect(mapped.mismatches).toEqual([
      { message: 'status: expected 200 but was 500', location: 'f.json#/interactions/0/response/status' },
      { message: 'body $.a: Expected 1 but got 2', location: 'f.json#/interactions/0/response/body' },
      { message: 'header Content-Type: bad header', location: 'f.json#/interactions/0/response/headers/Content-Type' },
    ]);
    expect(mapMismatch({ type: 'error', message: 'error sending request for url (http://x)' }, 'l').transport).toBe(true);
    expect(mapMismatch({ type: 'error', message: 'One or more of the setup state change handlers has failed' }, 'l').stateChange).toBe(true);
  });

  test('multiple states are joined with And', () => {
    expect(interactionLabel('c', 'p', { description: 'd', states: ['s1', 's2'] })).toBe('Verifying a pact between c and p Given s1 And s2 - d');
  });

  test('text that is not a report is not parsed', () => {
    expect(parseVerifierReport('Verification was unable to run')).toBeUndefined();
  });
});

describe('matchOperation', () => {
  const op = (method: 'GET' | 'POST', path: string, service = 's') => ({
    operationId: `${method} ${path}`,
    method,
    path,
    group: '',
    service,
    specFile: 'f',
    pointer: '',
    parameters: [],
    responses: [],
    secured: false,
    extensions: {},
  });
  const contract: Contract = {
    services: [],
    operations: [op('GET', '/a/{id}'), op('GET', '/a/special'), op('POST', '/a'), op('GET', '/a/{id}', 'other')],
  };

  test.each([
    ['GET', '/a/123', 'GET /a/{id}', { id: '123' }],
    ['GET', '/a/special', 'GET /a/special', {}],
    ['GET', '/a/x%20y?q=1', 'GET /a/{id}', { id: 'x y' }],
    ['POST', '/a/', 'POST /a', {}],
    ['GET', '/a/1/b', undefined, undefined],
    ['POST', '/a/1', undefined, undefined],
  ])('%s %s -> %s', (method, path, operationId, params) => {
    const m = matchOperation(contract, 's', method, path);
    expect(m?.operation.operationId).toBe(operationId);
    if (params) expect(m?.pathParams).toEqual(params);
  });
});

describe('undeclaredProperties', () => {
  const record = { type: 'object', properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'object', properties: { k: {} } } } } };
  test.each<[string, unknown, Record<string, unknown> | boolean, string[]]>([
    ['declared only', { id: 'x' }, record, []],
    ['undeclared at the top', { id: 'x', extra: 1 }, record, ['/extra']],
    ['undeclared in array items', { tags: [{ k: 1, v: 2 }] }, record, ['/tags/0/v']],
    ['an open schema declares nothing', { anything: { deep: 1 } }, {}, []],
    ['a bare object type declares nothing', { anything: 1 }, { type: 'object' }, []],
    ['allOf members combine', { a: 1, b: 2 }, { allOf: [{ properties: { a: {} } }, { properties: { b: {} } }] }, []],
    ['allOf still reports the rest', { a: 1, c: 3 }, { allOf: [{ properties: { a: {} } }, { properties: { b: {} } }] }, ['/c']],
    ['anyOf takes the best branch', { a: 1 }, { anyOf: [{ type: 'object', properties: { b: {} } }, { type: 'object', properties: { a: {} } }] }, []],
    ['anyOf with an open branch declares nothing', { z: 1 }, { anyOf: [{ type: 'object', properties: { a: {} } }, {}] }, []],
    ['anyOf branches of the wrong type are ignored', [{ id: 'x', y: 1 }], { anyOf: [{ type: 'object', properties: { id: {} } }, { type: 'array', items: { type: 'object', properties: { id: {} } } }] }, ['/0/y']],
    ['additionalProperties as a schema is a documented map', { x: { v: 1, w: 2 } }, { type: 'object', properties: {}, additionalProperties: { properties: { v: {} } } }, ['/x/w']],
    ['patternProperties declare matching keys', { x_1: 1, y: 2 }, { properties: {}, patternProperties: { '^x_': {} } }, ['/y']],
  ])('%s', (_name, value, schema, paths) => {
    expect(undeclaredProperties(value, schema).map((u) => u.instancePath)).toEqual(paths);
  });

  test('withoutRequired drops required at every level but keeps a property named "required"', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: { required: { type: 'boolean' }, a: { type: 'object', required: ['b'], properties: { b: {} } } },
      anyOf: [{ required: ['a'] }],
    };
    expect(withoutRequired(schema)).toEqual({
      type: 'object',
      properties: { required: { type: 'boolean' }, a: { type: 'object', properties: { b: {} } } },
      anyOf: [{}],
    });
  });
});

test.each<[unknown, string[]]>([
  [{ id: 'a' }, ['a']],
  [[{ id: 'a' }, { id: 'b' }], ['a', 'b']],
  [{ total: 1, data: [{ id: 'a' }] }, ['a']],
  [{ nothing: true }, []],
])('createdIds(%j) reads all three create shapes', (body, ids) => {
  expect(createdIds(body)).toEqual(ids);
});
