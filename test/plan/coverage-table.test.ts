/**
 * The table of input classes (plan/coverage-table.ts): one row per class, each with a tier and makers that exist;
 * every class the tiers know and every class the coverage generator emits has a row.
 */
import { describe, expect, test } from 'vitest';
import type { JsonSchema, Operation, ParameterSpec } from '../../src/runner/model.ts';
import * as bodyShapes from '../../src/runner/plan/body-shapes.ts';
import * as cases from '../../src/runner/plan/cases.ts';
import * as bodyMakers from '../../src/runner/plan/coverage-body-makers.ts';
import { coverageRequests } from '../../src/runner/plan/coverage-classes.ts';
import * as makers from '../../src/runner/plan/coverage-makers.ts';
import { COVERAGE_TABLE } from '../../src/runner/plan/coverage-table.ts';
import { INPUT_CLASSES } from '../../src/runner/plan/input-tiers.ts';
import * as mediaNegatives from '../../src/runner/plan/media-negatives.ts';
import * as refusedCreate from '../../src/runner/plan/refused-create.ts';
import { Random } from '../../src/runner/plan/random.ts';

const MODULES: Array<Record<string, unknown>> = [makers, bodyMakers, bodyShapes, cases, mediaNegatives, refusedCreate];
const ids = COVERAGE_TABLE.map((r) => r.id as string);

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [{ status: '200', contentTypes: ['application/json', 'application/xml'], pointer: '' }, { status: '400', contentTypes: ['application/problem+json'], pointer: '' }], secured: false, extensions: {}, ...over };
}
const param = (name: string, where: ParameterSpec['in'], schema: JsonSchema, required = false): ParameterSpec => ({ name, in: where, required: where === 'path' || required, schema, pointer: '' });

describe('the table of input classes', () => {
  test('one row per class, each with a tier, where it applies and makers that exist', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of COVERAGE_TABLE) {
      expect(['must-reject', 'lenient', 'valid', 'response-only'], row.id).toContain(row.tier);
      expect(row.description.length, row.id).toBeGreaterThan(0);
      if (row.level === 'input') expect('places' in row && row.places.length > 0 && 'kinds' in row && row.kinds.length > 0, row.id).toBe(true);
      expect(row.makers.length, row.id).toBeGreaterThan(0);
      for (const maker of row.makers) expect(MODULES.some((m) => typeof m[maker] === 'function'), `${row.id}: ${maker}`).toBe(true);
    }
  });

  test('the tiers are the rows', () => {
    expect(Object.keys(INPUT_CLASSES)).toEqual(ids);
    for (const row of COVERAGE_TABLE) expect(INPUT_CLASSES[row.id], row.id).toBe(row.tier);
  });

  test('every class the generator emits has a row', () => {
    const body: JsonSchema = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 8 }, count: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 2 }, id: { type: 'string', format: 'uuid' }, kind: { type: 'string', enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' } }, price: { type: 'number' } },
    };
    const emitted = [
      ...coverageRequests(
        op({ method: 'POST', path: '/things/{id}', parameters: [param('id', 'path', { type: 'string' }), param('page', 'query', { type: 'integer', minimum: 1 }), param('X-Trace', 'header', { type: 'string' }, true)], requestBody: { required: true, contentType: 'application/json', schema: body, pointer: '' } }),
        { pathParams: { id: 'a' }, query: { page: 1 }, headers: { 'X-Trace': 't' }, body: { name: 'abc', count: 2 } },
        new Random('table'),
        1000,
      ),
      ...coverageRequests(op({ method: 'GET', path: '/things', parameters: [param('filter', 'query', { type: 'string' }), param('ids', 'query', { type: 'array', items: { type: 'integer' } })] }), { pathParams: {}, query: {} }, new Random('table'), 1000),
    ].map((i) => i.class);
    expect(emitted.length).toBeGreaterThan(50);
    for (const c of new Set(emitted)) expect(ids, c).toContain(c);
  });
});
