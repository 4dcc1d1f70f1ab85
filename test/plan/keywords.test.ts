import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accepts } from '../../src/runner/plan/accepts.ts';
import { schemaArbitrary } from '../../src/runner/plan/arbitraries.ts';
import { boundaryValues } from '../../src/runner/plan/coverage.ts';
import { edges, factsOf, INT32, INT64, mergeSchemas } from '../../src/runner/plan/keywords.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { generate, UNKNOWN } from '../../src/runner/plan/values.ts';

describe('the keyword table (plan/keywords.ts)', () => {
  it('reads integer ranges once: bounds, exclusive bounds, multipleOf and the int32 format', () => {
    expect(factsOf({ type: 'integer', minimum: 3, maximum: 9 }).integer).toEqual({ lo: 3, hi: 9, step: 1 });
    expect(factsOf({ type: 'integer', exclusiveMinimum: 3, exclusiveMaximum: 9 }).integer).toEqual({ lo: 4, hi: 8, step: 1 });
    expect(factsOf({ type: 'integer', minimum: -7, maximum: 21, multipleOf: 5 }).integer).toEqual({ lo: -5, hi: 20, step: 5 });
    expect(factsOf({ type: 'integer', format: 'int32' }).integer).toEqual({ lo: INT32.min, hi: INT32.max, step: 1 });
    expect(factsOf({ type: 'integer', minimum: 5, maximum: 4 }).integer).toBeUndefined();
    // The tighter of minimum and exclusiveMinimum wins.
    expect(factsOf({ type: 'number', minimum: 2, exclusiveMinimum: 2 }).bounds).toMatchObject({ min: 2, exclusiveMin: true });
    expect(factsOf({ type: 'number', minimum: 3, exclusiveMinimum: 2 }).bounds).toMatchObject({ min: 3, exclusiveMin: false });
  });

  it('gives an unbounded integer two ranges: JSON numbers stop at 2^53 - 1, int64 text reaches 2^63 - 1 exactly', () => {
    const facts = factsOf({ type: 'integer', format: 'int64' });
    expect(facts.integer).toEqual({ lo: Number.MIN_SAFE_INTEGER, hi: Number.MAX_SAFE_INTEGER, step: 1 });
    expect(facts.int64).toEqual({ lo: INT64.min, hi: INT64.max });
    expect(factsOf({ type: 'integer', format: 'int64', minimum: 1, exclusiveMaximum: 10 }).int64).toEqual({ lo: 1n, hi: 9n });
    expect(factsOf({ type: 'integer' }).int64).toBeUndefined();
  });

  it('lists each declared bound with its neighbour outside, in one order', () => {
    const shown = (schema: Record<string, unknown>) => edges(factsOf(schema)).map((e) => [e.of, e.value, e.inside, e.class]);
    expect(shown({ type: 'integer', minimum: 1, maximum: 10, multipleOf: 3 })).toEqual([
      ['value', 3, true, 'bound'],
      ['value', 0, false, 'bound'],
      ['value', 9, true, 'bound'],
      ['value', 11, false, 'bound'],
      ['value', 4, false, 'multiple-of'],
    ]);
    expect(shown({ type: 'integer', format: 'int32' })).toEqual([
      ['value', INT32.min, true, 'bound'],
      ['value', INT32.min - 1, false, 'bound'],
      ['value', INT32.max, true, 'bound'],
      ['value', INT32.max + 1, false, 'bound'],
    ]);
    expect(shown({ type: 'integer', format: 'int64' })).toEqual([
      ['value', INT64.min, true, 'bound'],
      ['value', INT64.max, true, 'bound'],
    ]);
    expect(shown({ type: 'number', exclusiveMinimum: 0, maximum: 1 })).toEqual([
      ['value', 0, false, 'bound'],
      ['value', 1, true, 'bound'],
      ['value', 2, false, 'bound'],
    ]);
    expect(shown({ type: 'string', minLength: 2, maxLength: 4 })).toEqual([
      ['length', 2, true, 'bound'],
      ['length', 1, false, 'bound'],
      ['length', 4, true, 'bound'],
      ['length', 5, false, 'bound'],
    ]);
    // A format decides what a string looks like: no length edge is built for it.
    expect(shown({ type: 'string', format: 'uuid', maxLength: 36 })).toEqual([]);
    expect(shown({ type: 'array', maxItems: 2 })).toEqual([
      ['items', 2, true, 'bound'],
      ['items', 3, false, 'bound'],
    ]);
  });

  it('merges allOf parts by the table: the tighter bound wins, properties and required are combined', () => {
    const merged = mergeSchemas([
      { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], minProperties: 1 },
      { properties: { a: { minimum: 2 }, b: { type: 'string' } }, required: ['b'], minProperties: 2, maxProperties: 5 },
      { maxProperties: 3 },
    ]);
    expect(merged).toEqual({
      type: 'object',
      minProperties: 2,
      maxProperties: 3,
      properties: { a: { allOf: [{ type: 'integer' }, { minimum: 2 }] }, b: { type: 'string' } },
      required: ['a', 'b'],
    });
  });

  // The three generators read a schema through the same facts: every value each one makes is one the schema
  // accepts (the validity oracle of the coverage phase), for the keywords the table holds.
  const schemas: Array<Record<string, unknown>> = [
    { type: 'integer', minimum: 3, maximum: 9 },
    { type: 'integer', exclusiveMinimum: -4, exclusiveMaximum: 40, multipleOf: 4 },
    { type: 'integer', format: 'int32' },
    { type: 'integer', format: 'int64', minimum: 10 },
    { type: 'number', exclusiveMinimum: 0, maximum: 2.5 },
    { type: 'number', multipleOf: 0.25, minimum: -1, maximum: 1 },
    { type: 'string', minLength: 3, maxLength: 5 },
    { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' },
    { type: 'string', enum: ['red', 'green'] },
    { type: ['string', 'null'], maxLength: 2 },
    { type: 'array', items: { type: 'integer', maximum: 3 }, minItems: 1, maxItems: 3 },
    { type: 'array', items: { type: 'string', enum: ['p', 'q'] }, uniqueItems: true, minItems: 2 },
    { type: 'object', properties: { n: { type: 'integer', minimum: 1 }, s: { type: 'string', maxLength: 3 } }, required: ['n'] },
    { allOf: [{ type: 'integer', minimum: 0 }, { maximum: 5 }] },
  ];

  it.each(schemas.map((s) => [JSON.stringify(s), s] as const))('values, arbitraries and edge values of %s are all accepted', (_name, schema) => {
    for (const seed of [1, 2, 3]) {
      const value = generate(schema, new Random(String(seed)));
      expect(value).not.toBe(UNKNOWN);
      expect(accepts(schema, value), `generate: ${JSON.stringify(value)}`).toBe(true);
    }
    for (const value of boundaryValues(schema, new Random(String(4)))) expect(accepts(schema, value), `boundary: ${JSON.stringify(value)}`).not.toBe(false);
    const arb = schemaArbitrary(schema, { random: new Random(String(5)) });
    expect(arb).toBeDefined();
    for (const value of fc.sample(arb!, { seed: 6, numRuns: 40 })) {
      const json = typeof value === 'bigint' ? Number(value) : value;
      expect(accepts(schema, json), `arbitrary: ${String(value)}`).toBe(true);
    }
  });
});
