/**
 * Every schema shape and every method gets its classes: a body whose schema is a top-level allOf (a base schema
 * extended, as generators write inheritance) gets the missing-field and wrong-type negatives of the merged
 * object, and a DELETE on an integer id gets coverage (an id beyond int64) on a record of its own. Each is shown
 * on a server that has the defect (found on the right operation by the right check) and on one that does not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const ERROR = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'pets', version: '1' },
  servers: [{ url: 'http://127.0.0.1/p' }],
  components: {
    schemas: {
      PetBase: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
      NewPet: { allOf: [{ $ref: '#/components/schemas/PetBase' }, { type: 'object', required: ['age'], properties: { age: { type: 'integer', minimum: 0, maximum: 100 } } }] },
      Pet: { allOf: [{ $ref: '#/components/schemas/NewPet' }, { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }] },
      Error: ERROR,
    },
  },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        responses: {
          '200': { description: 'a page of pets', content: { 'application/json': { schema: { type: 'object', required: ['items', 'total'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Pet' } }, total: { type: 'integer' } } } } } },
        },
      },
      post: {
        operationId: 'addPet',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
        responses: {
          '201': { description: 'added', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '400': { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
    '/pets/{pet_id}': {
      parameters: [{ name: 'pet_id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getPet',
        responses: {
          '200': { description: 'the pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '400': { description: 'not an id', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '404': { description: 'no such pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      put: {
        operationId: 'replacePet',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
        responses: {
          '200': { description: 'replaced', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '400': { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '404': { description: 'no such pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      patch: {
        operationId: 'renamePet',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } } } } } },
        responses: {
          '200': { description: 'renamed', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '400': { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '404': { description: 'no such pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      delete: {
        operationId: 'deletePet',
        responses: {
          '204': { description: 'deleted' },
          '400': { description: 'not an id', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '404': { description: 'no such pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
  },
};

type Fault = 'untyped-age' | 'delete-overflow' | 'put-crashes' | 'written-after-delete' | 'listed-after-delete' | 'add-crashes';

const INT64_MAX = 2n ** 63n - 1n;

function server(fault?: Fault): Server {
  const pets = new Map<bigint, { id: number; name: string; age: number }>();
  // The faulty deployments only mark a deleted record: one still writes it, the other still lists it.
  const deleted = new Map<bigint, { id: number; name: string; age: number }>();
  let next = 1;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body?: unknown) => (body === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
      if (url.pathname === '/p/pets') {
        if (req.method === 'GET') {
          const items = [...pets.values(), ...(fault === 'listed-after-delete' ? deleted.values() : [])];
          return json(200, { items, total: items.length });
        }
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST' }).end();
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return json(400, { detail: 'not JSON' });
        }
        const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : undefined) as Record<string, unknown> | undefined;
        if (!b || typeof b['name'] !== 'string' || b['name'] === '') return json(400, { detail: 'name is required' });
        const age = b['age'];
        const ageOk = typeof age === 'number' && Number.isInteger(age) && age >= 0 && age <= 100;
        if (!ageOk && !(fault === 'untyped-age' && age !== undefined && typeof age !== 'number')) return json(400, { detail: 'age must be an integer from 0 to 100' });
        // The faulty create breaks on every valid pet (its insert fails), whatever the request varies.
        if (fault === 'add-crashes') return json(500, { detail: 'database is locked' });
        const pet = { id: next++, name: b['name'], age: typeof age === 'number' ? age : 0 };
        pets.set(BigInt(pet.id), pet);
        return json(201, pet);
      }
      const m = /^\/p\/pets\/([^/]+)$/.exec(url.pathname);
      if (!m) return json(404, { detail: 'no such route' });
      if (!['GET', 'PUT', 'PATCH', 'DELETE'].includes(req.method ?? '')) return res.writeHead(405, { allow: 'GET, PUT, PATCH, DELETE' }).end();
      const raw = decodeLeniently(m[1]!);
      if (!/^-?\d+$/.test(raw)) return json(400, { detail: 'pet_id must be an integer' });
      const id = BigInt(raw);
      // The faulty deployment stores ids in a signed 64-bit column: an id beyond it breaks the delete.
      if (fault === 'delete-overflow' && req.method === 'DELETE' && (id > INT64_MAX || id < -INT64_MAX - 1n)) return json(500, { detail: 'Python int too large to convert to SQLite INTEGER' });
      if (req.method === 'PATCH') {
        const target = pets.get(id) ?? (fault === 'written-after-delete' ? deleted.get(id) : undefined);
        if (!target) return json(404, { detail: 'no such pet' });
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return json(400, { detail: 'not JSON' });
        }
        if (typeof body !== 'object' || body === null || Array.isArray(body)) return json(400, { detail: 'an object' });
        const name = (body as Record<string, unknown>)['name'];
        if (name !== undefined && (typeof name !== 'string' || name === '')) return json(400, { detail: 'name must be a non-empty string' });
        if (typeof name === 'string') target.name = name;
        return json(200, target);
      }
      const pet = pets.get(id);
      // The faulty PUT breaks on a record it does not hold (every made-up id), and on a name that is not ASCII
      // of one it holds: only a request on a real record shows the second.
      if (!pet) return fault === 'put-crashes' && req.method === 'PUT' ? json(500, { detail: 'NoneType has no attribute name' }) : json(404, { detail: 'no such pet' });
      if (req.method === 'GET') return json(200, pet);
      if (req.method === 'PUT') {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return json(400, { detail: 'not JSON' });
        }
        const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
        const name = b['name'];
        const age = b['age'];
        if (typeof name !== 'string' || name === '' || typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > 100) return json(400, { detail: 'name and age are required' });
        if (fault === 'put-crashes' && /[^\x00-\x7f]/.test(name)) return json(500, { detail: "'ascii' codec can't encode character" });
        Object.assign(pet, { name, age });
        return json(200, pet);
      }
      pets.delete(id);
      deleted.set(id, pet);
      return json(204);
    });
  });
}

async function run(srv: Server): Promise<RunResults> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'pets.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/p`, '--token', 'pets-token', '--quiet', '--seed', '1']);
    return requireResults(cli);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

describe('every schema shape and every method gets its classes', () => {
  test('the correct server: nothing found; the allOf body gets its negatives, the DELETE its coverage', async () => {
    const results = await run(server());
    expect(summary(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
    const cases = (id: string) => results.operations.find((o) => o.operationId === id)?.cases ?? [];
    const names = cases('addPet').map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['negative: missing body field name', 'negative: missing body field age', 'negative: wrong type for body field name', 'negative: wrong type for body field age']));
    const coverage = cases('deletePet').find((c) => c.name === 'coverage');
    expect(coverage?.outcome).toBe('passed');
  }, 120_000);

  test('a wrong type for a property of an allOf part taken: negative-data-rejected on addPet', async () => {
    const results = await run(server('untyped-age'));
    expect(summary(results)).toEqual(['addPet: failed [negative-data-rejected]']);
    const op = results.operations.find((o) => o.operationId === 'addPet');
    const failed = (op?.cases ?? []).filter((c) => c.findings.some((f) => f.check === 'negative-data-rejected' && f.severity === 'error')).map((c) => c.name);
    expect(failed).toContain('negative: wrong type for body field age');
  }, 120_000);

  test('a PUT that breaks on every made-up id still has its body classes sent on a real record: both 500s found', async () => {
    const results = await run(server('put-crashes'));
    expect(summary(results), JSON.stringify(results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.map((f) => [c.name, f.check, f.message]))))).toEqual(['replacePet: failed [not-a-server-error, status-code-conformance]']);
    const cases = results.operations.find((o) => o.operationId === 'replacePet')?.cases ?? [];
    const crashes = cases.flatMap((c) => c.findings.filter((f) => f.check === 'not-a-server-error').map((f) => `${c.name}: ${f.message}`));
    expect(crashes.some((m) => m.startsWith('presence:'))).toBe(true);
    // The long name, on the record the run made for the case.
    expect(crashes.some((m) => /^coverage: .*body\.name = /.test(m)), JSON.stringify(crashes)).toBe(true);
  }, 120_000);

  test.each([
    // A write that succeeds on a record that is gone is the writer's defect; a record still listed, the delete's.
    ['written-after-delete', 'renamePet', /^PATCH \/p\/pets\/\d+ answered 200 after DELETE \/pets\/\{pet_id\} removed the record/],
    ['listed-after-delete', 'deletePet', /^The deleted record \d+ is still listed by listPets\./],
  ] as const)('%s: use-after-delete on %s', async (fault, operationId, message) => {
    const results = await run(server(fault));
    expect(summary(results)).toEqual([`${operationId}: failed [use-after-delete]`]);
    const f = results.operations.find((o) => o.operationId === operationId)?.cases.flatMap((c) => c.findings).find((x) => x.check === 'use-after-delete');
    expect(f?.message).toMatch(message);
  }, 120_000);

  test('a create that breaks on every valid request: the server error is not blamed on what a variation varied', async () => {
    const results = await run(server('add-crashes'));
    // The coverage phase's (the fuzzing phase names no part: every drawn request varies all of them).
    const crashes = (results.operations.find((o) => o.operationId === 'addPet')?.cases ?? []).filter((c) => c.name === 'coverage').flatMap((c) => c.findings.filter((f) => f.check === 'not-a-server-error'));
    expect(crashes.length).toBeGreaterThan(0);
    // No coverage finding names a part as the one that broke the server: the request without it breaks it too.
    expect(crashes.filter((f) => f.varied !== undefined).map((f) => f.message)).toEqual([]);
    expect(crashes.some((f) => /with or without a variation/.test(f.message)), JSON.stringify(crashes.map((f) => f.message))).toBe(true);
  }, 120_000);

  test('a DELETE broken by an id beyond int64: not-a-server-error on deletePet, found by its coverage', async () => {
    const results = await run(server('delete-overflow'));
    expect(summary(results)).toEqual(['deletePet: failed [not-a-server-error, status-code-conformance]']);
    const coverage = results.operations.find((o) => o.operationId === 'deletePet')?.cases.find((c) => c.name === 'coverage');
    const f = coverage?.findings.find((x) => x.check === 'not-a-server-error');
    expect(f?.message).toMatch(/beyond int64/);
  }, 120_000);
});
