/**
 * "Update persisted" changes every field the record already holds, and each changed value stays one its schema
 * accepts (another enum value, the number next to it within bounds, a fresh uuid, a text within its length):
 * against a strict server the chain runs and passes; a server that ignores one field of the update is flagged
 * on the PUT, by update-persisted, naming that field.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The same examples in the create and the update: the update's planned values are the record's own.
const fields = {
  kind: { type: 'string', enum: ['a', 'b'], examples: ['a'] },
  size: { type: 'integer', minimum: 1, maximum: 3, examples: [3] },
  ref: { type: 'string', format: 'uuid', examples: ['6f1c1a52-8f7e-4c53-9a43-1f0e2b1c0d11'] },
  label: { type: 'string', maxLength: 12, examples: ['hello world'] },
};
const input = { type: 'object', additionalProperties: false, required: ['kind', 'size', 'ref', 'label'], properties: fields };
const record = { type: 'object', required: ['id', 'kind', 'size', 'ref', 'label'], properties: { id: { type: 'string', format: 'uuid' }, ...fields } };
const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const refused = { '400': problem, '401': problem, '415': problem };
const json = (schema: unknown) => ({ 'application/json': { schema } });

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/things': {
      post: { operationId: 'createThing', requestBody: { required: true, content: json(input) }, responses: { '201': { description: 'made', content: json(record) }, ...refused } },
    },
    '/things/{id}': {
      get: { operationId: 'getThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }], responses: { '200': { description: 'ok', content: json(record) }, '401': problem, '404': problem } },
      put: { operationId: 'putThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }], requestBody: { required: true, content: json(input) }, responses: { '200': { description: 'ok', content: json(record) }, ...refused, '404': problem } },
      delete: { operationId: 'deleteThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }], responses: { '204': { description: 'gone' }, '401': problem, '404': problem } },
    },
  },
};

function invalid(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return true;
  const b = body as Record<string, unknown>;
  if (Object.keys(b).some((k) => !(k in fields))) return true;
  return !['a', 'b'].includes(b['kind'] as string) || !Number.isInteger(b['size']) || (b['size'] as number) < 1 || (b['size'] as number) > 3 || typeof b['ref'] !== 'string' || !UUID.test(b['ref']) || typeof b['label'] !== 'string' || [...b['label']].length > 12;
}

async function startServer(ignoresKind: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  const things = new Map<string, Record<string, unknown>>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const reply = (status: number, value?: unknown) => {
        if (value === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { title: 'Unauthorized' }); }
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const item = /^\/svc\/things\/([^/]+)$/.exec(path);
      if (text !== '' && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) return reply(415, { title: 'Unsupported Media Type' });
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return reply(400, { title: 'not JSON' });
      }
      if (path === '/svc/things' && req.method === 'POST') {
        if (invalid(body)) return reply(400, { title: 'invalid' });
        const made = { id: randomUUID(), ...(body as object) };
        things.set(made.id, made);
        return reply(201, made);
      }
      if (path === '/svc/things' || !item) {
        if (path === '/svc/things') res.setHeader('allow', 'POST');
        return reply(path === '/svc/things' ? 405 : 404, { title: 'no' });
      }
      const found = things.get(item[1]!);
      if (req.method === 'GET') return found ? reply(200, found) : reply(404, { title: 'Not Found' });
      if (req.method === 'DELETE') return found && things.delete(item[1]!) ? reply(204) : reply(404, { title: 'Not Found' });
      if (req.method === 'PUT') {
        if (invalid(body)) return reply(400, { title: 'invalid' });
        if (!found) return reply(404, { title: 'Not Found' });
        const updated = { ...found, ...(body as object), id: found['id'], ...(ignoresKind ? { kind: found['kind'] } : {}) };
        things.set(item[1]!, updated);
        return reply(200, updated);
      }
      res.setHeader('allow', 'GET, PUT, DELETE');
      reply(405, { title: 'Method Not Allowed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function run(ignoresKind: boolean): Promise<RunResults> {
  const spec = join(await tempDir(), 'things.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await startServer(ignoresKind);
  try {
    return requireResults(await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--fuzz-examples', '10', '--keep-passed-exchanges']));
  } finally {
    await server.close();
  }
}

const chain = (results: RunResults) => operation(results, 'putThing').cases.find((c) => c.name === 'lifecycle: update persisted');

describe('update persisted', () => {
  test('every field the record holds is changed to a value its schema accepts; a strict server passes the chain', async () => {
    const results = await run(false);
    const c = chain(results);
    expect(c?.outcome).toBe('passed');
    const put = c?.exchanges.find((e) => e.request.method === 'PUT');
    const sent = JSON.parse(put?.request.body ?? '{}') as Record<string, unknown>;
    expect(sent['kind']).toBe('b');
    expect(sent['size']).toBe(2);
    expect(sent['ref']).toMatch(UUID);
    expect(sent['ref']).not.toBe(fields.ref.examples[0]);
    expect([...(sent['label'] as string)].length).toBeLessThanOrEqual(12);
    expect(sent['label']).not.toBe('hello world');
    expect(summary(results)).toEqual([]);
    // The server is strict about the update, not about input it may take (an integer written 3.0: lenient).
    expect(allFindings(results).filter((f) => !f.lenient)).toEqual([]);
  }, 120_000);

  test('a server that ignores the update of one field is flagged on putThing, by update-persisted, naming it', async () => {
    const results = await run(true);
    expect(summary(results)).toEqual(['putThing: failed [update-persisted]']);
    expect(chain(results)?.findings.find((f) => f.check === 'update-persisted')?.message).toBe('The update was answered with success but kind did not change.');
  }, 120_000);
});
