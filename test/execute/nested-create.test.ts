/**
 * Records created under a parent and served flat (`POST /owners/{ownerId}/pets`, `GET|PUT|DELETE /pets/{petId}`,
 * as spring-petclinic serves its pets) against a real HTTP server: the run makes an owner, then a pet under it,
 * and tests the flat operations on that pet, deleting it afterwards through the flat DELETE; a fault of the flat
 * PUT is found on it with the right check. Without the nested create the flat PUT was taken for one that creates
 * the record it names, and every call named a pet that did not exist. And producerFor itself: the nested create is
 * the producer only where it answers the record the flat read serves, and only where it is the one such create.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { producerFor } from '../../src/runner/plan/resources.ts';
import type { Contract, Operation, RunResults } from '../../src/runner/model.ts';
import { bearerContract, jsonServer, listening, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const PET = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string', minLength: 1, maxLength: 30 } } };
const OWNER = { type: 'object', required: ['id', 'lastName'], properties: { id: { type: 'integer' }, lastName: { type: 'string', minLength: 1, maxLength: 30 } } };
const petBody = { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 30 } } };
const ownerBody = { type: 'object', required: ['lastName'], additionalProperties: false, properties: { lastName: { type: 'string', minLength: 1, maxLength: 30 } } };
const id = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: 2147483647 } });
const refused = { '400': { description: 'invalid' }, '404': { description: 'not found' } };

const SPEC = bearerContract('3.1.0', 'Clinic', {
  '/owners': { post: { operationId: 'addOwner', requestBody: { required: true, ...json(ownerBody) }, responses: { '201': { description: 'created', ...json(OWNER) }, ...refused } } },
  '/owners/{ownerId}': { get: { operationId: 'getOwner', parameters: [id('ownerId')], responses: { '200': { description: 'ok', ...json(OWNER) }, ...refused } } },
  '/owners/{ownerId}/pets': { post: { operationId: 'addPetToOwner', parameters: [id('ownerId')], requestBody: { required: true, ...json(petBody) }, responses: { '201': { description: 'created', ...json(PET) }, ...refused } } },
  '/pets/{petId}': {
    get: { operationId: 'getPet', parameters: [id('petId')], responses: { '200': { description: 'ok', ...json(PET) }, ...refused } },
    put: { operationId: 'updatePet', parameters: [id('petId')], requestBody: { required: true, ...json(petBody) }, responses: { '200': { description: 'updated', ...json(PET) }, ...refused } },
    delete: { operationId: 'deletePet', parameters: [id('petId')], responses: { '204': { description: 'deleted' }, ...refused } },
  },
});

/** faulty: the flat PUT answers 204 with no body where 200 with the pet is documented. */
async function startServer(faulty: boolean): Promise<{ url: string; close: () => Promise<void>; pets: Map<number, { name: string }>; deleted: number[] }> {
  const owners = new Map<number, string>();
  const pets = new Map<number, { name: string }>();
  const deleted: number[] = [];
  let next = 1;
  const server = jsonServer((req, body, reply) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const read = (): Record<string, unknown> | undefined => {
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return undefined;
      try {
        const value = JSON.parse(body) as unknown;
        return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    };
    const text = (v: unknown) => typeof v === 'string' && v.length >= 1 && [...v].length <= 30;
    const idOf = (raw: string | undefined) => (raw !== undefined && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2147483647 ? Number(raw) : undefined);
    let m: RegExpExecArray | null;
    if (path === '/svc/owners' && req.method === 'POST') {
      const b = read();
      if (!b || Object.keys(b).some((k) => k !== 'lastName') || !text(b['lastName'])) return reply(400);
      const owner = next++;
      owners.set(owner, b['lastName'] as string);
      return reply(201, { id: owner, lastName: b['lastName'] });
    }
    if ((m = /^\/svc\/owners\/([^/]+)$/.exec(path)) && req.method === 'GET') {
      const owner = idOf(m[1]);
      if (owner === undefined) return reply(400);
      return owners.has(owner) ? reply(200, { id: owner, lastName: owners.get(owner) }) : reply(404);
    }
    if ((m = /^\/svc\/owners\/([^/]+)\/pets$/.exec(path)) && req.method === 'POST') {
      const owner = idOf(m[1]);
      if (owner === undefined) return reply(400);
      const b = read();
      if (!b || Object.keys(b).some((k) => k !== 'name') || !text(b['name'])) return reply(400);
      if (!owners.has(owner)) return reply(404);
      const pet = next++;
      pets.set(pet, { name: b['name'] as string });
      return reply(201, { id: pet, name: b['name'] });
    }
    if ((m = /^\/svc\/pets\/([^/]+)$/.exec(path))) {
      const pet = idOf(m[1]);
      if (pet === undefined) return reply(400);
      if (req.method === 'GET') return pets.has(pet) ? reply(200, { id: pet, ...pets.get(pet) }) : reply(404);
      if (req.method === 'PUT') {
        const b = read();
        if (!b || Object.keys(b).some((k) => k !== 'name') || !text(b['name'])) return reply(400);
        if (!pets.has(pet)) return reply(404);
        pets.set(pet, { name: b['name'] as string });
        return faulty ? reply(204) : reply(200, { id: pet, name: b['name'] });
      }
      if (req.method === 'DELETE') {
        if (!pets.delete(pet)) return reply(404);
        deleted.push(pet);
        return reply(204);
      }
    }
    return reply(404);
  });
  return { ...(await listening(server)), pets, deleted };
}

