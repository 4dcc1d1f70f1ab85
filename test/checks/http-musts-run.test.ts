/**
 * HTTP's own MUSTs that a contract does not restate, end to end: a 401 carries WWW-Authenticate with a challenge
 * (RFC 9110 §15.5.2, §11.6.1: unauthorized-challenge), and a 201's Location names the created record, not merely a
 * URL that answers (§10.2.2: location-serves-record). A small OpenAPI 3.1 contract (POST /items, GET
 * /items/{itemId}; records named by `itemId`, so no `id` in a body tells one record from another) behind a bearer
 * token. Correct: the service challenges itself, Location relative; the service does not, a gateway in front adds
 * the header to its 401s. Faulty: a 401 without the header; a Location naming a record that exists, not the created
 * one. The faulty ones under seeds 1 to 3, each correct one under one seed.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { challengeSchemes } from '../../src/runner/checks/unauthorized-challenge.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, bearerContract, pool, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';
import { namedItemBody } from '../support/named-item.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 300_000;
const OURS = new Set(['unauthorized-challenge', 'location-serves-record']);

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ITEM = { type: 'object', required: ['itemId', 'name'], properties: { itemId: { type: 'integer', minimum: 1, readOnly: true }, name: { type: 'string', minLength: 1, maxLength: 20 } } };
const INPUT = { type: 'object', required: ['name'], additionalProperties: false, properties: { name: ITEM.properties.name } };
const itemId = { name: 'itemId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const CONTRACT = bearerContract('3.1.0', 'items', {
  '/items': {
    post: {
      operationId: 'createItem',
      requestBody: { required: true, content: json(INPUT) },
      responses: { '201': { description: 'created', headers: { Location: { schema: { type: 'string' } } }, content: json(ITEM) }, '400': { description: 'invalid', content: json(ERROR) }, '401': { description: 'no credentials', content: json(ERROR) } },
    },
  },
  '/items/{itemId}': {
    get: { operationId: 'getItem', parameters: [itemId], responses: { '200': { description: 'the item', content: json(ITEM) }, '400': { description: 'invalid', content: json(ERROR) }, '401': { description: 'no credentials', content: json(ERROR) }, '404': { description: 'none', content: json(ERROR) } } },
  },
});

type Variant = 'challenges' | 'gateway-challenges' | 'no-challenge' | 'location-other-record';

/** The service: item 1 exists from the start; a 401 with `Bearer` unless the variant leaves the header out. */
function itemsServer(variant: Variant): Server {
  const items = new Map<number, { itemId: number; name: string }>([[1, { itemId: 1, name: 'seed' }]]);
  let next = 2;
  const send = (res: ServerResponse, status: number, value?: unknown, headers: Record<string, string> = {}) => {
    const payload = value === undefined ? '' : JSON.stringify(value);
    res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': 'application/json' }), 'content-length': String(Buffer.byteLength(payload)), ...headers }).end(payload);
  };
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const method = req.method ?? 'GET';
      const route = path === '/svc/items' ? 'collection' : /^\/svc\/items\/[^/]+$/.test(path) ? 'item' : undefined;
      if (route === undefined) return send(res, 404, { message: 'no such route' });
      const allowed = route === 'collection' ? ['POST'] : ['GET'];
      if (!allowed.includes(method)) return send(res, 405, undefined, { allow: allowed.join(', ') });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        const challenge: Record<string, string> = variant === 'challenges' || variant === 'location-other-record' ? { 'www-authenticate': 'Bearer realm="items"' } : {};
        return send(res, 401, { message: 'not authenticated' }, challenge);
      }
      if (route === 'collection') {
        const read = namedItemBody(req.headers['content-type'], chunks);
        if ('refused' in read) return send(res, 400, { message: read.refused });
        const { name } = read;
        const record = { itemId: next++, name };
        items.set(record.itemId, record);
        const location = variant === 'location-other-record' ? '/svc/items/1' : `items/${record.itemId}`;
        return send(res, 201, record, { location });
      }
      const raw = path.split('/')[3] ?? '';
      if (!/^[1-9]\d{0,9}$/.test(raw)) return send(res, 400, { message: 'itemId: an integer from 1' });
      const record = items.get(Number(raw));
      return record ? send(res, 200, record) : send(res, 404, { message: 'no such item' });
    });
  });
}

