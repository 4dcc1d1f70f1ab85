/**
 * The resource model and the relations answer from an index of the operations: the answers are the ones a
 * scan of every operation gives (the first match in contract order), on paths with trailing slashes, other
 * parameter names, nested collections, PUT-to-create, links and two services; and a contract whose
 * operations list grows is indexed again.
 */
import { expect, test } from 'vitest';
import type { Contract, Operation } from '../../src/runner/model.ts';
import { createOf, itemParam, listOf, readersOfCreated } from '../../src/runner/plan/relations.ts';
import { deleterFor, producerFor, readerFor } from '../../src/runner/plan/resources.ts';

const list = { type: 'array', items: { type: 'object' } };

function op(service: string, method: Operation['method'], path: string, extra: Partial<Operation> = {}): Operation {
  return {
    operationId: `${service}:${method} ${path}`,
    method,
    path,
    group: '/',
    service,
    specFile: 'x.yaml',
    pointer: '',
    parameters: [],
    responses: method === 'GET' && !path.endsWith('}') ? [{ status: '200', contentTypes: ['application/json'], pointer: '', schema: list }] : [],
    secured: false,
    ...(method === 'POST' || method === 'PUT' ? { requestBody: { required: true, contentType: 'application/json', schema: { type: 'object' }, pointer: '' } } : {}),
    ...extra,
  } as Operation;
}

function contract(): Contract {
  const operations: Operation[] = [];
  for (const service of ['a', 'b']) {
    operations.push(
      op(service, 'GET', '/heroes/'),
      op(service, 'POST', '/heroes/'),
      op(service, 'GET', '/heroes/{hero_id}'),
      op(service, 'PUT', '/heroes/{id}/'),
      op(service, 'DELETE', '/heroes/{heroId}'),
      op(service, 'GET', '/heroes/{hero_id}/powers'),
      op(service, 'POST', '/heroes/{hero_id}/powers'),
      op(service, 'GET', '/heroes/{hero_id}/powers/{power_id}'),
      op(service, 'DELETE', '/heroes/{hero_id}/powers/{power_id}'),
      op(service, 'GET', '/heroes/{hero_id}/stats'),
      op(service, 'PUT', '/vaults/{vault_id}'),
      op(service, 'GET', '/vaults/{vault_id}'),
      op(service, 'DELETE', '/vaults/{vault_id}'),
      op(service, 'POST', '/teams'),
      op(service, 'GET', '/teams/{}'),
      op(service, 'GET', '/teams/{team}'),
      op(service, 'GET', '/teams/{team}/members/{member}'),
      op(service, 'POST', '/links', { links: [{ name: 'thing', status: '201', operationId: `${service}:GET /linked/{thing}`, parameters: { thing: '$response.body#/thing/id' } }] } as Partial<Operation>),
      op(service, 'GET', '/linked/{thing}'),
      op(service, 'GET', '/'),
      op(service, 'POST', '/'),
      op(service, 'GET', '/{root_id}'),
    );
  }
  return { services: [], operations };
}

// The scans the index replaces, as they were written.
const shape = (path: string) => (path.replace(/\/+$/, '') || '/').replace(/\{[^}]+\}/g, '{}');
const scan = {
  readerFor: (c: Contract, o: Operation) => c.operations.find((x) => x.service === o.service && x.method === 'GET' && shape(x.path) === shape(o.path)),
  deleterFor: (c: Contract, create: Operation) =>
    create.method === 'PUT'
      ? c.operations.find((x) => x.service === create.service && x.method === 'DELETE' && shape(x.path) === shape(create.path))
      : c.operations.find((x) => x.service === create.service && x.method === 'DELETE' && /\/\{\}$/.test(shape(x.path)) && shape(x.path).replace(/\/\{\}$/, '') === shape(create.path)),
  itemParam: (c: Contract, o: Operation) => {
    const prefix = `${o.path}/{`;
    for (const x of c.operations) {
      if (x.service !== o.service || !x.path.startsWith(prefix)) continue;
      const name = x.path.slice(prefix.length).split('}')[0];
      if (name) return name;
    }
    return undefined;
  },
  producer: (c: Contract, o: Operation, param: string) => {
    for (const candidate of c.operations) {
      if (candidate.service !== o.service || candidate === o) continue;
      for (const link of candidate.links ?? []) {
        if (link.operationId === o.operationId && /^2/.test(link.status) && link.parameters[param]) return candidate;
      }
    }
    const segments = (o.path.replace(/\/+$/, '') || '/').split('/');
    const index = segments.indexOf(`{${param}}`);
    if (index < 1) return undefined;
    const collection = shape(segments.slice(0, index).join('/') || '/');
    const post = c.operations.find((x) => x.service === o.service && x.method === 'POST' && shape(x.path) === collection);
    if (post) return post;
    const item = shape(segments.slice(0, index + 1).join('/'));
    const put = c.operations.find((x) => x.service === o.service && x.method === 'PUT' && shape(x.path) === item && (x.path.replace(/\/+$/, '') || '/').split('/')[index] === `{${param}}` && x.requestBody !== undefined);
    return put && put !== o ? put : undefined;
  },
};

