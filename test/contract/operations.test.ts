// Every operation the seed's endpoint tables show with a method and path (sections 4.2 - 4.5) is in the
// description files exactly as the seed gives it. The table below is written by hand from the seed; it is
// deliberately not derived from the contract files.
import { beforeAll, describe, expect, test } from 'vitest';
import {
  arr,
  at,
  CUSTOMER_FILE,
  FOREIGN_TRADE_FILE,
  loadContract,
  obj,
  strings,
  type DescriptionFile,
  type Obj,
  type OperationEntry,
} from './support.ts';

type Method = 'get' | 'put' | 'post' | 'delete';

/** What the seed says about a request body. */
type BodyRow =
  | { kind: 'none' }
  /** Field names shown; `required` lists exactly the fields the seed marks required. */
  | { kind: 'fields'; fields: string[]; required: string[] }
  /** Field names shown, their types and requiredness not shown. */
  | { kind: 'untyped-fields'; fields: string[] }
  | { kind: 'not-shown' };

type ResponseRow =
  | { kind: 'create-shape'; record: string }
  | { kind: 'array'; record: string }
  | { kind: 'single'; record: string }
  | { kind: 'undeclared' };

interface SeedRow {
  operationId: string;
  method: Method;
  path: string;
  file: DescriptionFile;
  /** The seed gives no operation id: the id is the project's. */
  assigned: boolean;
  /** Path parameters, all uuid and required. */
  pathParams: string[];
  /** Query parameters (all optional) with the type the seed gives, or null when it gives none. */
  query: Array<{ name: string; type: 'string' | 'int32' | 'object' | null }>;
  body: BodyRow;
  response: ResponseRow;
}

const A = CUSTOMER_FILE;
const F = FOREIGN_TRADE_FILE;
const listQuery: SeedRow['query'] = [
  { name: 'filter', type: 'object' },
  { name: 'orderBy', type: 'string' },
  { name: 'orderSort', type: 'string' },
  { name: 'pageIndex', type: 'int32' },
  { name: 'pageSize', type: 'int32' },
];

const seedTable: SeedRow[] = [
  // 4.2 Address types
  {
    operationId: 'create-address-type', method: 'post', path: '/address-types', file: A, assigned: false,
    pathParams: [], query: [],
    body: { kind: 'fields', fields: ['code', 'name', 'country'], required: ['code', 'name'] },
    response: { kind: 'create-shape', record: 'AddressType' },
  },
  {
    operationId: 'update-address-type', method: 'put', path: '/address-types/{id}', file: A, assigned: false,
    pathParams: ['id'], query: [],
    body: { kind: 'fields', fields: ['isActive', 'name', 'country'], required: ['isActive', 'name'] },
    response: { kind: 'undeclared' },
  },
  {
    operationId: 'delete-address-type', method: 'delete', path: '/address-types/{id}', file: A, assigned: false,
    pathParams: ['id'], query: [], body: { kind: 'none' }, response: { kind: 'undeclared' },
  },
  {
    operationId: 'get-address-type-field-list', method: 'get', path: '/address-types/{id}/fields', file: A,
    assigned: false, pathParams: ['id'], query: listQuery, body: { kind: 'none' },
    response: { kind: 'array', record: 'AddressTypeFieldWithTranslations' },
  },
  {
    operationId: 'create-address-type-field', method: 'post', path: '/address-types/{id}/fields', file: A,
    assigned: false, pathParams: ['id'], query: [],
    body: {
      kind: 'fields',
      fields: ['fieldKey', 'isMandatory', 'sequenceNumber', 'isVisible', 'separatorMark'],
      required: ['fieldKey', 'isMandatory', 'sequenceNumber'],
    },
    response: { kind: 'create-shape', record: 'CreatedAddressTypeField' },
  },
  {
    operationId: 'get-address-type-field-by-id', method: 'get', path: '/address-types/{id}/fields/{fieldId}',
    file: A, assigned: false, pathParams: ['id', 'fieldId'], query: [], body: { kind: 'none' },
    response: { kind: 'single', record: 'AddressTypeField' },
  },
  {
    operationId: 'update-address-type-field', method: 'put', path: '/address-types/{id}/fields/{fieldId}',
    file: A, assigned: false, pathParams: ['id', 'fieldId'], query: [],
    body: {
      kind: 'fields',
      fields: ['fieldKey', 'isActive', 'isMandatory', 'sequenceNumber', 'isVisible', 'separatorMark'],
      required: ['fieldKey', 'isActive', 'isMandatory', 'sequenceNumber'],
    },
    response: { kind: 'undeclared' },
  },
  {
    operationId: 'delete-address-type-field', method: 'delete', path: '/address-types/{id}/fields/{fieldId}',
    file: A, assigned: false, pathParams: ['id', 'fieldId'], query: [], body: { kind: 'none' },
    response: { kind: 'undeclared' },
  },
  // 4.3 Caches
  {
    operationId: 'customer-get-cache-key-list', method: 'get', path: '/caches/keys', file: A, assigned: false,
    pathParams: [],
    query: [
      { name: 'orderBy', type: null },
      { name: 'orderSort', type: null },
      { name: 'pageIndex', type: null },
      { name: 'pageSize', type: null },
    ],
    body: { kind: 'none' },
    response: { kind: 'array', record: 'CacheKeyRecord' },
  },
  {
    operationId: 'customer-refresh-cache', method: 'post', path: '/caches/refresh', file: A, assigned: false,
    pathParams: [], query: [],
    body: { kind: 'untyped-fields', fields: ['key', 'mode', 'isSharedBetweenApplications', 'isSharedBetweenTenants'] },
    response: { kind: 'create-shape', record: 'CacheRefreshResult' },
  },
  // 4.4 Users (only the three with a method and path)
  {
    operationId: 'create-user', method: 'post', path: '/users', file: A, assigned: true, pathParams: [], query: [],
    body: {
      kind: 'untyped-fields',
      fields: ['firstName', 'lastName', 'userName', 'attributes', 'bnplCustomerGroupId', 'email', 'generatePassword', 'realm'],
    },
    response: { kind: 'create-shape', record: 'UserCreationResult' },
  },
  {
    operationId: 'send-forget-password-otp', method: 'post', path: '/users/forget-password', file: A, assigned: true,
    pathParams: [], query: [], body: { kind: 'untyped-fields', fields: ['userIdentifier'] },
    response: { kind: 'single', record: 'SendotpForgetPasswordResponse' },
  },
  {
    operationId: 'verify-forget-password-otp', method: 'post', path: '/users/forget-password-verify', file: A,
    assigned: true, pathParams: [], query: [],
    body: { kind: 'untyped-fields', fields: ['oneTimePassword', 'transactionId', 'username'] },
    response: { kind: 'undeclared' },
  },
  // 4.5 Foreign-trade reference numbers
  {
    operationId: 'get-foreign-trade-reference-number', method: 'post', path: '/reference-numbers/generate', file: F,
    assigned: false, pathParams: [], query: [],
    body: {
      kind: 'fields',
      fields: ['direction', 'isDomestic', 'transactionType'],
      required: ['direction', 'isDomestic', 'transactionType'],
    },
    response: { kind: 'single', record: 'ReferenceNumberDto' },
  },
  {
    operationId: 'validate-reference-number', method: 'post', path: '/reference-numbers/validate', file: F,
    assigned: false, pathParams: [], query: [], body: { kind: 'not-shown' },
    response: { kind: 'single', record: 'ValidateReferenceNumberResultDto' },
  },
];

