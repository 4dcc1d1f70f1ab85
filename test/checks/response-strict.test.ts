/**
 * What the service sends is held to the contract exactly: the media type is one the response declares (a +json
 * type is another media type unless the profile makes them one), a declared body is there, each body is judged
 * by the media type it is answered in, and the headers the response declares are there and match.
 */
import { describe, expect, test } from 'vitest';
import { runChecks } from '../../src/runner/checks/registry.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import { describe as describeContract } from '../../src/runner/description/load.ts';
import type { Profile } from '../../src/runner/description/profile.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import type { Operation, RecordedResponse } from '../../src/runner/model.ts';

const ERROR = { type: 'object', required: ['code'], properties: { code: { type: 'string' } } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'strict', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'a thing',
            headers: {
              'X-Rate-Remaining': { required: true, schema: { type: 'integer', minimum: 0 } },
              ETag: { schema: { type: 'string', pattern: '^"[a-z0-9]+"$' } },
              'X-Tags': { schema: { type: 'array', items: { type: 'integer' } } },
            },
            content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
          },
          '201': { description: 'any JSON or XML', content: { 'application/json': { schema: {} }, 'application/xml': { schema: {} } } },
          '202': { description: 'any text, or any JSON', content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: {} } } },
          '400': { description: 'text', content: { 'text/plain': { schema: { type: 'string', maxLength: 20 } } } },
          '404': { description: 'not found', content: { 'application/json': { schema: ERROR } } },
          '409': { description: 'any body', content: { 'application/json': { schema: {} } } },
          '410': { description: 'gone, nothing to say' },
          '415': { description: 'problem', content: { 'application/problem+json': { schema: ERROR } } },
          '422': { description: 'any json', content: { 'application/*+json': { schema: ERROR } } },
          '200X': { description: 'ignored' },
          default: { description: 'html or json', content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ERROR } } },
        },
      },
      head: { operationId: 'headThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok', content: { 'application/json': { schema: ERROR } } } } },
    },
  },
};

const operations = describeContract(SPEC as never, 'strict.json').operations;
const get = operations.find((o) => o.operationId === 'getThing') as Operation;
const head = operations.find((o) => o.operationId === 'headThing') as Operation;
const generic = await loadProfile(GENERIC_PROFILE);

function judged(op: Operation, response: Partial<RecordedResponse> & { status: number }, profile: Profile = generic): string[] {
  const body = response.body ?? '';
  let json: unknown;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  const { findings } = runChecks({
    exchange: { request: { method: op.method, url: 'http://127.0.0.1/things/1', headers: {} }, response: { headers: {}, body, truncated: false, size: body.length, ...(json !== undefined ? { json } : {}), ...response }, durationMs: 1 },
    operation: op,
    profile,
    validator: new SchemaValidator(),
  });
  return findings.map((f) => `${f.check}:${f.severity}`).sort();
}

const json = (status: number, value: unknown, type = 'application/json', headers: Record<string, string> = {}) => ({ status, body: JSON.stringify(value), headers: { 'content-type': type, ...headers } });
const OK_HEADERS = { 'x-rate-remaining': '5' };

describe('the media type answered is one the response declares', () => {
  test.each([
    ['application/json as declared', json(404, { code: 'x' }), []],
    ['application/problem+json where application/json is declared', json(404, { code: 'x' }, 'application/problem+json'), ['content-type-conformance:error']],
    ['application/json where application/problem+json is declared', json(415, { code: 'x' }), ['content-type-conformance:error']],
    ['application/problem+json as declared', json(415, { code: 'x' }, 'application/problem+json; charset=utf-8'), []],
    ['a suffix wildcard covers any +json type', json(422, { code: 'x' }, 'application/vnd.error+json'), []],
    ['a suffix wildcard does not cover plain JSON', json(422, { code: 'x' }), ['content-type-conformance:error']],
  ] as const)('%s', (_name, response, want) => {
    expect(judged(get, response)).toEqual(want);
  });

  test('a profile may declare two media types one for its platform', () => {
    const profile = { ...generic, mediaTypeEquivalents: [['application/json', 'application/problem+json']] };
    expect(judged(get, json(404, { code: 'x' }, 'application/problem+json'), profile)).toEqual([]);
    expect(judged(get, json(415, { code: 'x' }), profile)).toEqual([]);
  });
});

