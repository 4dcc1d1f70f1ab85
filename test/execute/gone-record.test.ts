/**
 * A valid update refused with 404, on a record the run got from the service: the record may be gone since (the
 * run's own deletes, a cascade among them, someone else's), or the update may be broken. A read of the same path
 * tells: where it answers 404 too, the refusal is about the record (a warning that says so); where it serves the
 * record, the update refused a valid request (positive-data-accepted, an error).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const THING = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 20 } } };
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const id = [{ name: 'thingId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      get: { operationId: 'listThings', responses: { '200': { description: 'all', ...json({ type: 'array', items: THING }) } } },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 20 } } }) },
        responses: { '201': { description: 'made', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) } },
      },
    },
    '/things/{thingId}': {
      get: { operationId: 'getThing', parameters: id, responses: { '200': { description: 'one', ...json(THING) }, '404': { description: 'none', ...json(ERROR) } } },
      put: {
        operationId: 'putThing',
        parameters: id,
        requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 20 } } }) },
        responses: { '200': { description: 'updated', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) }, '404': { description: 'none', ...json(ERROR) } },
      },
    },
  },
};

type Mode = 'deleted-meanwhile' | 'broken-update';

/**
 * The store holds thing 7 and makes no other (every create is refused: the run updates the record it finds).
 * 'deleted-meanwhile': thing 7 is deleted as its update arrives (by someone else, or the run's own cascade): the
 * update and every read after it answer 404. 'broken-update': thing 7 stays served, but its update answers 404.
 */
function server(mode: Mode): Server {
  let held = true;
  return createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (path === '/t/things') {
        if (req.method === 'GET') return send(200, held ? [{ id: 7, name: 'seven' }] : []);
        return req.method === 'POST' ? send(400, { message: 'this store is read-only' }) : res.writeHead(405, { allow: 'GET, POST' }).end();
      }
      const m = /^\/t\/things\/([^/]+)$/.exec(path);
      if (!m) return send(404, { message: 'no route' });
      if (req.method !== 'GET' && req.method !== 'PUT') return res.writeHead(405, { allow: 'GET, PUT' }).end();
      const seven = m[1] === '7' && held;
      if (req.method === 'GET') return seven ? send(200, { id: 7, name: 'seven' }) : send(404, { message: 'no such thing' });
      let t: { name?: unknown };
      try {
        t = JSON.parse(body) as typeof t;
      } catch {
        return send(400, { message: 'malformed JSON' });
      }
      if (typeof t !== 'object' || t === null || Array.isArray(t) || typeof t.name !== 'string' || [...t.name].length > 20) return send(400, { message: 'invalid' });
      if (seven && mode === 'deleted-meanwhile') held = false;
      return send(404, { message: 'no such thing' });
    });
  });
}

async function run(mode: Mode): Promise<RunResults> {
  const srv = server(mode);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    return requireResults(await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--quiet', '--seed', '1', '--allow-irreversible', '--concurrency', '1']));
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const positive = (results: RunResults) => results.operations.find((o) => o.operationId === 'putThing')!.cases.find((c) => c.kind === 'positive')!;

describe('a valid update refused with 404 on a record the run got from the service', () => {
  test('the record is gone (a read of its path answers 404 too): a warning naming it, not an error', async () => {
    const found = positive(await run('deleted-meanwhile')).findings.filter((f) => f.check === 'positive-data-accepted');
    expect(found.map((f) => f.severity)).toEqual(['warning']);
    expect(found[0]!.message).toMatch(/\{thingId\} = "7" \(GET \/things\/\{thingId\} answered 404 too: the deployment no longer holds it\): the refusal is about that record/);
  }, 120_000);

  test('the record is served (its read answers 200): the update refused a valid request, an error', async () => {
    const found = positive(await run('broken-update')).findings.filter((f) => f.check === 'positive-data-accepted');
    expect(found.map((f) => f.severity)).toContain('error');
  }, 120_000);
});
