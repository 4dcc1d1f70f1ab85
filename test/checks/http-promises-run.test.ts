/**
 * stack-trace-not-exposed and no-content-no-body end to end: a small OpenAPI 3.1 contract (create, read by id,
 * delete answering 204) served by a real server. The faulty deployment answers its read's 400 with a Python
 * traceback in the error envelope and its delete's 204 with the deleted record after the header (written to the
 * socket: Node's http server strips a 204's body); the correct ones, strict and lenient, answer plain error JSON
 * (the lenient one Spring's default error shape, which names a `path`) and an empty 204. The faulty deployment runs
 * under seeds 1 to 3, each correct one under one seed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, pool, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 300_000;
const CHECKS = new Set(['stack-trace-not-exposed', 'no-content-no-body']);

const error = { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const item = { description: 'the item', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } };
const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64', minimum: 1 } };
const CONTRACT = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1' },
  servers: [{ url: 'http://127.0.0.1/svc' }],
  paths: {
    '/items': {
      post: {
        operationId: 'createItem',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
        responses: { '201': item, '400': error },
      },
    },
    '/items/{id}': {
      get: { operationId: 'getItem', parameters: [id], responses: { '200': item, '400': error, '404': error } },
      delete: { operationId: 'deleteItem', parameters: [id], responses: { '204': { description: 'deleted' }, '400': error, '404': error } },
    },
  },
  components: {
    schemas: {
      Item: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', format: 'int64', readOnly: true }, name: { type: 'string', minLength: 1, maxLength: 20 } } },
      Error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    },
  },
};

type Variant = 'strict' | 'lenient' | 'faulty';

const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/app/items/views.py", line 41, in get_item',
  '    item_id = int(raw)',
  "ValueError: invalid literal for int() with base 10: 'abc'",
].join('\n');

/** The deployment: records in memory; the faulty one is strict but for its two defects. */
function itemsServer(variant: Variant): Server {
  const items = new Map<number, { id: number; name: string }>();
  let next = 1;
  const send = (res: ServerResponse, status: number, value?: unknown, headers: Record<string, string> = {}) => {
    const payload = value === undefined ? '' : JSON.stringify(value);
    res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }), ...headers }).end(payload);
  };
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, message: string, detail?: string) =>
    variant === 'lenient'
      ? send(res, status, { timestamp: new Date().toISOString(), status, error: status === 400 ? 'Bad Request' : 'Not Found', message, path: new URL(req.url ?? '/', 'http://x').pathname })
      : send(res, status, { message, ...(detail ? { detail } : {}) });
  const readId = (raw: string): number | undefined => {
    if (variant !== 'lenient') return /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined;
    const n = Number(raw);
    return raw.trim() !== '' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
  };
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const method = req.method ?? 'GET';
      if (path === '/svc/items') {
        if (method !== 'POST') return send(res, 405, undefined, { allow: 'POST' });
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (variant !== 'lenient' && type !== 'application/json') return refuse(req, res, 400, `unsupported media type ${type}`);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return refuse(req, res, 400, 'the body is not JSON');
        }
        const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
        let name = fields?.['name'];
        if (variant === 'lenient' && (typeof name === 'number' || typeof name === 'boolean')) name = String(name);
        if (typeof name !== 'string' || [...name].length < 1 || [...name].length > 20) return refuse(req, res, 400, 'name must be 1 to 20 characters');
        const record = { id: next++, name };
        items.set(record.id, record);
        return send(res, 201, record);
      }
      const match = /^\/svc\/items\/([^/]+)$/.exec(path);
      if (!match) return send(res, 404, { message: 'no such route' });
      if (method !== 'GET' && method !== 'DELETE') return send(res, 405, undefined, { allow: 'GET, DELETE' });
      const key = readId(decodeLeniently(match[1]!));
      if (key === undefined) return refuse(req, res, 400, 'the id must be a positive integer', variant === 'faulty' && method === 'GET' ? TRACEBACK : undefined);
      const record = items.get(key);
      if (!record) return refuse(req, res, 404, 'no such item');
      if (method === 'GET') return send(res, 200, record);
      items.delete(key);
      if (variant === 'faulty') {
        // The deleted record after the 204's header, as a framework that ignores the status writes it.
        res.socket?.write(`HTTP/1.1 204 No Content\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(record)}`);
        return;
      }
      return send(res, 204, undefined, variant === 'lenient' ? { 'content-length': '0' } : {});
    });
  });
}

