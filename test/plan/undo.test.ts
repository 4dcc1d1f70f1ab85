/**
 * Which DELETE undoes which create, from the contract alone (plan/undo.ts): collection POSTs with and without
 * trailing slashes, nested collections, PUT-to-create, response links, the profile's own undo, contracts
 * without a DELETE, and ids read from any create shape or the Location header.
 */
import { describe as suite, expect, test } from 'vitest';
import type { Contract } from '../../src/runner/model.ts';
import { describe } from '../../src/runner/description/load.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { createdIdsFor, idFromLocation, putCreated, undoOf, undoPathParams } from '../../src/runner/plan/undo.ts';

const ok = { '200': { description: 'ok' } };
const item = (name: string, type = 'integer') => ({ name, in: 'path', required: true, schema: { type } });
const json = { required: true, content: { 'application/json': { schema: { type: 'object' } } } };

function contract(paths: Record<string, unknown>): Contract {
  const { service, operations } = describe({ openapi: '3.0.3', info: { title: 't', version: '1' }, servers: [{ url: 'http://x/svc' }], paths }, 'test.json');
  return { services: [service], operations };
}

const op = (c: Contract, id: string) => c.operations.find((o) => o.operationId === id)!;

suite('the undo of a create', async () => {
  const generic = await loadProfile(GENERIC_PROFILE);

  test('a POST on a collection with a trailing slash: the DELETE on its item path, the id in its parameter', () => {
    const c = contract({
      '/heroes/': { post: { operationId: 'make', requestBody: json, responses: ok } },
      '/heroes/{hero_id}': { parameters: [item('hero_id')], delete: { operationId: 'drop', responses: ok }, get: { operationId: 'read', responses: ok } },
    });
    const undo = undoOf(c, generic, op(c, 'make'));
    expect(undo?.delete?.operationId).toBe('drop');
    expect(undo?.idParam).toBe('hero_id');
  });

  test('a nested collection: the parent value goes into the DELETE by position when the names differ', () => {
    const c = contract({
      '/owners/{owner}/pets': { parameters: [item('owner')], post: { operationId: 'add', requestBody: json, responses: ok } },
      '/owners/{ownerId}/pets/{petId}': { parameters: [item('ownerId'), item('petId', 'string')], delete: { operationId: 'remove', responses: ok } },
    });
    const undo = undoOf(c, generic, op(c, 'add'))!;
    expect(undo.delete?.operationId).toBe('remove');
    expect(undoPathParams(op(c, 'add'), undo.delete!, undo.idParam!, { owner: '7' }, 'p-1')).toEqual({ ownerId: '7', petId: 'p-1' });
  });

  test('an action POST that serves no items creates nothing to undo; a POST on an item path neither', () => {
    const c = contract({
      '/calc/add': { post: { operationId: 'add', requestBody: json, responses: ok } },
      '/things/{id}': { parameters: [item('id')], post: { operationId: 'touch', responses: ok }, delete: { operationId: 'drop', responses: ok } },
    });
    expect(undoOf(c, generic, op(c, 'add'))).toBeUndefined();
    expect(undoOf(c, generic, op(c, 'touch'))).toBeUndefined();
  });

  test('a collection with items but no DELETE: nothing can undo it, and the reason names the item path', () => {
    const c = contract({
      '/logs': { post: { operationId: 'append', requestBody: json, responses: ok } },
      '/logs/{id}': { parameters: [item('id')], get: { operationId: 'read', responses: ok } },
    });
    const undo = undoOf(c, generic, op(c, 'append'));
    expect(undo?.delete).toBeUndefined();
    expect(undo?.reason).toBe('the contract describes no DELETE on /logs/{id}');
    expect(undo?.itemParam).toBe('id');
  });

  test('PUT on an item path: its own DELETE; it created the record when it answered 201 or nothing else produces the id', () => {
    const c = contract({
      '/files/{name}': { parameters: [item('name', 'string')], put: { operationId: 'put', requestBody: json, responses: ok }, delete: { operationId: 'rm', responses: ok } },
      '/docs': { post: { operationId: 'newDoc', requestBody: json, responses: ok } },
      '/docs/{id}': { parameters: [item('id')], put: { operationId: 'replace', requestBody: json, responses: ok }, delete: { operationId: 'rmDoc', responses: ok } },
    });
    expect(undoOf(c, generic, op(c, 'put'))?.delete?.operationId).toBe('rm');
    expect(putCreated(c, op(c, 'put'), 200)).toBe(true);
    // An update of a record a POST made is not a create, unless the deployment says it created one (201).
    expect(putCreated(c, op(c, 'replace'), 200)).toBe(false);
    expect(putCreated(c, op(c, 'replace'), 201)).toBe(true);
    expect(putCreated(c, op(c, 'put'), 400)).toBe(false);
  });

  test('a response link names the record: the DELETE of the linked item path, the id at the link pointer', () => {
    const c = contract({
      '/orders': {
        post: {
          operationId: 'order',
          requestBody: json,
          responses: { '201': { description: 'made', links: { get: { operationId: 'getOrder', parameters: { orderNo: '$response.body#/order/number' } } } } },
        },
      },
      '/order-items/{orderNo}': { parameters: [item('orderNo', 'string')], get: { operationId: 'getOrder', responses: ok }, delete: { operationId: 'cancel', responses: ok } },
    });
    const undo = undoOf(c, generic, op(c, 'order'))!;
    expect(undo).toMatchObject({ idParam: 'orderNo', pointer: '/order/number' });
    expect(undo.delete?.operationId).toBe('cancel');
    expect(createdIdsFor({ order: { number: 'A-1' } }, undo.idParam!, undo.pointer)).toEqual(['A-1']);
  });

  test("the profile's own undo wins", () => {
    const c = contract({
      '/a': { post: { operationId: 'mk', requestBody: json, responses: ok } },
      '/a/{id}': { parameters: [item('id')], delete: { operationId: 'del1', responses: ok } },
      '/trash/{id}': { parameters: [item('id')], delete: { operationId: 'del2', responses: ok } },
    });
    const profile = { ...generic, sideEffects: [{ operation: 'mk', class: 'reversible' as const, undo: 'del2', effect: 'makes an a' }] };
    expect(undoOf(c, profile, op(c, 'mk'))?.delete?.operationId).toBe('del2');
  });
});

suite('the ids a create answered', () => {
  test('every record of a record, a bare array or a page; integer and string ids; the parameter name in any case style', () => {
    expect(createdIdsFor({ id: 3, name: 'x' }, 'hero_id')).toEqual(['3']);
    expect(createdIdsFor([{ heroId: 'a' }, { heroId: 'b' }], 'hero_id')).toEqual(['a', 'b']);
    expect(createdIdsFor({ total: 2, data: [{ hero_id: 1 }, { hero_id: 2 }] }, 'hero_id')).toEqual(['1', '2']);
    expect(createdIdsFor({ name: 'no id' }, 'hero_id')).toEqual([]);
    expect(createdIdsFor(undefined, 'id')).toEqual([]);
  });

  test('the Location header names the id when the body does not', () => {
    const c = contract({ '/heroes/{hero_id}': { parameters: [item('hero_id')], delete: { operationId: 'drop', responses: ok } } });
    expect(idFromLocation('/svc/heroes/42', op(c, 'drop'))).toBe('42');
    expect(idFromLocation('http://host/svc/heroes/a%20b/', op(c, 'drop'))).toBe('a b');
    expect(idFromLocation('/svc/villains/42', op(c, 'drop'))).toBeUndefined();
    expect(idFromLocation(undefined, op(c, 'drop'))).toBeUndefined();
  });
});
