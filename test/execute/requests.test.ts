/**
 * What the engine sends, seen by a real HTTP server: every parameter location, the body in the media type the
 * operation declares, credentials the way the security scheme says, and PUT-to-create records. The server
 * records each request and answers like a correct implementation of the small description below.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Requests', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } } },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          { name: 'page', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 9 } },
          { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' }, example: 'acme' },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '400': { description: 'bad' }, '401': { description: 'no' } },
      },
    },
    '/uploads': {
      post: {
        operationId: 'upload',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', required: ['file', 'label'], properties: { file: { type: 'string', format: 'binary' }, label: { type: 'string', maxLength: 8 } } },
            },
          },
        },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '400': { description: 'bad' }, '401': { description: 'no' } },
      },
    },
    '/files/{name}': {
      put: {
        operationId: 'putFile',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{3,8}$' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['size'], properties: { size: { type: 'integer', exclusiveMinimum: true, minimum: 0, maximum: 10 }, id: { type: 'string', readOnly: true } } } } },
        },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '400': { description: 'bad' }, '401': { description: 'no' } },
      },
      get: {
        operationId: 'getFile',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{3,8}$' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '401': { description: 'no' }, '404': { description: 'not found' } },
      },
    },
  },
};

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('requests from the whole schema, seen by a real server', () => {
  const seen: Seen[] = [];
  const files = new Set<string>();
  let server: Server;
  let results: RunResults;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        seen.push({ method: req.method ?? '', url, headers: req.headers, body });
        const reply = (status: number, value: unknown = {}) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        if (url.searchParams.get('api_key') !== TOKEN) return reply(401, { message: 'no' });
        const file = /^\/svc\/files\/([^/]+)$/.exec(url.pathname)?.[1];
        if (url.pathname === '/svc/things' && req.method === 'GET') {
          const page = Number(url.searchParams.get('page'));
          const ok = page >= 1 && page <= 9 && req.headers['x-tenant'] && /session=/.test(req.headers.cookie ?? '');
          return ok ? reply(200, {}) : reply(400, { message: 'bad' });
        }
        if (url.pathname === '/svc/uploads' && req.method === 'POST') {
          const multipart = /^multipart\/form-data; boundary=/.test(req.headers['content-type'] ?? '') && /filename="file.txt"/.test(body);
          const label = /name="label"\r\n\r\n([^\r]*)\r\n/.exec(body)?.[1];
          return multipart && label !== undefined && [...label].length <= 8 ? reply(200, {}) : reply(400, { message: 'bad' });
        }
        if (file && req.method === 'PUT') {
          let parsed: { size?: unknown; id?: unknown } = {};
          try {
            parsed = JSON.parse(body) as typeof parsed;
          } catch {
            return reply(400, { message: 'bad' });
          }
          if (!/^application\/json\b/.test(req.headers['content-type'] ?? '') || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reply(400, { message: 'bad' });
          if (!Number.isInteger(parsed.size) || (parsed.size as number) <= 0 || (parsed.size as number) > 10 || 'id' in parsed || !/^[a-z]{3,8}$/.test(file)) return reply(400, { message: 'bad' });
          files.add(file);
          return reply(200, { name: file });
        }
        if (file && req.method === 'GET') return files.has(file) ? reply(200, { name: file }) : reply(404, { message: `file ${file} not found` });
        return reply(404, { detail: 'Not Found' });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const spec = join(await tempDir(), 'requests.openapi.json');
    await writeFile(spec, JSON.stringify(SPEC));
    const run = await runCli(['--spec', spec, '--server', `svc=http://127.0.0.1:${port}/svc`, '--token', TOKEN, '--quiet', '--max-examples', '5']);
    results = requireResults(run);
  }, 300_000);

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const positive = (operationId: string) => results.operations.find((o) => o.operationId === operationId)?.cases.find((c) => c.name === 'positive');

  test('required query, header and cookie parameters are sent, and the apiKey goes in the query', () => {
    expect(positive('listThings')?.outcome).toBe('passed');
    const list = seen.filter((s) => s.url.pathname === '/svc/things' && s.url.searchParams.get('api_key') === TOKEN);
    expect(list.length).toBeGreaterThan(0);
    // Every request carries all three, except the negative cases that each leave exactly one out (the fuzzing
    // phase draws other schema-valid values than the example 'acme').
    const lacking = (s: Seen) => [s.headers['x-tenant'] !== undefined ? '' : 'X-Tenant', /session=/.test(s.headers.cookie ?? '') ? '' : 'session', s.url.searchParams.has('page') ? '' : 'page'].filter(Boolean);
    expect(list.filter((s) => lacking(s).length === 0).length).toBeGreaterThan(3);
    expect(list.every((s) => lacking(s).length <= 1)).toBe(true);
    expect(new Set(list.flatMap(lacking))).toEqual(new Set(['X-Tenant', 'session', 'page']));
    expect(list.some((s) => s.headers['x-tenant'] === 'acme')).toBe(true);
    expect(seen.some((s) => s.headers.authorization !== undefined)).toBe(false);
  });

  test('a multipart-only body is sent as multipart/form-data with the binary property as a file', () => {
    expect(positive('upload')?.outcome).toBe('passed');
  });

  test('PUT-to-create makes the record the GET reads; exclusive bounds and readOnly honoured', () => {
    expect(positive('putFile')?.outcome).toBe('passed');
    expect(positive('getFile')?.outcome).toBe('passed');
    const gets = seen.filter((s) => s.method === 'GET' && s.url.pathname.startsWith('/svc/files/') && files.has(s.url.pathname.split('/').pop() ?? ''));
    expect(gets.length).toBeGreaterThan(0);
  });

  test('a "file not found" 404 is not a missing operation, and the run finds nothing on this correct server', () => {
    expect(results.operations.filter((o) => o.outcome === 'missing')).toEqual([]);
    const errors = results.operations
      .filter((o) => o.method !== null)
      .flatMap((o) => o.cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => `${o.operationId} ${c.name} ${f.check}: ${f.message}`)));
    expect(errors).toEqual([]);
  });
});