describe('a declared body is there', () => {
  test.each([
    ['an empty 404 where a JSON error body is declared', { status: 404, body: '' }, ['response-schema-conformance:error']],
    ['an empty 404 with a JSON content type', { status: 404, body: '', headers: { 'content-type': 'application/json' } }, ['response-schema-conformance:error']],
    ['an empty 409 where the schema takes any value', { status: 409, body: '' }, []],
    ['an empty 201 where only JSON and XML are declared, of any value: no document', { status: 201, body: '' }, ['response-schema-conformance:error']],
    ['the same with a JSON content type', { status: 201, body: '', headers: { 'content-type': 'application/json' } }, ['response-schema-conformance:error']],
    ['an empty 202 where text is declared too: the empty string', { status: 202, body: '' }, []],
    ['an empty 410 where no content is declared', { status: 410, body: '' }, []],
    ['an empty 400 where a string schema takes ""', { status: 400, body: '' }, []],
  ] as const)('%s', (_name, response, want) => {
    expect(judged(get, response)).toEqual(want);
  });

  test('a HEAD, a 204 and a 304 carry no body whatever is declared', () => {
    expect(judged(head, { status: 200, body: '' })).toEqual([]);
    const op204: Operation = { ...get, responses: [{ status: '204', contentTypes: ['application/json'], schema: ERROR, pointer: '/x' }] };
    expect(judged(op204, { status: 204, body: '' })).toEqual([]);
  });
});

describe('each body judged by the media type it is answered in', () => {
  test.each([
    ['a documented text/plain 400 is a string, not JSON that failed to parse', { status: 400, body: 'Bad id', headers: { 'content-type': 'text/plain; charset=utf-8' } }, []],
    ['a text/plain body that breaks its string schema', { status: 400, body: 'x'.repeat(21), headers: { 'content-type': 'text/plain' } }, ['response-schema-conformance:error']],
    ['a text/html page where the default declares text/html as a string', { status: 500, body: '<html><body>oops</body></html>', headers: { 'content-type': 'text/html' } }, ['not-a-server-error:error']],
    ['JSON under the default is judged by the JSON schema', json(503, { nope: 1 }), ['not-a-server-error:error', 'response-schema-conformance:error']],
    ['text where only JSON is declared: the media type is wrong, the body is not parsed as JSON', { status: 404, body: 'not found', headers: { 'content-type': 'text/plain' } }, ['content-type-conformance:error']],
    ['a body labelled JSON that is not JSON', { status: 404, body: 'not found', headers: { 'content-type': 'application/json' }, jsonError: 'the body is not valid JSON: x' }, ['json-wellformed:error', 'response-body-readable:error']],
  ] as const)('%s', (_name, response, want) => {
    expect(judged(get, response)).toEqual(want);
  });
});

describe('the headers the response declares', () => {
  test.each([
    ['every declared header as described', json(200, { id: 'a' }, 'application/json', { ...OK_HEADERS, etag: '"abc1"', 'x-tags': '1, 2,3' }), []],
    ['a required header missing', json(200, { id: 'a' }), ['response-headers-conformance:error']],
    ['an integer header that is no integer', json(200, { id: 'a' }, 'application/json', { 'x-rate-remaining': 'many' }), ['response-headers-conformance:error']],
    ['an integer header below its minimum', json(200, { id: 'a' }, 'application/json', { 'x-rate-remaining': '-1' }), ['response-headers-conformance:error']],
    ['an optional header that breaks its pattern', json(200, { id: 'a' }, 'application/json', { ...OK_HEADERS, etag: 'W/"abc"' }), ['response-headers-conformance:error']],
    ['an array header with an item of the wrong type', json(200, { id: 'a' }, 'application/json', { ...OK_HEADERS, 'x-tags': '1,b' }), ['response-headers-conformance:error']],
    ['optional headers left out', json(200, { id: 'a' }, 'application/json', OK_HEADERS), []],
  ] as const)('%s', (_name, response, want) => {
    expect(judged(get, response)).toEqual(want);
  });
});
