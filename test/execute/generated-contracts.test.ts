/**
 * What generators write, read as they mean it, on a correct server (nothing may be flagged):
 *  - a query array with `style: form, explode: false` is sent as one comma-separated value (`?status=a,b`); the
 *    server refuses the parameter repeated, as Django REST framework's JSON:API does;
 *  - a list that takes paging parameters answers its first page: a created record on a later page is not
 *    "missing from its collection's list";
 *  - sized integer formats (`uint64`, Rust's and Go's) bound their values: 2^64 is beyond a uint64 and a server
 *    that refuses it is right.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { removeTemps, runCli, tempDir } from '../support/runs.ts';
import { expectNothingFlagged } from '../support/nothing-flagged.ts';

afterAll(removeTemps);

const ITEM = { type: 'object', required: ['id', 'status'], properties: { id: { type: 'integer' }, status: { type: 'string', enum: ['new', 'done'] } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'generated', version: '1' },
  servers: [{ url: 'http://127.0.0.1/g' }],
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'status', in: 'query', required: false, style: 'form', explode: false, schema: { type: 'array', items: { type: 'string', enum: ['new', 'done'] } } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 2 } },
        ],
        responses: {
          '200': { description: 'a page', content: { 'application/json': { schema: { type: 'object', required: ['items', 'total'], properties: { items: { type: 'array', items: ITEM }, total: { type: 'integer' } } } } } },
          '400': { description: 'bad filter' },
        },
      },
      post: {
        operationId: 'addItem',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['new', 'done'] } } } } } },
        responses: { '201': { description: 'added', content: { 'application/json': { schema: ITEM } } }, '400': { description: 'refused' } },
      },
    },
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'the item', content: { 'application/json': { schema: ITEM } } }, '400': { description: 'not an id' }, '404': { description: 'none' } },
      },
    },
    '/counter': {
      put: {
        operationId: 'putCounter',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['counter'], properties: { counter: { type: 'integer', format: 'uint64', minimum: 0 } } } } } },
        responses: { '204': { description: 'set' }, '400': { description: 'refused' } },
      },
    },
  },
};

function server(): Server {
  // Three records someone else made: the run's creates land past the first page of two.
  const items = new Map<number, { id: number; status: string }>([1, 2, 3].map((id) => [id, { id, status: 'new' }]));
  let next = 4;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body?: unknown) => (body === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
      const text = Buffer.concat(chunks).toString('utf8');
      const parse = (): Record<string, unknown> | undefined => {
        try {
          const v = JSON.parse(text) as unknown;
          return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
        } catch {
          return undefined;
        }
      };
      if (url.pathname === '/g/items' && req.method === 'GET') {
        if (url.searchParams.getAll('status').length > 1) return json(400);
        const statuses = url.searchParams.get('status')?.split(',');
        if (statuses && !statuses.every((s) => s === 'new' || s === 'done')) return json(400);
        const limit = url.searchParams.get('limit') ?? '2';
        if (!/^[12]$/.test(limit)) return json(400);
        const all = [...items.values()].filter((i) => !statuses || (statuses as string[]).includes(i.status));
        return json(200, { items: all.slice(0, Number(limit)), total: all.length });
      }
      if (url.pathname === '/g/items' && req.method === 'POST') {
        const body = parse();
        if (!body || (body['status'] !== 'new' && body['status'] !== 'done') || !/^application\/json/.test(req.headers['content-type'] ?? '')) return json(400);
        const item = { id: next++, status: body['status'] };
        items.set(item.id, item);
        return json(201, item);
      }
      const m = /^\/g\/items\/([^/]+)$/.exec(url.pathname);
      if (m && req.method === 'GET') {
        if (!/^-?\d{1,15}$/.test(m[1]!)) return json(400);
        const item = items.get(Number(m[1]));
        return item ? json(200, item) : json(404);
      }
      if (url.pathname === '/g/counter' && req.method === 'PUT') {
        const counter = /"counter"\s*:\s*(-?\d+)\s*[,}]/.exec(text)?.[1];
        if (!parse() || counter === undefined || !/^application\/json/.test(req.headers['content-type'] ?? '')) return json(400);
        const n = BigInt(counter);
        return n >= 0n && n <= 2n ** 64n - 1n ? json(204) : json(400);
      }
      const allow = url.pathname === '/g/items' ? 'GET, POST' : url.pathname === '/g/counter' ? 'PUT' : m ? 'GET' : undefined;
      return allow ? res.writeHead(405, { allow }).end() : json(404);
    });
  });
}

test('a correct server of a generated contract: comma-separated arrays, a paged list, a uint64 bound: nothing flagged', async () => {
  const srv = server();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'generated.json');
    await writeFile(spec, JSON.stringify(SPEC));
    for (const seed of ['1', '2']) {
      const run = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/g`, '--seed', seed, '--quiet']);
      const results = expectNothingFlagged(run, `seed ${seed}`);
      // The created record was read back by id, and the paged list was not taken for the whole collection.
      const readable = results.operations.find((o) => o.operationId === 'addItem')?.cases.find((c) => c.name === 'lifecycle: created record readable');
      expect(readable?.outcome, `seed ${seed}`).toBe('passed');
    }
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}, 120_000);
