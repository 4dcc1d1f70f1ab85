/**
 * Read-your-writes judged through a reader whose answers can be trusted (stateful.ts, runCreatedReadable; the
 * check's readerAtFault). Many frameworks word every 404 alike, a missing route's and a missing record's: a
 * reader proven served (its presence proof read a record the deployment lists, not only the newest one seen,
 * which may be the record the run made and the deployment lost) that answers a created id with that 404 does
 * not serve the record, an error of the create. And where no read could show the record (each reader failed on
 * its own: a 500), the case is skipped with the reason, never passed.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const ITEM = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Items', version: '1' },
  paths: {
    '/items': {
      get: { operationId: 'listItems', responses: { '200': { description: 'all', content: json({ type: 'array', items: ITEM }) } } },
      post: {
        operationId: 'createItem',
        requestBody: { required: true, content: json({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }) },
        responses: { '201': { description: 'made', content: json(ITEM) }, '400': { description: 'bad' } },
      },
    },
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getItem', responses: { '200': { description: 'ok', content: json(ITEM) }, '404': { description: 'none', content: json({ type: 'object' }) } } },
    },
  },
};

/** lost: created items are listed, but their reads get the generic 404; crashing: reads of created items answer 500. */
type Variant = 'correct' | 'lost' | 'crashing';

async function run(variant: Variant): Promise<RunResults> {
  // Records the deployment already holds (the presence case reads one of them).
  const items = new Map<number, { id: number; name: string }>([[1, { id: 1, name: 'one' }], [2, { id: 2, name: 'two' }]]);
  const made = new Set<number>();
  let next = 100;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      // The framework's one 404, for a route it does not have and for a record it does not hold alike.
      const notFound = () => send(404, { message: 'Not Found' });
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path === '/items' && req.method === 'POST') {
        let body: { name?: unknown } | undefined;
        try {
          body = JSON.parse(text) as { name?: unknown };
        } catch {
          return send(400, { message: 'bad json' });
        }
        if (typeof body?.name !== 'string') return send(400, { message: 'name' });
        const item = { id: next++, name: body.name };
        made.add(item.id);
        items.set(item.id, item);
        return send(201, item);
      }
      if (path === '/items' && req.method === 'GET') return send(200, [...items.values()]);
      const id = /^\/items\/(\d+)$/.exec(path)?.[1];
      if (id !== undefined && req.method === 'GET') {
        if (variant === 'crashing' && made.has(Number(id))) return send(500, { message: 'boom' });
        if (variant === 'lost' && made.has(Number(id))) return notFound();
        const item = items.get(Number(id));
        return item ? send(200, item) : notFound();
      }
      notFound();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const file = join(await tempDir(), 'items.openapi.json');
    // Where reads of created items crash, no list either: no read is left that could show the record.
    const spec = variant === 'crashing' ? { ...SPEC, paths: { ...SPEC.paths, '/items': { post: SPEC.paths['/items'].post } } } : SPEC;
    await writeFile(file, JSON.stringify(spec));
    return requireResults(await runCli(['--spec', file, '--base-url', url, '--quiet', '--seed', '1', '--fuzz-examples', '5', '--concurrency', '1']));
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const readable = (results: RunResults) => operation(results, 'createItem').cases.find((c) => c.name === 'lifecycle: created record readable');

test('a created record its proven reader answers with the generic 404: not served, an error of the create', async () => {
  const results = await run('lost');
  expect(operation(results, 'getItem').cases.find((c) => c.kind === 'presence')?.outcome).toBe('passed');
  expect(readable(results)?.outcome).toBe('failed');
  const found = allFindings(results).filter((f) => f.check === 'created-resource-readable');
  expect(found.map((f) => `${f.operationId} ${f.severity}`)).toContain('createItem error');
  expect(found.some((f) => f.operationId === 'createItem' && /is not served: GET \/items\/\d+ \(getItem\) answered 404/.test(f.message))).toBe(true);
});

test('a created record whose every read fails on its own (500): the case is skipped with the reason, not passed', async () => {
  const results = await run('crashing');
  const c = readable(results);
  expect(c?.outcome).toBe('skipped');
  expect(c?.skipReason).toMatch(/^no reader could show the created record \(getItem answered 500/);
  expect(allFindings(results).filter((f) => f.check === 'created-resource-readable')).toEqual([]);
  // The 500 is the reader's own finding.
  expect(allFindings(results).some((f) => f.operationId === 'getItem' && f.check === 'not-a-server-error')).toBe(true);
});

test('a correct deployment: the case passes and nothing is found', async () => {
  const results = await run('correct');
  expect(readable(results)?.outcome).toBe('passed');
  expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
});