let operations: OperationEntry[] = [];
let apis = new Map<DescriptionFile, Obj>();
beforeAll(async () => {
  ({ operations, apis } = await loadContract());
});

/** A component schema in its dereferenced form (the operations are dereferenced too, so they compare by value). */
function componentSchema(entry: OperationEntry, name: string): unknown {
  return at(apis.get(entry.file), 'components', 'schemas', name);
}

function find(row: SeedRow): OperationEntry {
  const hit = operations.find((entry) => entry.operationId === row.operationId);
  if (!hit) throw new Error(`operation ${row.operationId} is not in any description file`);
  return hit;
}

function jsonBodySchema(entry: OperationEntry): Obj {
  return obj(at(entry.operation, 'requestBody', 'content', 'application/json', 'schema'), `${entry.operationId} body`);
}

function response200(entry: OperationEntry): Obj {
  return obj(at(entry.operation, 'responses', '200'), `${entry.operationId} 200`);
}

/** Keys of a schema that constrain values (annotation keywords removed): empty means "any value". */
function constraints(schema: Obj): string[] {
  // Annotations are no constraints: `x-type: not shown` says a type is unknown, it sets none.
  return Object.keys(schema).filter((key) => !['description', 'title', '$comment', 'examples'].includes(key) && !key.startsWith('x-'));
}

const sorted = (values: string[]): string[] => [...values].sort();

test('the description files hold exactly the seed operations that have a method and path (15)', () => {
  expect(sorted(operations.map((entry) => entry.operationId))).toEqual(sorted(seedTable.map((row) => row.operationId)));
  expect(operations).toHaveLength(15);
});

test('operation ids are unique across the description files', () => {
  const ids = operations.map((entry) => entry.operationId);
  expect(new Set(ids).size).toBe(ids.length);
});

