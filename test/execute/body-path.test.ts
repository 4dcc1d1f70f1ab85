/**
 * A body never contradicts its path: where an update's body names the record (`id`, as the path does, or a bare
 * `id` where the path's last segment is a parameter of another name: `/things/{thingId}`), every request meant to
 * be valid sends the path's value there, the "update persisted" chain included (it changes every
 * other field). A server that refuses a body naming another record than its path is correct, and passes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const thing = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', minimum: 1, examples: [1] }, name: { type: 'string', maxLength: 20, examples: ['first'] } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const pathParameter = (name: string) => [{ name, in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];
const specFor = (param: string) => {
  const id = pathParameter(param);
  return {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  servers: [{ url: 'http://127.0.0.1/t' }],
  paths: {
    '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json({ type: 'object', required: ['name'], properties: { name: thing.properties.name } }) }, responses: { '201': { description: 'made', content: json(thing) }, '400': { description: 'no', content: json({ type: 'object' }) } } } },
    [`/things/{${param}}`]: {
      get: { operationId: 'getThing', parameters: id, responses: { '200': { description: 'ok', content: json(thing) }, '400': { description: 'no', content: json({ type: 'object' }) }, '404': { description: 'none', content: json({ type: 'object' }) } } },
      put: { operationId: 'putThing', parameters: id, requestBody: { required: true, content: json(thing) }, responses: { '200': { description: 'ok', content: json(thing) }, '400': { description: 'no', content: json({ type: 'object' }) }, '404': { description: 'none', content: json({ type: 'object' }) } } },
    },
  },
  };
};

function server(): Server {
  const things = new Map<number, string>();
  let next = 1;
  return createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const m = /^\/t\/things(?:\/([^/?]+))?$/.exec(req.url ?? '');
      if (!m) return send(404, { message: 'no route' });
      let body: Record<string, unknown> = {};
      try {
        if (text !== '') body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return send(400, { message: 'not JSON' });
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return send(400, { message: 'not an object' });
      if ((req.method === 'POST' || req.method === 'PUT') && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) return send(400, { message: 'not JSON' });
      if (m[1] === undefined) {
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
        if (typeof body['name'] !== 'string' || [...body['name']].length > 20) return send(400, { message: 'name' });
        const made = next++;
        things.set(made, body['name']);
        return send(201, { id: made, name: body['name'] });
      }
      if (!['GET', 'PUT'].includes(req.method ?? '')) return res.writeHead(405, { allow: 'GET, PUT' }).end();
      if (!/^[1-9]\d{0,9}$/.test(m[1])) return send(400, { message: 'id' });
      const key = Number(m[1]);
      if (!things.has(key)) return send(404, { message: 'none' });
      if (req.method === 'PUT') {
        // The body's id names the record too: it must be the path's.
        if (body['id'] !== key || !Number.isInteger(body['id'])) return send(400, { message: `the body names record ${String(body['id'])}, the path ${key}` });
        if (typeof body['name'] !== 'string' || [...body['name']].length > 20) return send(400, { message: 'name' });
        things.set(key, body['name']);
      }
      return send(200, { id: key, name: things.get(key) });
    });
  });
}

for (const param of ['id', 'thingId']) test(`the update chain sends the path's id in the body and changes the rest: a server holding them to agree passes (path parameter {${param}})`, async () => {
  const srv = server();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(specFor(param)));
    const results = requireResults(await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--token', 'things-token', '--quiet', '--seed', '1', '--keep-passed-exchanges']));
    expect(summary(results)).toEqual([]);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    const chain = operation(results, 'putThing').cases.find((c) => c.name === 'lifecycle: update persisted');
    expect(chain?.outcome).toBe('passed');
    const put = chain?.exchanges.find((e) => e.request.method === 'PUT');
    const pathId = Number(new URL(put?.request.url ?? 'http://x/').pathname.split('/').at(-1));
    expect(JSON.parse(put?.request.body ?? '{}')).toMatchObject({ id: pathId, name: expect.stringContaining('changed') });
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
});