/** A gateway in front of the service: forwards each request, and adds a challenge to a 401 that has none. */
function gateway(upstream: number): Server {
  return createServer((req, res) => {
    const forward = httpRequest({ host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const headers = { ...answer.headers };
      if (answer.statusCode === 401 && headers['www-authenticate'] === undefined) headers['www-authenticate'] = 'Bearer realm="gateway"';
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
}

async function run(variant: Variant, seed: number): Promise<RunResults> {
  return limit(async () => {
    const servers = [itemsServer(variant)];
    await new Promise<void>((resolve) => servers[0]!.listen(0, '127.0.0.1', resolve));
    if (variant === 'gateway-challenges') {
      servers.push(gateway((servers[0]!.address() as AddressInfo).port));
      await new Promise<void>((resolve) => servers[1]!.listen(0, '127.0.0.1', resolve));
    }
    try {
      const file = join(await tempDir(), 'items.json');
      await writeFile(file, JSON.stringify(CONTRACT));
      const url = `http://127.0.0.1:${(servers.at(-1)!.address() as AddressInfo).port}/svc`;
      const r = await runCli(['--spec', file, '--base-url', url, '--token', TOKEN, '--quiet', '--seed', String(seed)]);
      const results = requireResults(r);
      expect(resultsSchemaErrors(results)).toEqual([]);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      const faulty = variant === 'no-challenge' || variant === 'location-other-record';
      expect(r.code, `${summary(results).join('\n')}\n${errors.map((f) => `${f.operationId} ${f.check}: ${f.message}`).join('\n')}\n${r.stderr}`).toBe(faulty ? 1 : 0);
      return results;
    } finally {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    }
  });
}

/** "<operation> <severity> <check>" of every finding of the two checks, once each. */
function found(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => OURS.has(f.check)).map((f) => `${f.operationId} ${f.severity} ${f.check}`))].sort();
}

/** The checks that ran on the operation (passed ones are counted per operation). */
function ran(results: RunResults, operationId: string): Set<string> {
  const op = results.operations.find((o) => o.operationId === operationId)!;
  return new Set([...Object.keys(op.passedChecks ?? {}), ...op.cases.flatMap((c) => c.checks.map((k) => k.id))]);
}

describe('the challenges a WWW-Authenticate value names (challengeSchemes)', () => {
  test.each([
    ['Bearer', ['Bearer']],
    ['Bearer realm="x", error="invalid_token"', ['Bearer']],
    ['Basic realm="a", Bearer', ['Basic', 'Bearer']],
    ['Bearer abc==', ['Bearer']],
    ['', []],
    ['realm="x"', []],
  ])('%j', (value, schemes) => expect(challengeSchemes(value)).toEqual(schemes));
});

describe.concurrent('a 401 without a challenge, a Location that names another record', () => {
  test.each([1, 2, 3])(
    'a 401 without WWW-Authenticate, seed %i: an error on each operation, by unauthorized-challenge alone, with its curl line',
    async (seed) => {
      const results = await run('no-challenge', seed);
      expect(found(results)).toEqual(['createItem error unauthorized-challenge', 'getItem error unauthorized-challenge']);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      expect(new Set(errors.map((f) => f.check))).toEqual(new Set(['unauthorized-challenge']));
      const first = errors.find((f) => f.operationId === 'getItem')!;
      expect(first.message).toMatch(/^GET \/svc\/items\/\S+ answered 401 without a WWW-Authenticate header, but a 401 must carry at least one challenge \(RFC 9110 §15\.5\.2, §11\.6\.1\)/);
      // Its curl line: its own, or its case's where the two are one.
      const holder = results.operations.flatMap((o) => o.cases).find((c) => c.findings.includes(first))!;
      expect(first.curl ?? holder.curl).toMatch(/^curl .*\/svc\/items\//);
      expect(first.curl ?? holder.curl).not.toContain(TOKEN);
      expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(['createItem', 'getItem']);
    },
    RUN_TIMEOUT,
  );

  test.each([1, 2, 3])(
    'a Location that names item 1 (which serves, without an id field), seed %i: an error on the create',
    async (seed) => {
      const results = await run('location-other-record', seed);
      expect(found(results)).toEqual(['createItem error location-serves-record']);
      const error = allFindings(results).find((f) => f.check === 'location-serves-record')!;
      expect(error.message).toMatch(/^POST \/svc\/items answered 201 with Location \/svc\/items\/1, the URL of getItem for \{itemId\} = 1: not the created record \d+ \(RFC 9110 §10\.2\.2/);
      expect(allFindings(results).filter((f) => f.severity === 'error').map((f) => f.check)).toEqual(['location-serves-record']);
    },
    RUN_TIMEOUT,
  );
});

// Each correct deployment under one seed: the faulty ones above run seeds 1, 2 and 3, and a second seed of a
// deployment that flags nothing proves nothing the first does not.
describe.concurrent('correct: the service challenges, or a gateway in front adds the challenge; a relative Location', () => {
  test.each([
    ['challenges', 1],
    ['gateway-challenges', 2],
  ] as const)(
    '%s, seed %i: nothing found; conformant; both checks ran',
    async (variant, seed) => {
      const results = await run(variant, seed);
      expect(found(results)).toEqual([]);
      expect(results.verdict).toBe('conformant');
      expect([...ran(results, 'createItem')].filter((c) => OURS.has(c)).sort()).toEqual(['location-serves-record', 'unauthorized-challenge']);
      expect(ran(results, 'getItem').has('unauthorized-challenge')).toBe(true);
      // The 401s were there to judge: the auth cases got them.
      const unauthorized = results.operations.flatMap((o) => o.cases).filter((c) => c.kind === 'auth');
      expect(unauthorized.length).toBeGreaterThan(0);
    },
    RUN_TIMEOUT,
  );
});