describe.each(seedTable)('$operationId', (row) => {
  test(`is ${row.method.toUpperCase()} ${row.path} in ${row.file}`, () => {
    const entry = find(row);
    expect({ file: entry.file, method: entry.method, path: entry.path }).toEqual({
      file: row.file,
      method: row.method,
      path: row.path,
    });
  });

  test(row.assigned ? 'is marked as a project-assigned id' : 'is not marked as assigned (the seed gives the id)', () => {
    const mark = find(row).operation['x-operation-id-assigned'];
    expect(mark === true).toBe(row.assigned);
  });

  test('path parameters: exactly the seed\'s, each a required uuid string', () => {
    const params = find(row).parameters.filter((p) => p['in'] === 'path');
    expect(sorted(params.map((p) => String(p['name'])))).toEqual(sorted(row.pathParams));
    for (const p of params) {
      expect(p['required']).toBe(true);
      expect(p['schema']).toEqual({ type: 'string', format: 'uuid' });
    }
  });

  test('query parameters: exactly the seed\'s, all optional, typed only as the seed types them', () => {
    const params = find(row).parameters.filter((p) => p['in'] === 'query');
    expect(sorted(params.map((p) => String(p['name'])))).toEqual(sorted(row.query.map((q) => q.name)));
    for (const q of row.query) {
      const p = params.find((candidate) => candidate['name'] === q.name);
      if (!p) throw new Error(`query parameter ${q.name} missing`);
      expect(p['required'] === true).toBe(false);
      const schema = obj(p['schema'], `${q.name} schema`);
      switch (q.type) {
        case 'int32':
          expect(constraints(schema)).toEqual(expect.arrayContaining(['type', 'format']));
          expect(schema).toMatchObject({ type: 'integer', format: 'int32' });
          break;
        case 'string':
          expect(schema).toMatchObject({ type: 'string' });
          break;
        case 'object':
          expect(schema).toMatchObject({ type: 'object' });
          // Serialisation of an object in the query string is not shown: no style is claimed.
          expect(p['style']).toBeUndefined();
          expect(p['x-serialization']).toBe('not shown');
          break;
        case null:
          expect(constraints(schema)).toEqual([]);
          expect(String(p['description'] ?? schema['description'])).toMatch(/not shown/i);
          break;
      }
    }
  });

  test('request body: exactly the seed\'s fields and required list', () => {
    const entry = find(row);
    const body = row.body;
    switch (body.kind) {
      case 'none':
        expect(entry.operation['requestBody']).toBeUndefined();
        break;
      case 'fields': {
        const schema = jsonBodySchema(entry);
        expect(sorted(strings(schema['required'], 'required'))).toEqual(sorted(body.required));
        expect(sorted(Object.keys(obj(schema['properties'], 'properties')))).toEqual(sorted(body.fields));
        expect(schema['additionalProperties']).toBeUndefined();
        expect(at(entry.operation, 'requestBody', 'required')).toBe(true);
        break;
      }
      case 'untyped-fields': {
        const schema = jsonBodySchema(entry);
        expect(schema['required']).toBeUndefined();
        const properties = obj(schema['properties'], 'properties');
        expect(sorted(Object.keys(properties))).toEqual(sorted(body.fields));
        for (const [name, property] of Object.entries(properties)) {
          const p = obj(property, name);
          expect(constraints(p), `${name} has no type`).toEqual([]);
          expect(String(p['description'])).toMatch(/type not shown/i);
        }
        break;
      }
      case 'not-shown': {
        const schema = jsonBodySchema(entry);
        expect(constraints(schema)).toEqual([]);
        expect(String(at(entry.operation, 'requestBody', 'description'))).toMatch(/not shown/i);
        break;
      }
    }
  });

  test('200 response: the shape the seed gives', () => {
    const entry = find(row);
    const ok = response200(entry);
    const response = row.response;
    if (response.kind === 'undeclared') {
      expect(ok['content']).toBeUndefined();
      return;
    }
    const schema = obj(at(ok, 'content', 'application/json', 'schema'), '200 schema');
    switch (response.kind) {
      case 'single':
        expect(schema).toEqual(obj(componentSchema(entry, response.record), response.record));
        break;
      case 'array':
        expect(schema['type']).toBe('array');
        expect(schema['items']).toEqual(componentSchema(entry, response.record));
        break;
      case 'create-shape': {
        expect(entry.operation['x-create-shape']).toBe(true);
        const shapes = arr(schema['anyOf'], 'anyOf').map((shape, index) => obj(shape, `anyOf[${index}]`));
        expect(shapes).toHaveLength(3);
        const record = componentSchema(entry, response.record);
        expect(shapes[0]).toEqual(record);
        expect(shapes[1]).toEqual({ type: 'array', items: record });
        const page = shapes[2];
        expect(page).toMatchObject({ type: 'object', required: ['data'] });
        expect(at(page, 'properties', 'total')).toEqual({ type: 'integer', format: 'int64' });
        expect(at(page, 'properties', 'data')).toEqual({ type: 'array', items: record });
        break;
      }
    }
  });
});
