/**
 * Paging keeps its promises where the contract names it: a list `GET /items` with a page size (`pageSize`, at least 2)
 * and a page index (`page`, from 1), answering `{ total, data }`. The run pages through with the smallest size; a
 * small real server holds five items from the start. Correct: pages as asked; pages of fewer records than asked that
 * say so (`pageSize` in the answer) while the index still steps through every record. Faulty: a server that ignores
 * the page size (every record on every page); a total that counts one page; pages that overlap (the last record of
 * a page comes again first on the next). Each found on listItems by paging-kept, under seeds 1 to 3; the correct
 * ones, under one seed each, found nothing, the check ran.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { pagingOf } from '../../src/runner/plan/paging.ts';
import type { Operation, RunResults } from '../../src/runner/model.ts';
import { allFindings, bearerContract, pool, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';
import { namedItemBody } from '../support/named-item.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 300_000;

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ITEM = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', minimum: 1, readOnly: true }, name: { type: 'string', minLength: 1, maxLength: 20 } } };
const PAGE = { type: 'object', required: ['data'], properties: { total: { type: 'integer', minimum: 0 }, pageSize: { type: 'integer', minimum: 1 }, data: { type: 'array', items: ITEM } } };
const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const CONTRACT = bearerContract('3.1.0', 'items', {
  '/items': {
    get: {
      operationId: 'listItems',
      parameters: [
        { name: 'pageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 2, maximum: 50, description: 'the page size' } },
        { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000000, description: 'the page number, from 1' } },
      ],
      responses: { '200': { description: 'a page', content: json(PAGE) }, '400': { description: 'invalid', content: json(ERROR) } },
    },
    post: {
      operationId: 'createItem',
      requestBody: { required: true, content: json({ type: 'object', required: ['name'], additionalProperties: false, properties: { name: ITEM.properties.name } }) },
      responses: { '201': { description: 'created', content: json(ITEM) }, '400': { description: 'invalid', content: json(ERROR) } },
    },
  },
  '/items/{id}': {
    get: { operationId: 'getItem', parameters: [id], responses: { '200': { description: 'the item', content: json(ITEM) }, '400': { description: 'invalid', content: json(ERROR) }, '404': { description: 'none', content: json(ERROR) } } },
    delete: { operationId: 'deleteItem', parameters: [id], responses: { '204': { description: 'deleted' }, '400': { description: 'invalid', content: json(ERROR) }, '404': { description: 'none', content: json(ERROR) } } },
  },
});

type Variant = 'as-asked' | 'fewer-and-says-so' | 'ignores-size' | 'total-of-one-page' | 'overlapping';
const FAULTY = new Set<Variant>(['ignores-size', 'total-of-one-page', 'overlapping']);

function itemsServer(variant: Variant): Server {
  const items = new Map<number, { id: number; name: string }>([1, 2, 3, 4, 5].map((n) => [n, { id: n, name: `item ${n}` }]));
  let next = 6;
  const send = (res: ServerResponse, status: number, value?: unknown, headers: Record<string, string> = {}) => {
    const payload = value === undefined ? '' : JSON.stringify(value);
    res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }), ...headers }).end(payload);
  };
  const integer = (raw: string | null, fallback: number, min: number, max: number): number | undefined => {
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw)) return undefined;
    const n = Number(raw);
    return n >= min && n <= max ? n : undefined;
  };
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const method = req.method ?? 'GET';
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { message: 'not authenticated' }, { 'www-authenticate': 'Bearer' });
      if (url.pathname === '/svc/items') {
        if (method === 'GET') {
          const asked = integer(url.searchParams.get('pageSize'), 10, 2, 50);
          const page = integer(url.searchParams.get('page'), 1, 1, 1_000_000);
          if (asked === undefined || page === undefined) return send(res, 400, { message: 'pageSize: 2 to 50; page: from 1' });
          const all = [...items.values()].sort((a, b) => a.id - b.id);
          const size = variant === 'fewer-and-says-so' ? 1 : asked;
          const from = variant === 'overlapping' ? Math.max(0, (page - 1) * (size - 1)) : (page - 1) * size;
          const data = variant === 'ignores-size' ? all : all.slice(from, from + size);
          const total = variant === 'total-of-one-page' ? data.length : all.length;
          return send(res, 200, { total, ...(variant === 'fewer-and-says-so' ? { pageSize: size } : {}), data });
        }
        if (method !== 'POST') return send(res, 405, undefined, { allow: 'GET, POST' });
        const read = namedItemBody(req.headers['content-type'], chunks);
        if ('refused' in read) return send(res, 400, { message: read.refused });
        const { name } = read;
        const record = { id: next++, name };
        items.set(record.id, record);
        return send(res, 201, record);
      }
      const match = /^\/svc\/items\/([^/]+)$/.exec(url.pathname);
      if (!match) return send(res, 404, { message: 'no such route' });
      if (method !== 'GET' && method !== 'DELETE') return send(res, 405, undefined, { allow: 'GET, DELETE' });
      if (!/^[1-9]\d{0,9}$/.test(match[1]!)) return send(res, 400, { message: 'id: an integer from 1' });
      const record = items.get(Number(match[1]));
      if (!record) return send(res, 404, { message: 'no such item' });
      if (method === 'GET') return send(res, 200, record);
      items.delete(record.id);
      return send(res, 204);
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
      const r = await runCli(['--spec', file, '--base-url', url, '--token', TOKEN, '--quiet', '--seed', String(seed), '--allow-irreversible']);
      const results = requireResults(r);
      expect(resultsSchemaErrors(results)).toEqual([]);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      expect(r.code, `${summary(results).join('\n')}\n${errors.map((f) => `${f.operationId} ${f.check}: ${f.message}`).join('\n')}\n${r.stderr}`).toBe(FAULTY.has(variant) ? 1 : 0);
      return results;
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

describe('what a contract names of paging (pagingOf)', () => {
  const list = (parameters: Array<{ name: string; schema?: Record<string, unknown> }>, page: unknown = PAGE): Operation =>
    ({
      operationId: 'list', method: 'GET', path: '/items', service: 's', group: '/items', specFile: 'x', pointer: '', secured: false, extensions: {},
      parameters: parameters.map((p) => ({ name: p.name, in: 'query', required: false, schema: p.schema ?? { type: 'integer' }, pointer: '' })),
      responses: [{ status: '200', contentTypes: ['application/json'], schema: page }],
    }) as unknown as Operation;
  test('a page size and an index, an offset, or a next link', () => {
    expect(pagingOf(list([{ name: 'pageSize', schema: { type: 'integer', minimum: 2 } }, { name: 'page', schema: { type: 'integer', minimum: 1 } }]))).toMatchObject({ size: { name: 'pageSize', smallest: 2 }, step: { name: 'page', kind: 'index', first: 1 }, total: true });
    expect(pagingOf(list([{ name: 'limit' }, { name: 'offset' }]))).toMatchObject({ size: { name: 'limit', smallest: 1 }, step: { name: 'offset', kind: 'offset', first: 0 } });
    expect(pagingOf(list([{ name: 'n', schema: { type: 'integer', description: 'Items per page' } }, { name: 'pageIndex' }]))).toMatchObject({ size: { name: 'n' }, step: { name: 'pageIndex', first: 0 } });
    expect(pagingOf(list([{ name: 'per_page' }], { type: 'object', properties: { items: { type: 'array', items: ITEM }, next: { type: 'string' } } }))).toMatchObject({ size: { name: 'per_page' }, next: true });
  });
  test('no page size, or no way to the next page: no paging', () => {
    expect(pagingOf(list([{ name: 'page' }]))).toBeUndefined();
    expect(pagingOf(list([{ name: 'limit' }], { type: 'array', items: ITEM }))).toBeUndefined();
  });
});

/** "<operation> <severity> <check>" of every paging-kept finding, once each. */
function found(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => f.check === 'paging-kept').map((f) => `${f.operationId} ${f.severity} ${f.check}`))];
}

