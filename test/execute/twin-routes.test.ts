/**
 * The same answer gets the same verdict on twin routes. A router refuses an id that is not of the parameter's type
 * (400, before the handler), a handler answers an id no record has with its own 404: so the requests that must name
 * no record (the DELETE's presence probe, its auth and negative cases) carry a value valid for the parameter (a
 * fresh uuid, a large integer in range), as the GET beside it does, and identical server behaviour passes both.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = { description: 'no such record', content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } } } };

function collection(name: string, id: Record<string, unknown>) {
  const record = { type: 'object', required: ['id', 'name'], properties: { id, name: { type: 'string' } } };
  const param = [{ name: 'id', in: 'path', required: true, schema: id }];
  return {
    [`/${name}`]: {
      post: {
        operationId: `create-${name}`,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } } } },
        responses: { '201': { description: 'created', content: { 'application/json': { schema: record } } }, '400': notFound },
      },
    },
    [`/${name}/{id}`]: {
      get: { operationId: `get-${name}`, parameters: param, responses: { '200': { description: 'the record', content: { 'application/json': { schema: record } } }, '400': notFound, '404': notFound } },
      delete: { operationId: `delete-${name}`, parameters: param, responses: { '204': { description: 'deleted' }, '400': notFound, '404': notFound } },
    },
  };
}

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'twins', version: '1' },
  servers: [{ url: 'http://127.0.0.1/api' }],
  paths: { ...collection('pets', { type: 'integer', format: 'int64', minimum: 1 }), ...collection('things', { type: 'string', format: 'uuid' }) },
};

/** A router that refuses a malformed id with a 400 before the handler, and handlers that answer an unknown one 404. */
function server(): Server {
  const records = { pets: new Map<string, string>(), things: new Map<string, string>() };
  let next = 1;
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const send = (status: number, value?: unknown) => {
        const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
        res.writeHead(status, value === undefined ? {} : { 'content-type': typeof value === 'string' ? 'text/plain' : 'application/json' }).end(text);
      };
      const m = /^\/api\/(pets|things)(?:\/([^/?]+))?(?:\?.*)?$/.exec(req.url ?? '');
      if (!m) return send(404, '404 page not found');
      const kind = m[1] as 'pets' | 'things';
      const id = m[2] === undefined ? undefined : decodeLeniently(m[2]);
      const allowed = id === undefined ? ['POST'] : ['GET', 'DELETE'];
      if (!allowed.includes(req.method ?? '')) return res.writeHead(405, { allow: allowed.join(', ') }).end();
      if (id === undefined) {
        let name: unknown;
        try {
          name = (JSON.parse(body) as { name?: unknown }).name;
        } catch {
          return send(400, { message: 'not JSON' });
        }
        if (typeof name !== 'string' || name === '') return send(400, { message: 'name is required' });
        const created = kind === 'pets' ? String(next++) : randomUUID();
        records[kind].set(created, name);
        return send(201, { id: kind === 'pets' ? Number(created) : created, name });
      }
      // The router's own refusal of an id that is not of the route's type.
      if (kind === 'pets' ? !(/^[1-9]\d{0,18}$/.test(id) && BigInt(id) <= 2n ** 63n - 1n) : !UUID.test(id)) return send(400, { message: 'invalid id' });
      const key = kind === 'pets' ? String(Number(id)) : id.toLowerCase();
      if (!records[kind].has(key)) return send(404, { message: `no ${kind} ${id}` });
      if (req.method === 'DELETE') {
        records[kind].delete(key);
        return send(204);
      }
      return send(200, { id: kind === 'pets' ? Number(key) : key, name: records[kind].get(key) });
    });
  });
}

test('GET and DELETE of one path, integer and uuid ids: the same behaviour, the same verdict; the probes name no record with a valid id', async () => {
  const srv = server();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'twins.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const run = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api`, '--token', 't0k3n-twins', '--quiet', '--seed', '1', '--keep-passed-exchanges']);
    const results = requireResults(run);
    expect(summary(results)).toEqual([]);
    expect(allFindings(results).filter((f) => f.severity !== 'info' && !f.lenient)).toEqual([]);
    for (const kind of ['pets', 'things']) {
      const get = results.operations.find((o) => o.operationId === `get-${kind}`);
      const del = results.operations.find((o) => o.operationId === `delete-${kind}`);
      expect([get?.outcome, del?.outcome]).toEqual(['passed', 'passed']);
      // The DELETE's presence probe named no record, with an id of the parameter's type.
      const probe = del?.cases.find((c) => c.kind === 'presence')?.exchanges[0];
      const sent = decodeURIComponent(new URL(probe?.request.url ?? 'http://x/').pathname.split('/').at(-1) ?? '');
      expect(sent).toMatch(kind === 'pets' ? /^\d+$/ : UUID);
      expect(probe?.response?.status).toBe(404);
    }
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
});
