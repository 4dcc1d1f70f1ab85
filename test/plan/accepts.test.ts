/**
 * accepts(): the no-compile "does this schema accept this value" of the coverage phase. Where ajv can judge the
 * value (no BigInt, no rounded bound), the answer must be ajv's, as the engine's validator configures it.
 */
import { describe, expect, test } from 'vitest';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { JsonSchema } from '../../src/runner/model.ts';
import { accepts } from '../../src/runner/plan/accepts.ts';

const validator = new SchemaValidator();
let n = 0;
const ajvAccepts = (schema: JsonSchema, value: unknown) => validator.validate(`accepts-${n++}`, schema, value).length === 0;

describe('accepts', () => {
  const table: Array<[string, JsonSchema, unknown[]]> = [
    ['integer bounds', { type: 'integer', minimum: 1, maximum: 10 }, [0, 1, 10, 11, 5.5, '5', null]],
    ['exclusive bounds', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, [0, 0.5, 1, -1]],
    ['int32', { type: 'integer', format: 'int32' }, [2147483647, 2147483648, -2147483648, -2147483649]],
    ['multipleOf', { type: 'number', multipleOf: 0.01 }, [1.23, 1.234, 0]],
    ['nullable', { type: ['string', 'null'], maxLength: 2 }, [null, 'ab', 'abc', 1]],
    ['lengths count code points', { type: 'string', minLength: 2, maxLength: 2 }, ['𝔘𝔘', '𝔘', 'abc']],
    ['pattern', { type: 'string', pattern: '^[a-z]+$' }, ['abc', 'ABC', '']],
    ['pattern only valid without the u flag', { type: 'string', pattern: '^[\\w-\\.]+$' }, ['a.b', 'a b']],
    ['formats', { type: 'string', format: 'uuid' }, ['123e4567-e89b-12d3-a456-426614174000', 'x', '']],
    ['date', { type: 'string', format: 'date' }, ['2026-01-31', '2026-02-31', 'x']],
    ['byte as the engine judges it', { type: 'string', format: 'byte' }, ['aGk=', 'aGk', 'a', 'a-_b']],
    ['enum', { enum: ['a', 1, null] }, ['a', 1, null, 'b', true]],
    ['const object', { const: { a: [1, 2] } }, [{ a: [1, 2] }, { a: [2, 1] }]],
    ['object', { type: 'object', required: ['a'], properties: { a: { type: 'integer' } }, additionalProperties: false }, [{ a: 1 }, { a: '1' }, {}, { a: 1, b: 2 }, [], 'x']],
    ['patternProperties', { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: { type: 'integer' } }, [{ 'x-a': 's', b: 1 }, { 'x-a': 1 }, { b: 's' }]],
    ['array', { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2, uniqueItems: true }, [[], [1], [1, 2], [1, 1], [1, 2, 3], ['a']]],
    ['contains', { type: 'array', contains: { const: 1 }, maxContains: 1 }, [[1], [1, 1], [2]]],
    ['oneOf', { oneOf: [{ type: 'integer' }, { type: 'number' }] }, [1, 1.5, 'x']],
    ['anyOf nullable', { anyOf: [{ type: 'string' }, { type: 'null' }] }, [null, 'x', 1]],
    ['not', { not: { type: 'string' } }, ['x', 1]],
    ['if/then/else', { if: { properties: { k: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } }, [{ k: 'a', a: 1 }, { k: 'a', b: 1 }, { k: 'c', b: 1 }]],
    ['dependentRequired', { dependentRequired: { a: ['b'] } }, [{ a: 1 }, { a: 1, b: 1 }, {}]],
    ['no type', {}, [1, 'x', null, [], {}]],
  ];
  test.each(table)('%s: the same answer as the engine validator', (_name, schema, values) => {
    for (const value of values) expect(accepts(schema, value), JSON.stringify(value)).toBe(ajvAccepts(schema, value));
  });

  test('integers beyond 2^53 are judged on their exact digits', () => {
    expect(accepts({ type: 'integer' }, 2n ** 64n)).toBe(true);
    expect(accepts({ type: 'integer', format: 'int64' }, 2n ** 63n - 1n)).toBe(true);
    expect(accepts({ type: 'integer', format: 'int64' }, 2n ** 63n)).toBe(false);
    expect(accepts({ type: 'integer', format: 'int64' }, -(2n ** 63n))).toBe(true);
    expect(accepts({ type: 'integer', format: 'int64' }, -(2n ** 63n) - 1n)).toBe(false);
    expect(accepts({ type: 'integer', format: 'int32' }, 2n ** 63n)).toBe(false);
    expect(accepts({ type: 'integer', maximum: 100 }, 2n ** 63n)).toBe(false);
    expect(accepts({ type: 'integer', minimum: 0 }, -(2n ** 64n))).toBe(false);
    expect(accepts({ type: 'integer', multipleOf: 2 }, 2n ** 64n + 1n)).toBe(false);
    expect(accepts({ type: 'number', maximum: 1.5 }, 1n)).toBe(true);
    expect(accepts({ type: 'number', exclusiveMinimum: 0.5 }, 0n)).toBe(false);
    expect(accepts({ enum: [1, 2] }, 2n)).toBe(true);
    expect(accepts({ type: 'string' }, 1n)).toBe(false);
  });

  test('a bound, const or enum beyond 2^53 was rounded when parsed: a value that rounds to it is in doubt', () => {
    // 9223372036854775807 parses as 9223372036854775808.
    const max = { type: 'integer', maximum: 9223372036854775807 };
    expect(accepts(max, 2n ** 63n)).toBeUndefined();
    expect(accepts(max, 2n ** 63n - 1n)).toBeUndefined();
    expect(accepts(max, 2n ** 62n)).toBe(true);
    expect(accepts(max, 2n ** 64n)).toBe(false);
    expect(accepts({ enum: [9007199254740993] }, 9007199254740992n)).toBeUndefined();
    expect(accepts({ enum: [9007199254740993] }, 1)).toBe(false);
    // A failing multipleOf still decides.
    expect(accepts({ type: 'integer', maximum: 9223372036854775807, multipleOf: 3 }, 2n ** 63n)).toBe(false);
  });

  test('keywords it does not evaluate leave the answer open, unless another keyword already fails', () => {
    expect(accepts({ $ref: '#/x' }, 1)).toBeUndefined();
    expect(accepts({ type: 'object', unevaluatedProperties: false }, {})).toBeUndefined();
    expect(accepts({ type: 'string', unevaluatedProperties: false }, 1)).toBe(false);
    expect(accepts({ anyOf: [{ $ref: '#/x' }, { type: 'integer' }] }, 1)).toBe(true);
    expect(accepts({ anyOf: [{ $ref: '#/x' }, { type: 'integer' }] }, 'x')).toBeUndefined();
  });

  test('a required property must be the value\'s own (JSON carries no inherited ones)', () => {
    expect(accepts({ type: 'object', required: ['constructor'] }, {})).toBe(false);
    expect(accepts({ type: 'object', required: ['constructor'] }, { constructor: 1 })).toBe(true);
  });
});