test('index look-ups give what a scan of every operation gives', () => {
  const c = contract();
  let compared = 0;
  for (const o of c.operations) {
    expect(readerFor(c, o)).toBe(scan.readerFor(c, o));
    expect(deleterFor(c, o)).toBe(scan.deleterFor(c, o));
    expect(itemParam(c, o)).toBe(scan.itemParam(c, o));
    for (const param of [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
      expect(producerFor(c, o, param)?.producer).toBe(scan.producer(c, o, param));
      compared++;
    }
    const readers = readersOfCreated(c, o);
    const collection = o.path.endsWith('}') ? o.path.replace(/\/\{[^}]+\}$/, '') : o.path;
    expect(createOf(c, o)).toBe(c.operations.find((x) => x.service === o.service && x.path === collection && x.method === 'POST' && !x.path.endsWith('}') && scan.itemParam(c, x) !== undefined));
    expect(listOf(c, o)).toBe(o.path.endsWith('}') ? c.operations.find((x) => x.service === o.service && x.method === 'GET' && x.path === collection && !x.path.endsWith('}')) : undefined);
    if (o.method === 'POST' && scan.itemParam(c, o)) {
      const item = `${o.path}/{${scan.itemParam(c, o)}}`;
      const expected = c.operations.filter(
        (x) => x.service === o.service && x.method === 'GET' && (x.path === item || (x.path.startsWith(`${item}/`) && x.path.split('{').length === item.split('{').length) || x.path === o.path),
      );
      expect(readers.map((r) => r.operation)).toEqual(expected);
    }
  }
  expect(compared).toBeGreaterThan(20);
  // Spot checks that the fixture above exercises what it claims to.
  const find = (id: string) => c.operations.find((o) => o.operationId === id)!;
  expect(producerFor(c, find('a:GET /linked/{thing}'), 'thing')).toMatchObject({ via: 'link', pointer: '/thing/id', producer: find('a:POST /links') });
  expect(producerFor(c, find('b:GET /vaults/{vault_id}'), 'vault_id')).toMatchObject({ via: 'put', producer: find('b:PUT /vaults/{vault_id}') });
  expect(producerFor(c, find('b:GET /heroes/{hero_id}/powers/{power_id}'), 'power_id')?.producer).toBe(find('b:POST /heroes/{hero_id}/powers'));
  expect(readerFor(c, find('a:PUT /heroes/{id}/'))).toBe(find('a:GET /heroes/{hero_id}'));
});

test('operations added to a contract after a look-up are found by the next one', () => {
  const c: Contract = { services: [], operations: [op('a', 'GET', '/things/{id}')] };
  expect(producerFor(c, c.operations[0]!, 'id')).toBeUndefined();
  c.operations.push(op('a', 'POST', '/things'));
  expect(producerFor(c, c.operations[0]!, 'id')?.producer).toBe(c.operations[1]);
  expect(readerFor(c, c.operations[1]!)).toBeUndefined();
});

test('a path parameter named by a field of a create whose request body is recursive: found, the schema walked once', () => {
  // A tree node whose children are nodes (a cycle of objects, as a dereferenced recursive $ref is): the create
  // that is sent `username` itself ranks first; no JSON text of the schema is made (it cannot be).
  const node: Record<string, unknown> = { type: 'object', properties: { username: { type: 'string' } } };
  (node['properties'] as Record<string, unknown>)['children'] = { type: 'array', items: { allOf: [node] } };
  const answers = (status: string) => [{ status, contentTypes: ['application/json'], pointer: '', schema: { type: 'object', properties: { username: { type: 'string' } } } }];
  const register = op('a', 'POST', '/users', { requestBody: { required: true, contentType: 'application/json', schema: node, pointer: '' }, responses: answers('201') } as Partial<Operation>);
  const login = op('a', 'POST', '/users/login', { responses: answers('200') } as Partial<Operation>);
  const profile = op('a', 'GET', '/profiles/{username}', { parameters: [{ name: 'username', in: 'path', required: true, schema: { type: 'string' }, pointer: '' }] } as Partial<Operation>);
  const c: Contract = { services: [], operations: [login, register, profile] };
  expect(producerFor(c, profile, 'username')).toMatchObject({ producer: register, field: 'username' });
});
