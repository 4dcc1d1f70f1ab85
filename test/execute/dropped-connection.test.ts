/**
 * A server that closes the connection without an answer on one input (a handler that crashed: Go's net/http and
 * Rust's hyper cut the connection of a request whose handler panicked) while it answers every other request. The
 * request is sent again on fresh connections, the last time alone; when every attempt is cut and the server answers
 * another request at once, the request broke the server: a `connection-dropped` finding on that operation, naming
 * the variation. A
 * server that closes its idle keep-alive connections quickly (the pool meets sockets closing under it) is correct:
 * nothing is found and no case is errored.
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
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const NEW_THING = {
  type: 'object',
  required: ['name', 'count'],
  properties: { name: { type: 'string', maxLength: 40 }, count: { type: 'integer', minimum: 0, maximum: 100000 } },
};
const THING = {
  type: 'object',
  required: ['id', 'name', 'count'],
  properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, count: { type: 'integer' } },
};
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: { required: true, ...json(NEW_THING) },
        responses: { '201': { description: 'made', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) } },
      },
    },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
        responses: { '200': { description: 'one', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) }, '404': { description: 'none', ...json(ERROR) } },
      },
    },
  },
};

type Mode = 'crashes' | 'correct';

/**
 * 'crashes': a count above 1000 and an id of more than ten digits make the handler fail, and the connection is cut
 * without an answer. 'correct': both are served, and idle keep-alive connections are closed after 5 ms.
 */
function server(mode: Mode): Server {
  const things = new Map<string, { id: number; name: string; count: number }>();
  let next = 1;
  const srv = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const crash = () => req.socket.destroy();
      if (path === '/t/things' && req.method === 'POST') {
        let t: { name?: unknown; count?: unknown };
        try {
          t = JSON.parse(body) as typeof t;
        } catch {
          return send(400, { message: 'malformed JSON' });
        }
        const { name, count } = t ?? {};
        if (typeof name !== 'string' || name.length > 40 || typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 100000) return send(400, { message: 'invalid thing' });
        if (mode === 'crashes' && count > 1000) return crash();
        const thing = { id: next++, name, count };
        things.set(String(thing.id), thing);
        return send(201, thing);
      }
      const item = /^\/t\/things\/([^/]*)$/.exec(path);
      if (item && req.method === 'GET') {
        const id = item[1]!;
        if (!/^-?\d+$/.test(id)) return send(400, { message: 'the id is not an integer' });
        if (mode === 'crashes' && id.replace('-', '').length > 10) return crash();
        const thing = things.get(id.replace(/^(-?)0+(?=\d)/, '$1'));
        return thing ? send(200, thing) : send(404, { message: 'no such thing' });
      }
      if (path === '/t/things' || item) return res.writeHead(405, { allow: item ? 'GET' : 'POST' }).end();
      send(404, { message: 'no such route' });
    });
  });
  if (mode === 'correct') srv.keepAliveTimeout = 5;
  return srv;
}

async function run(mode: Mode, seed: string): Promise<RunResults> {
  const srv = server(mode);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--quiet', '--seed', seed]);
    return requireResults(cli);
  } finally {
    srv.closeAllConnections();
    await new Promise((resolve) => srv.close(resolve));
  }
}

const op = (results: RunResults, id: string) => results.operations.find((o) => o.operationId === id)!;
const findings = (results: RunResults, id: string) => op(results, id).cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error'));

describe('a connection the server cuts on one input', () => {
  for (const seed of ['1', '2']) {
    test(`found as connection-dropped on the operation it breaks, naming the variation (seed ${seed})`, async () => {
      const results = await run('crashes', seed);
      for (const [id, varied] of [['createThing', 'body.count'], ['getThing', 'path.id']] as const) {
        const cut = findings(results, id).filter((f) => f.check === 'connection-dropped');
        expect(findings(results, id).filter((f) => f.check === 'not-a-server-error'), id).toEqual([]);
        expect(cut.length, id).toBeGreaterThan(0);
        expect(cut[0]!.message).toMatch(/closed the connection without an answer/);
        expect(cut[0]!.message).toMatch(/while it answered another request/);
        expect(cut.some((f) => f.varied === varied), `${id}: ${cut.map((f) => f.varied).join(', ')}`).toBe(true);
        expect(op(results, id).outcome, id).toBe('failed');
      }
      expect(results.verdict).toBe('not-conformant');
    }, 120_000);

    test(`a server closing idle connections quickly is not blamed (seed ${seed})`, async () => {
      const results = await run('correct', seed);
      for (const o of results.operations) {
        expect(findings(results, o.operationId), o.operationId).toEqual([]);
        expect(o.outcome, o.operationId).toBe('passed');
      }
      expect(results.verdict).toBe('conformant');
    }, 120_000);
  }
});