describe.concurrent('paging through a list', () => {
  test.each([
    ['ignores-size', /^GET \/svc\/items\?pageSize=2&page=1 answered \d+ records for pageSize=2: no page may hold more than the page size asked\.$/m, []],
    // A total that says the page is the whole list: a full page of it proves no created record missing (its writer,
    // createItem, is not blamed, whatever the other cases' deletes left on the first page).
    ['total-of-one-page', /state a total of 2, but paging through them \(pageSize=2, \d+ pages\) reached \d+ records/, []],
    ['overlapping', /\(page 2\) served again 1 record of page 1 \(2\): paging through reaches each record once/, []],
  ] as const)(
    '%s: found on listItems by paging-kept under seeds 1 to 3',
    async (variant, message, alsoFailing) => {
      for (const seed of [1, 2, 3]) {
        const results = await run(variant, seed);
        expect(found(results), `seed ${seed}`).toEqual(['listItems error paging-kept']);
        const errors = allFindings(results).filter((f) => f.severity === 'error');
        expect(new Set(errors.filter((f) => f.operationId === 'listItems').map((f) => f.check)), `seed ${seed}`).toEqual(new Set(['paging-kept']));
        expect(errors.filter((f) => f.check === 'paging-kept').map((f) => f.message).join('\n'), `seed ${seed}`).toMatch(message);
        expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(['listItems', ...alsoFailing].sort());
      }
    },
    RUN_TIMEOUT,
  );

  // Each correct server under one seed: the faulty ones above run seeds 1, 2 and 3, and a second seed of a server
  // that flags nothing proves nothing the first does not.
  test.each([['as-asked', 1], ['fewer-and-says-so', 2]] as const)(
    'correct, %s: nothing found (seed %i); the paging case ran and the check passed',
    async (variant, only) => {
      for (const seed of [only]) {
        const results = await run(variant, seed);
        expect(found(results), `seed ${seed}`).toEqual([]);
        expect(results.verdict).toBe('conformant');
        const op = results.operations.find((o) => o.operationId === 'listItems')!;
        expect(op.passedChecks?.['paging-kept'] ?? 0, `seed ${seed}`).toBeGreaterThan(0);
      }
    },
    RUN_TIMEOUT,
  );
});
