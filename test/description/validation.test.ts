/**
 * Response validation, construct by construct, in OpenAPI 3.0 and 3.1 (the contract loaded as the CLI loads
 * it): the correct body passes and the faulty one fails. Also: recursive schemas compile once by reference,
 * a schema that cannot compile is a SchemaCompileError (never a crash), and compiles are bounded in size.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_SCHEMA_NODES, SchemaCompileError, SchemaValidator, unsafeIntegers } from '../../src/runner/checks/schema.ts';
import type { Contract, ResponseSpec } from '../../src/runner/model.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { CONSTRUCTS, constructsContract, UNCOMPILABLE } from './constructs.ts';

let dir = '';
const contracts: Record<'3.0' | '3.1', Contract> = {} as never;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-spec-'));
  for (const version of ['3.0', '3.1'] as const) {
    const file = join(dir, `constructs-${version}.json`);
    await writeFile(file, JSON.stringify(constructsContract(version)));
    contracts[version] = await loadContract([file]);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function validatorFor(contract: Contract): SchemaValidator {
  return new SchemaValidator(contract.services.flatMap((s) => (s.validationDocument ? [s.validationDocument] : [])));
}

function response(contract: Contract, operationId: string): ResponseSpec {
  const spec = contract.operations.find((o) => o.operationId === operationId)?.responses[0];
  if (!spec) throw new Error(`no response for ${operationId}`);
  return spec;
}

describe.each(['3.0', '3.1'] as const)('OpenAPI %s', (version) => {
  test.each(CONSTRUCTS.map((c) => [c.id, c] as const))('%s: the correct body passes, the faulty body fails', (_id, c) => {
    const contract = contracts[version];
    const validator = validatorFor(contract);
    const spec = response(contract, c.id);
    expect(spec.schemaRef).toMatch(/#\/paths\//);
    const correct = c.correct[version];
    const faulty = c.faulty[version];
    expect(validator.validateResponse(spec, JSON.parse(correct), correct)).toEqual([]);
    expect(validator.validateResponse(spec, JSON.parse(faulty), faulty).length).toBeGreaterThan(0);
  });
});

test('a schema that cannot compile throws SchemaCompileError, every time, without recompiling', () => {
  const validator = validatorFor(contracts['3.1']);
  const spec = response(contracts['3.1'], UNCOMPILABLE.id);
  expect(() => validator.validateResponse(spec, 1, '1')).toThrow(SchemaCompileError);
  expect(() => validator.validateResponse(spec, 1, '1')).toThrow(/cannot be compiled: exclusiveMinimum/);
  expect(validator.compiledCount).toBe(1);
});

test('a schema beyond the size bound is not compiled', () => {
  // A chain of component schemas, each referring to the next: more nodes than one compile may take.
  const count = MAX_SCHEMA_NODES + 10;
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) schemas[`S${i}`] = i + 1 < count ? { $ref: `#/components/schemas/S${i + 1}` } : { type: 'string' };
  const id = 'https://contract.conformance.local/huge.json';
  const document = { components: { schemas }, paths: { '/x': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } } } } } } };
  const validator = new SchemaValidator([{ id, document }]);
  const spec: ResponseSpec = { status: '200', contentTypes: ['application/json'], schema: {}, schemaRef: `${id}#/paths/~1x/get/responses/200/content/application~1json/schema`, pointer: '/x' };
  expect(() => validator.validateResponse(spec, 'a', '"a"')).toThrow(/exceed 150000 nodes/);
});

test('recursive schemas compile once, by reference, and validate deep data', () => {
  const contract = contracts['3.0'];
  const validator = validatorFor(contract);
  const spec = response(contract, 'recursive-schema');
  let deep: Record<string, unknown> = { name: 'leaf', children: [] };
  for (let i = 0; i < 200; i++) deep = { name: `n${i}`, children: [deep] };
  expect(validator.validateResponse(spec, deep)).toEqual([]);
  expect(validator.validateResponse(spec, deep)).toEqual([]);
  expect(validator.compiledCount).toBe(1);
});

test('unsafe integers are found by their exact digits at ajv instance paths', () => {
  expect(unsafeIntegers('{"a":[1,9007199254740993],"b/c":{"d":-9223372036854775809},"e":1.5}')).toEqual(
    new Map([
      ['/a/1', '9007199254740993'],
      ['/b~1c/d', '-9223372036854775809'],
    ]),
  );
});

test('int64 at the exact bounds, and format byte in both alphabets', () => {
  const id = 'https://contract.conformance.local/edge.json';
  const document = {
    components: {
      schemas: {
        T: { type: 'object', properties: { n: { type: 'integer', format: 'int64', 'x-conformance-int64': true }, b: { type: 'string', format: 'byte' } } },
      },
    },
  };
  const validator = new SchemaValidator([{ id, document }]);
  const spec: ResponseSpec = { status: '200', contentTypes: [], schema: {}, schemaRef: `${id}#/components/schemas/T`, pointer: '/t' };
  const check = (text: string) => validator.validateResponse(spec, JSON.parse(text), text).length === 0;
  expect(check('{"n":-9223372036854775808}')).toBe(true);
  expect(check('{"n":-9223372036854775809}')).toBe(false);
  expect(check('{"n":9007199254740993}')).toBe(true);
  expect(check('{"n":1e300}')).toBe(false);
  expect(check('{"b":"aGk="}')).toBe(true);
  expect(check('{"b":"aGk"}')).toBe(true);
  expect(check('{"b":"_-8"}')).toBe(true);
  expect(check('{"b":"a"}')).toBe(false);
  expect(check('{"b":"a b"}')).toBe(false);
});
