/** Operation selectors of --include/--exclude (table-driven). */
import { describe, expect, test } from 'vitest';
import { matchesSelector, selectOperations } from '../../src/runner/execute/select.ts';
import type { Operation } from '../../src/runner/model.ts';

const op = (operationId: string, method: Operation['method'], path: string, tags: string[] = []): Operation =>
  ({ operationId, method, path, group: `/${path.split('/')[1]}`, service: 'customer-service', tags, specFile: 'x', pointer: '', parameters: [], responses: [], secured: true, extensions: {} }) as Operation;

const ops = [
  op('create-address-type', 'POST', '/address-types', ['Address types']),
  op('delete-address-type', 'DELETE', '/address-types/{id}', ['Address types']),
  op('get-address-type-field-list', 'GET', '/address-types/{id}/fields', ['Fields']),
  op('customer-get-cache-key-list', 'GET', '/caches/keys'),
];

describe('matchesSelector', () => {
  const table: Array<[string, string[]]> = [
    ['create-address-type', ['create-address-type']],
    ['operation:delete-address-type', ['delete-address-type']],
    ['/address-types', ['create-address-type', 'delete-address-type', 'get-address-type-field-list']],
    ['group:caches', ['customer-get-cache-key-list']],
    ['customer-service', ops.map((o) => o.operationId)],
    ['tag:address types', ['create-address-type', 'delete-address-type']],
    ['GET', ['get-address-type-field-list', 'customer-get-cache-key-list']],
    ['method:delete', ['delete-address-type']],
    ['/address-types/*', ['delete-address-type']],
    ['/address-types/**', ['create-address-type', 'delete-address-type', 'get-address-type-field-list']],
    ['path:/caches/*', ['customer-get-cache-key-list']],
    ['/address-types/{id}', ['delete-address-type']],
    ['nothing-like-this', []],
  ];
  test.each(table)('%s', (selector, want) => {
    expect(ops.filter((o) => matchesSelector(o, selector)).map((o) => o.operationId)).toEqual(want);
  });

  test('include and exclude combine', () => {
    const picked = selectOperations(ops, { include: ['GET', 'tag:Address types'], exclude: ['method:DELETE'] });
    expect(picked.map((o) => o.operationId).sort()).toEqual(['create-address-type', 'customer-get-cache-key-list', 'get-address-type-field-list']);
  });
});