async function run(variant: Variant, seed: number): Promise<RunResults> {
  return limit(async () => {
    const server = itemsServer(variant);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const file = join(await tempDir(), 'items.json');
      await writeFile(file, JSON.stringify(CONTRACT));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc`;
      const r = await runCli(['--spec', file, '--base-url', url, '--token', 'items-token', '--quiet', '--seed', String(seed)]);
      const results = requireResults(r);
      expect(resultsSchemaErrors(results)).toEqual([]);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      expect(r.code, `${summary(results).join('\n')}\n${errors.map((f) => `${f.operationId} ${f.check}: ${f.message}`).join('\n')}\n${r.stderr}`).toBe(variant === 'faulty' ? 1 : 0);
      return results;
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

/** "<operation> <severity> <check>" of every finding of the two checks, once each. */
function found(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => CHECKS.has(f.check)).map((f) => `${f.operationId} ${f.severity} ${f.check}`))].sort();
}

describe.concurrent('a stack trace in an error answer, a 204 with a body', () => {
  test.each([1, 2, 3])(
    'faulty, seed %i: the trace on the read that answered it, the body on the delete; nothing else fails',
    async (seed) => {
      const results = await run('faulty', seed);
      expect(found(results)).toEqual(['deleteItem error no-content-no-body', 'getItem error stack-trace-not-exposed']);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      expect([...new Set(errors.map((f) => f.check))].sort()).toEqual(['no-content-no-body', 'stack-trace-not-exposed']);
      expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(['deleteItem', 'getItem']);
      const trace = errors.find((f) => f.check === 'stack-trace-not-exposed')!;
      expect(trace.message).toMatch(/^GET \/svc\/items\/\S+ answered 400 with a Python stack trace in its body \(first frame: File "\/app\/items\/views\.py", line 41, in get_item\)/);
      expect(trace.message).not.toContain('ValueError');
      expect(trace.faultCode).toBe(209);
      // What the engine saw of the 204: no body (undici ends it at its header), the bytes after it, recorded.
      const deletes = results.operations.find((o) => o.operationId === 'deleteItem')!.cases.flatMap((c) => c.exchanges).filter((e) => e.response?.status === 204);
      expect(deletes.length).toBeGreaterThan(0);
      expect(deletes.every((e) => e.response?.body === '' && e.response.bytesAfterEnd === true)).toBe(true);
      expect(errors.find((f) => f.check === 'no-content-no-body')!.message).toMatch(/^DELETE \/svc\/items\/\d+ answered 204 with more bytes after its header, but a 204 has no content/);
    },
    RUN_TIMEOUT,
  );

  // Each correct deployment under one seed: the faulty one above runs seeds 1, 2 and 3, and a second seed of a
  // deployment that flags nothing proves nothing the first does not.
  test.each([
    ['strict', 1],
    ['lenient', 2],
  ] as const)(
    'correct, %s, seed %i: neither check finds anything; conformant',
    async (variant, seed) => {
      const results = await run(variant, seed);
      expect(found(results)).toEqual([]);
      expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
      expect(results.verdict).toBe('conformant');
      // The checks ran: every operation was judged by both (passed checks are counted per operation).
      for (const op of results.operations.filter((o) => o.method !== null)) {
        const ran = new Set([...Object.keys(op.passedChecks ?? {}), ...op.cases.flatMap((c) => c.checks.map((k) => k.id))]);
        expect([...ran].filter((c) => CHECKS.has(c)).sort(), op.operationId).toEqual(['no-content-no-body', 'stack-trace-not-exposed']);
      }
    },
    RUN_TIMEOUT,
  );
});
