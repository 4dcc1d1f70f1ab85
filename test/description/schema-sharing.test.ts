/**
 * Response schemas are compiled once per schema, not once per operation or case: responses whose schema is
 * only a `$ref` (directly, or through a referenced Response Object) share the compile of the component they
 * name, and judge exactly as a compile of their own would. A schema with more than the reference (3.1
 * siblings) keeps its own compile.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { Contract, ResponseSpec } from '../../src/runner/model.ts';
import { loadContract } from '../../src/runner/description/load.ts';

let dir = '';
let contract: Contract;

const record = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string', maxLength: 5 }, tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } } },
};
const tag = { type: 'string', enum: ['a', 'b'] };

function description(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const json = (schema: unknown) => ({ description: 'ok', content: { 'application/json': { schema } } });
  for (let i = 0; i < 20; i++) {
    paths[`/things${i}`] = {
      get: { operationId: `list-${i}`, responses: { '200': json({ $ref: '#/components/schemas/Alias' }), '400': { $ref: '#/components/responses/Problem' } } },
      post: { operationId: `create-${i}`, responses: { '201': json({ $ref: '#/components/schemas/Thing' }) } },
    };
  }
  for (let i = 0; i < 10; i++) {
    paths[`/inline${i}`] = { get: { operationId: `inline-${i}`, responses: { '200': json({ type: 'array', items: { $ref: '#/components/schemas/Tag' }, maxItems: 2 }) } } };
  }
  paths['/anchored'] = { get: { operationId: 'anchored', responses: { '200': json({ type: 'array', items: { $ref: '#/components/schemas/Tag' }, maxItems: 2, $anchor: 'here' }) } } };
  paths['/own'] = { get: { operationId: 'own', responses: { '200': json({ $ref: '#/components/schemas/Thing', description: 'with a sibling' }) } } };
  return {
    openapi: '3.1.0',
    info: { title: 'sharing', version: '1' },
    paths,
    components: {
      schemas: { Thing: record, Tag: tag, Alias: { $ref: '#/components/schemas/Thing' }, Problem: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } },
      responses: { Problem: json({ $ref: '#/components/schemas/Problem' }) },
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-sharing-'));
  const file = join(dir, 'sharing.json');
  await writeFile(file, JSON.stringify(description()));
  contract = await loadContract([file]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const validator = () => new SchemaValidator(contract.services.flatMap((s) => (s.validationDocument ? [s.validationDocument] : [])));

function spec(operationId: string, status: string): ResponseSpec {
  const found = contract.operations.find((o) => o.operationId === operationId)?.responses.find((r) => r.status === status);
  if (!found?.schemaRef) throw new Error(`no schema reference for ${operationId} ${status}`);
  return found;
}

const GOOD = '{"id":9223372036854775807,"name":"abc","tags":["a"]}';
const BAD = '{"id":9223372036854775808,"name":"abcdefgh","tags":["c"],"extra":1}';

test('every response naming one component schema shares one compile, whatever the number of operations and cases', () => {
  const v = validator();
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 20; i++) {
      expect(v.validateResponse(spec(`list-${i}`, '200'), JSON.parse(GOOD), GOOD)).toEqual([]);
      expect(v.validateResponse(spec(`create-${i}`, '201'), JSON.parse(GOOD), GOOD)).toEqual([]);
      expect(v.validateResponse(spec(`list-${i}`, '400'), { code: 'x' }, '{"code":"x"}')).toEqual([]);
      expect(v.validateResponse(spec(`list-${i}`, '400'), { code: 1 }, '{"code":1}')).toHaveLength(1);
    }
  }
  // Thing (through the Alias too) and Problem (through the Response Object).
  expect(v.compiledCount).toBe(2);
  // A schema with a sibling next to its $ref is a schema of its own.
  expect(v.validateResponse(spec('own', '200'), JSON.parse(GOOD), GOOD)).toEqual([]);
  expect(v.compiledCount).toBe(3);
});

test('inline response schemas of the same content share one compile; one with an anchor of its own does not', () => {
  const v = validator();
  for (let i = 0; i < 10; i++) {
    expect(v.validateResponse(spec(`inline-${i}`, '200'), ['a', 'b'], '["a","b"]')).toEqual([]);
    const errors = v.validateResponse(spec(`inline-${i}`, '200'), ['a', 'c', 'b'], '["a","c","b"]');
    expect(errors.map((e) => e.message)).toEqual(['(root) must NOT have more than 2 items', '/1 must be equal to one of the allowed values']);
  }
  expect(v.compiledCount).toBe(1);
  expect(v.validateResponse(spec('anchored', '200'), ['a', 'c', 'b'], '["a","c","b"]')).toHaveLength(2);
  expect(v.compiledCount).toBe(2);
});

test('a shared compile reports the same errors as the response schema compiled on its own', () => {
  const shared = validator();
  // Warm the shared compile through another operation first.
  shared.validateResponse(spec('create-3', '201'), JSON.parse(BAD), BAD);
  const errors = shared.validateResponse(spec('list-7', '200'), JSON.parse(BAD), BAD);
  expect(errors.map((e) => e.message).sort()).toEqual([
    '/id must be an int64 (9223372036854775808 is not)',
    '/name must NOT have more than 5 characters',
    '/tags/0 must be equal to one of the allowed values',
  ]);
  // The response schema compiled at its own place in the document (as each response was compiled before).
  const own = spec('list-7', '200');
  expect(own.schemaRef).toMatch(/#\/paths\//);
  const direct = shared.validate('at its own place', { $ref: own.schemaRef! }, JSON.parse(BAD));
  expect(direct.length).toBeGreaterThan(0);
  expect(errors.filter((e) => e.instancePath !== '/id')).toEqual(direct.filter((e) => e.instancePath !== '/id'));
});