async function run(url: string): Promise<RunResults> {
  const spec = join(await tempDir(), 'clinic.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  return requireResults(await runCli(['--spec', spec, '--server', `svc=${url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--concurrency', '1', '--keep-passed-exchanges']));
}

const errors = (r: RunResults) => r.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => `${o.operationId} ${c.name} ${f.check}`)));
const positive = (r: RunResults, op: string) => r.operations.find((o) => o.operationId === op)?.cases.find((c) => c.name === 'positive');

describe('records created under a parent and served flat', () => {
  test('correct: the flat operations run on a pet the run made under an owner it made; the pets are deleted afterwards', async () => {
    const server = await startServer(false);
    try {
      const results = await run(server.url);
      expect(errors(results)).toEqual([]);
      for (const op of ['getPet', 'updatePet']) {
        const c = positive(results, op);
        expect(c?.outcome, op).toBe('passed');
        // On a pet the run created: the call's path names an id an addPetToOwner answer held.
        const url = c?.exchanges.map((e) => e.request).find((r) => r.url.includes('/pets/') && !r.url.includes('/owners/'))?.url ?? '';
        expect(url, op).toMatch(/\/svc\/pets\/\d+$/);
      }
      expect(results.operations.find((o) => o.operationId === 'updatePet')?.ran).toContain('positive');
      // What the run made is gone: every pet it created was deleted through DELETE /pets/{petId}.
      expect(server.pets.size).toBe(0);
      expect(server.deleted.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 180_000);

  test('faulty: the flat PUT answers 204 where 200 is documented: found on updatePet, with status-code-conformance', async () => {
    const server = await startServer(true);
    try {
      const results = await run(server.url);
      expect(errors(results)).toContain('updatePet positive status-code-conformance');
      expect(errors(results).filter((e) => !e.startsWith('updatePet '))).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('producerFor: a create nested under a parent', () => {
  const op = (operationId: string, method: Operation['method'], path: string, schema?: unknown): Operation => ({
    operationId, method, path, group: path, service: 'svc', specFile: 'x', pointer: '', parameters: [], secured: false, extensions: {},
    responses: schema ? [{ status: method === 'POST' ? '201' : '200', contentTypes: ['application/json'], schema: schema as Operation['responses'][number]['schema'], pointer: '' }] : [],
    ...(method === 'POST' || method === 'PUT' ? { requestBody: { required: true, contentType: 'application/json', pointer: '', schema: petBody } } : {}),
  });
  const contract = (ops: Operation[]): Contract => ({ services: [], operations: ops });

  test('is the producer of the flat item where it answers the record the flat read serves', () => {
    const put = op('updatePet', 'PUT', '/pets/{petId}', PET);
    const c = contract([op('addPetToOwner', 'POST', '/owners/{ownerId}/pets', PET), op('getPet', 'GET', '/pets/{petId}', PET), put]);
    expect(producerFor(c, put, 'petId')?.producer.operationId).toBe('addPetToOwner');
  });

  test('is not where it answers another record, or where two such creates exist (the PUT then creates what it names)', () => {
    const put = op('updatePet', 'PUT', '/pets/{petId}', PET);
    const other = contract([op('addPetToOwner', 'POST', '/owners/{ownerId}/pets', OWNER), op('getPet', 'GET', '/pets/{petId}', PET), put]);
    expect(producerFor(other, put, 'petId')).toBe(undefined);
    const put2 = op('updatePet', 'PUT', '/pets/{petId}', PET);
    const two = contract([op('addPetToOwner', 'POST', '/owners/{ownerId}/pets', PET), op('addPetToVet', 'POST', '/vets/{vetId}/pets', PET), op('getPet', 'GET', '/pets/{petId}', PET), put2]);
    expect(producerFor(two, put2, 'petId')).toBe(undefined);
  });
});
