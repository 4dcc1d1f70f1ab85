// contract/catalog.yaml counts every operation of the publication (seed sections 1, 4.2, 4.4, 4.5, 4.6)
// and agrees with the description files and the service profile.
import { beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CATALOG_SCHEMA } from '../../src/runner/schemas/index.ts';
import {
  arr,
  at,
  CUSTOMER_FILE,
  DESCRIPTION_FILES,
  FOREIGN_TRADE_FILE,
  loadContract,
  obj,
  readYaml,
  str,
  type Obj,
  type OperationEntry,
} from './support.ts';

interface CatalogOperation {
  operationId: string;
  assigned?: true;
  purpose?: string;
  method?: string;
  path?: string;
  status: 'described' | 'not-described';
  file?: string;
  reason?: string;
}

interface CatalogGroup {
  prefix: string;
  service: string;
  inGroupTable: boolean;
  count: number;
  operations: CatalogOperation[];
  unlisted?: { count: number; reason: string };
}

interface Catalog {
  title: string;
  contractVersion: string;
  services: Array<{ id: string; baseUrl: string; file: string }>;
  totals: { groupTable: { groups: number; operations: number }; all: number };
  groups: CatalogGroup[];
}

// Seed section 1, written by hand: the 23 resource groups and their counts.
const seedGroupTable: Record<string, number> = {
  '/address-types': 10,
  '/batch': 1,
  '/batch-catalog': 1,
  '/blacklists': 4,
  '/caches': 2,
  '/compensating-transactions': 2,
  '/consent-items': 16,
  '/consents': 12,
  '/customer-configs': 5,
  '/customer-groups': 8,
  '/customer-number-citizenid-maps': 6,
  '/customer-number-reserves': 4,
  '/customer-rules': 4,
  '/customer-segments-range': 3,
  '/customers': 126,
  '/data-migrations': 1,
  '/identity-types': 10,
  '/key-formats': 10,
  '/localizations': 10,
  '/naces': 3,
  '/occupation-types': 13,
  '/parameters': 21,
  '/potential-persons': 5,
};

// Seed 4.2 and 4.4: operations the seed names but does not show with a method and path.
const seedNamedNotDescribed: Record<string, string[]> = {
  '/address-types': ['get-address-type-list', 'get-address-type-by-id'],
  '/users': [
    'exchange-user-token',
    'generate-user-password',
    'get-user-list',
    'get-current-user',
    'change-user-password',
  ],
};

const schema = obj(JSON.parse(readFileSync(CATALOG_SCHEMA, 'utf8')), 'catalog.schema.json');
const validate = new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

let catalog: Catalog;
let operations: OperationEntry[] = [];
let apis = new Map<string, Obj>();

beforeAll(async () => {
  const raw = readYaml('catalog.yaml');
  if (!validate(raw)) throw new Error(`catalog.yaml is invalid: ${JSON.stringify(validate.errors)}`);
  catalog = raw as unknown as Catalog; // shape checked by the schema just above
  ({ operations, apis } = await loadContract());
});

const allCatalogOperations = (): Array<CatalogOperation & { group: CatalogGroup }> =>
  catalog.groups.flatMap((group) => group.operations.map((op) => ({ ...op, group })));

