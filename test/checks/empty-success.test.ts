/**
 * A success whose response declares only JSON (or XML) content owes a document, whatever value its schema admits:
 * a DELETE answered 200 with nothing, where the contract declares `application/json` with `schema: {}`, is an
 * error (response-schema-conformance) on that operation, as Schemathesis reports it (ST109). A deployment that
 * sends a JSON value passes, and so does an empty answer where the contract declares no content, or text.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const PET = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });

/** declared: what the DELETE's 200 declares (any JSON, any text, nothing). */
function spec(declared: 'json' | 'text' | 'none') {
  const content = declared === 'json' ? { content: json({}) } : declared === 'text' ? { content: { 'text/plain': { schema: { type: 'string' } } } } : {};
  return {
    openapi: '3.1.0',
    info: { title: 'Pets', version: '1' },
    paths: {
      '/pets': {
        post: {
          operationId: 'createPet',
          requestBody: { required: true, content: json({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }) },
          responses: { '201': { description: 'made', content: json(PET) }, '400': { description: 'bad' } },
        },
      },
      '/pets/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        get: { operationId: 'getPet', responses: { '200': { description: 'ok', content: json(PET) }, '404': { description: 'none' } } },
        delete: { operationId: 'deletePet', responses: { '200': { description: 'deleted', ...content }, '404': { description: 'none' } } },
      },
    },
  };
}

async function run(declared: 'json' | 'text' | 'none', answer: 'empty' | 'json'): Promise<RunResults> {
  const pets = new Map<number, Record<string, unknown>>();
  let next = 1;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const send = (status: number, body?: unknown) =>
        body === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path === '/pets' && req.method === 'POST') {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return send(400);
        }
        const name = (body as { name?: unknown } | null)?.name;
        if (typeof name !== 'string') return send(400);
        const pet = { id: next++, name };
        pets.set(pet.id, pet);
        return send(201, pet);
      }
      const id = /^\/pets\/(\d+)$/.exec(path)?.[1];
      if (id === undefined) return send(404);
      const pet = pets.get(Number(id));
      if (req.method === 'GET') return pet ? send(200, pet) : send(404);
      if (req.method === 'DELETE') {
        if (!pet) return send(404);
        pets.delete(Number(id));
        return answer === 'json' ? send(200, { deleted: true }) : send(200);
      }
      res.writeHead(405, { allow: 'GET, DELETE' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const file = join(await tempDir(), 'pets.openapi.json');
    await writeFile(file, JSON.stringify(spec(declared)));
    return requireResults(await runCli(['--spec', file, '--base-url', url, '--quiet', '--seed', '1', '--fuzz-examples', '5']));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const errors = (results: RunResults) => [...new Set(allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId} ${f.check}`))];

test('a DELETE answered 200 with nothing where any JSON is declared: an error of that operation', async () => {
  const results = await run('json', 'empty');
  expect(errors(results)).toEqual(['deletePet response-schema-conformance']);
  const finding = allFindings(results).find((f) => f.operationId === 'deletePet' && f.check === 'response-schema-conformance');
  expect(finding?.message).toMatch(/^Response 200 has no body; the contract declares application\/json/);
});

test('correct variants: a JSON value sent; nothing sent where no content or text is declared', async () => {
  expect(errors(await run('json', 'json'))).toEqual([]);
  expect(errors(await run('none', 'empty'))).toEqual([]);
  expect(errors(await run('text', 'empty'))).toEqual([]);
});