describe('schema', () => {
  test('catalog.yaml validates against catalog.schema.json', () => {
    expect(validate(readYaml('catalog.yaml'))).toBe(true);
  });

  test('the schema is closed: every object in it forbids unknown keys', () => {
    const open: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${pointer}/${index}`));
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
      const record = node as Obj;
      if (record['type'] === 'object' && record['additionalProperties'] !== false) open.push(pointer);
      for (const [key, value] of Object.entries(record)) walk(value, `${pointer}/${key}`);
    };
    walk(schema, '');
    expect(open).toEqual([]);
  });

  test.each<[string, (copy: Catalog) => unknown]>([
    ['an unknown top-level key', (c) => ({ ...c, extra: 1 })],
    ['an unknown group key', (c) => ({ ...c, groups: [{ ...c.groups[0], note: 'x' }] })],
    [
      'a described operation without a file',
      (c) => ({ ...c, groups: [{ ...c.groups[0], operations: [{ operationId: 'x', method: 'GET', path: '/x', status: 'described' }] }] }),
    ],
    [
      'a not-described operation without a reason',
      (c) => ({ ...c, groups: [{ ...c.groups[0], operations: [{ operationId: 'x', status: 'not-described' }] }] }),
    ],
    [
      'a not-described operation that names a file',
      (c) => ({
        ...c,
        groups: [{ ...c.groups[0], operations: [{ operationId: 'x', status: 'not-described', reason: 'r', file: 'f' }] }],
      }),
    ],
    ['assigned: false (only true is meaningful)', (c) => ({ ...c, groups: [{ ...c.groups[0], operations: [{ operationId: 'x', status: 'not-described', reason: 'r', assigned: false }] }] })],
  ])('rejects %s', (_name, mutate) => {
    expect(validate(mutate(structuredClone(catalog)))).toBe(false);
  });
});

describe('counts', () => {
  test('title and version are the publication\'s', () => {
    expect(catalog.title).toBe('Customer');
    expect(catalog.contractVersion).toBe('da1dea94286d');
  });

  test('the group table: the seed\'s 23 groups with their counts, 277 operations', () => {
    const table = catalog.groups.filter((group) => group.inGroupTable);
    expect(Object.fromEntries(table.map((group) => [group.prefix, group.count]))).toEqual(seedGroupTable);
    expect(table).toHaveLength(23);
    expect(table.reduce((sum, group) => sum + group.count, 0)).toBe(277);
    expect(catalog.totals.groupTable).toEqual({ groups: 23, operations: 277 });
    expect(table.every((group) => group.service === 'customer-service')).toBe(true);
  });

  test('the /users group has 8 operations, all named', () => {
    const users = catalog.groups.filter((group) => group.prefix === '/users');
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ service: 'customer-service', inGroupTable: false, count: 8 });
    expect(users[0]?.operations).toHaveLength(8);
    expect(users[0]?.unlisted).toBeUndefined();
  });

  test('the foreign-trade group has 2 operations on the foreign-trade service', () => {
    const foreign = catalog.groups.filter((group) => group.service === 'foreign-trade-service');
    expect(foreign.map((group) => [group.prefix, group.count, group.inGroupTable])).toEqual([
      ['/reference-numbers', 2, false],
    ]);
  });

  test('there are no other groups, and 287 operations in all', () => {
    expect(catalog.groups).toHaveLength(25);
    const total = catalog.groups.reduce((sum, group) => sum + group.count, 0);
    expect(total).toBe(287);
    expect(catalog.totals.all).toBe(287);
  });

  test('each group\'s listed operations and unlisted count add up to its count', () => {
    for (const group of catalog.groups) {
      expect(group.operations.length + (group.unlisted?.count ?? 0), group.prefix).toBe(group.count);
    }
  });

  test('groups known only by their count say so', () => {
    const countOnly = catalog.groups.filter((group) => group.operations.length === 0);
    expect(countOnly.map((group) => group.prefix).sort()).toEqual(
      Object.keys(seedGroupTable).filter((prefix) => !['/address-types', '/caches'].includes(prefix)).sort(),
    );
    for (const group of countOnly) {
      expect(group.unlisted?.reason, group.prefix).toBe('operations not shown (only the count)');
    }
  });

  test('coverage: 15 described of 287', () => {
    const all = allCatalogOperations();
    expect(all.filter((op) => op.status === 'described')).toHaveLength(15);
    const notDescribed =
      all.filter((op) => op.status === 'not-described').length +
      catalog.groups.reduce((sum, group) => sum + (group.unlisted?.count ?? 0), 0);
    expect(notDescribed).toBe(287 - 15);
  });
});

describe('operations', () => {
  test('operation ids are unique', () => {
    const ids = allCatalogOperations().map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the operations the seed names without a method and path are not described, with the reason', () => {
    for (const [prefix, ids] of Object.entries(seedNamedNotDescribed)) {
      const group = catalog.groups.find((candidate) => candidate.prefix === prefix);
      const notDescribed = (group?.operations ?? []).filter((op) => op.status === 'not-described');
      expect(notDescribed.map((op) => op.operationId).sort(), prefix).toEqual([...ids].sort());
      for (const op of notDescribed) {
        expect(op.reason, op.operationId).toMatch(/^method and path not shown/);
        expect(op.method).toBeUndefined();
        expect(op.path).toBeUndefined();
        expect(op.assigned, `${op.operationId}: the seed gives no id`).toBe(true);
      }
    }
  });

  test('every described operation is in its description file with the same method and path', () => {
    for (const op of allCatalogOperations().filter((candidate) => candidate.status === 'described')) {
      const hit = operations.find((entry) => entry.operationId === op.operationId);
      expect(hit, op.operationId).toBeDefined();
      expect({ file: hit?.file, method: hit?.method.toUpperCase(), path: hit?.path }, op.operationId).toEqual({
        file: op.file,
        method: op.method,
        path: op.path,
      });
      expect(op.path?.startsWith(op.group.prefix), op.operationId).toBe(true);
    }
  });

  test('every operation in the description files is in the catalog as described, in its service\'s group', () => {
    const byId = new Map(allCatalogOperations().map((op) => [op.operationId, op]));
    for (const entry of operations) {
      const op = byId.get(entry.operationId);
      expect(op?.status, entry.operationId).toBe('described');
      const service = str(at(apis.get(entry.file), 'x-service-id'), 'x-service-id');
      expect(op?.group.service, entry.operationId).toBe(service);
    }
  });

  test('assigned ids are marked the same way in the catalog and in the description files', () => {
    const byId = new Map(allCatalogOperations().map((op) => [op.operationId, op]));
    for (const entry of operations) {
      expect(byId.get(entry.operationId)?.assigned === true, entry.operationId).toBe(
        entry.operation['x-operation-id-assigned'] === true,
      );
    }
  });
});

describe('services', () => {
  test('each service names its description file, whose x-service-id and server match', () => {
    expect(catalog.services.map((service) => service.file).sort()).toEqual([...DESCRIPTION_FILES].sort());
    for (const service of catalog.services) {
      const api = apis.get(service.file);
      expect(at(api, 'x-service-id')).toBe(service.id);
      const server = obj(arr(at(api, 'servers'), 'servers')[0], 'server');
      expect(server['url']).toBe(service.baseUrl);
    }
    expect(catalog.services.map((service) => service.id)).toEqual(['customer-service', 'foreign-trade-service']);
    expect(catalog.services.find((s) => s.id === 'customer-service')?.file).toBe(CUSTOMER_FILE);
    expect(catalog.services.find((s) => s.id === 'foreign-trade-service')?.file).toBe(FOREIGN_TRADE_FILE);
  });

  test('every group belongs to a declared service', () => {
    const ids = new Set(catalog.services.map((service) => service.id));
    for (const group of catalog.groups) expect(ids.has(group.service), group.prefix).toBe(true);
  });
});

describe('agreement with the service profile (contract/profile.yaml)', () => {
  const profile = readYaml('profile.yaml');

  /** Operation ids the profile names (operation, and undo where an entry has one). */
  const referenced = (): string[] => {
    const lists: Array<[string[], string[]]> = [
      [['operationCodes'], ['operation']],
      [['sideEffects'], ['operation', 'undo']],
      [['createShape', 'operations'], ['operation']],
    ];
    return lists.flatMap(([keys, fields]) =>
      arr(at(profile, ...keys), keys.join('.')).flatMap((item) => {
        const entry = obj(item, keys.join('.'));
        return fields.filter((field) => entry[field] !== undefined).map((field) => str(entry[field], field));
      }),
    );
  };

  test('every operation id the profile names is in the catalog', () => {
    const known = new Set(allCatalogOperations().map((op) => op.operationId));
    const unknown = referenced().filter((id) => !known.has(id));
    expect(unknown).toEqual([]);
  });

  test('the create-shape operations are the ones marked x-create-shape in the descriptions', () => {
    const fromProfile = arr(at(profile, 'createShape', 'operations'), 'createShape.operations').map((item) =>
      str(obj(item, 'createShape operation')['operation'], 'operation'),
    );
    const marked = operations.filter((entry) => entry.operation['x-create-shape'] === true).map((e) => e.operationId);
    expect(marked.sort()).toEqual(fromProfile.sort());
  });
});
