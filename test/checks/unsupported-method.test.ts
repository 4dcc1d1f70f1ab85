/**
 * Methods the contract does not document for a path (TRACE, QUERY and OPTIONS, safe to send): a deployment answers
 * them as HTTP says (405 with Allow, or 501). Proven against real HTTP servers: each way of getting it wrong is
 * flagged on the operation that sent the request, with the unsupported-method check and the right severity;
 * the ways of getting it right are flagged with nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { json, startHttp } from '../http/servers.ts';
import { pool, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

const ITEM = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Items', version: '1' },
  paths: {
    '/items': {
      get: { operationId: 'listItems', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: ITEM } } } } } },
      post: {
        operationId: 'addItem',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } } },
        responses: { '201': { description: 'made', content: { 'application/json': { schema: ITEM } } }, '400': { description: 'invalid' } },
      },
    },
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: ITEM } } }, '400': { description: 'invalid' }, '404': { description: 'none' } },
      },
    },
  },
};

/** How the server answers a method no route has. */
type Undocumented = (req: IncomingMessage, res: ServerResponse, allowed: string[]) => void;

function server(undocumented: Undocumented) {
  const items = new Map<number, { id: number; name: string }>([[1, { id: 1, name: 'one' }]]);
  let probes = 0;
  const handler = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const one = /^\/items\/([^/]+)$/.exec(url.pathname);
    const allowed = url.pathname === '/items' ? ['GET', 'POST'] : one ? ['GET'] : [];
    if (allowed.length === 0) return json(res, 404, { detail: 'Not Found' });
    if (!allowed.includes(req.method ?? '')) {
      probes++;
      return undocumented(req, res, allowed);
    }
    if (one) {
      const id = Number(one[1]);
      if (!Number.isInteger(id)) return json(res, 400, { detail: 'id' });
      const item = items.get(id);
      return item ? json(res, 200, item) : json(res, 404, { detail: 'none' });
    }
    if (req.method === 'GET') return json(res, 200, [...items.values()]);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(res, 400, { detail: 'JSON' });
    }
    const name = (body as { name?: unknown } | null)?.name;
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '') || typeof name !== 'string') return json(res, 400, { detail: 'name' });
    const item = { id: items.size + 1, name };
    items.set(item.id, item);
    return json(res, 201, item);
  };
  return { handler, probes: () => probes };
}

async function run(undocumented: Undocumented): Promise<{ results: RunResults; probes: number; code: number | null }> {
  return limit(async () => {
    const { handler, probes } = server(undocumented);
    const svc = await startHttp(handler);
    try {
      const file = join(await tempDir(), 'items.json');
      await writeFile(file, JSON.stringify(SPEC));
      const r = await runCli(['--spec', file, '--base-url', svc.url, '--token', TOKEN, '--seed', '1']);
      return { results: requireResults(r), probes: probes(), code: r.code };
    } finally {
      await svc.close();
    }
  });
}

function methodFindings(results: RunResults): Array<Pick<Finding, 'operationId' | 'severity'> & { method: string }> {
  return results.operations
    .flatMap((o) => o.cases.flatMap((c) => c.findings))
    .filter((f) => f.check === 'unsupported-method')
    .map((f) => ({ operationId: f.operationId, severity: f.severity, method: /^(TRACE|QUERY|OPTIONS)/.exec(f.message)?.[1] ?? '?' }))
    .sort((a, b) => `${a.operationId}${a.method}`.localeCompare(`${b.operationId}${b.method}`));
}

const allowHeader = (allowed: string[]) => ({ allow: allowed.join(', ') });

describe('methods the contract does not document for a path', () => {
  test(
    'a correct deployment (405 with Allow; 501; OPTIONS answered 204): nothing flagged, every path probed once per method',
    async () => {
      for (const answer of [
        ((_req, res, allowed) => json(res, 405, { detail: 'Method Not Allowed' }, allowHeader(allowed))) as Undocumented,
        ((req, res, allowed) => (req.method === 'OPTIONS' ? (res.writeHead(204, allowHeader(allowed)), res.end()) : json(res, 501, { detail: 'Not Implemented' }))) as Undocumented,
      ]) {
        const { results, probes, code } = await run(answer);
        expect(methodFindings(results)).toEqual([]);
        // Two paths, TRACE, QUERY and OPTIONS each: the GET of each path sends them.
        expect(probes).toBe(6);
        expect(code).toBe(0);
      }
    },
    RUN_TIMEOUT,
  );

  test(
    'a 405 without Allow is an error, on the operation that probed the path (the GET): one finding seen on all three methods',
    async () => {
      const { results, code } = await run((_req, res) => json(res, 405, { detail: 'Method Not Allowed' }));
      expect(methodFindings(results)).toEqual([
        { operationId: 'getItem', severity: 'error', method: 'TRACE' },
        { operationId: 'listItems', severity: 'error', method: 'TRACE' },
      ]);
      const counts = results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings)).filter((f) => f.check === 'unsupported-method').map((f) => f.count);
      expect(counts).toEqual([3, 3]);
      expect(results.operations.find((o) => o.operationId === 'listItems')?.outcome).toBe('failed');
      expect(code).not.toBe(0);
    },
    RUN_TIMEOUT,
  );

  test(
    'a server error is an error; a 404 is a warning where the path names no record, nothing where it names one',
    async () => {
      const crash = await run((_req, res) => json(res, 500, { detail: 'boom' }));
      expect(methodFindings(crash.results).map((f) => `${f.operationId} ${f.method} ${f.severity}`)).toEqual(['getItem TRACE error', 'listItems TRACE error']);
      expect(crash.code).not.toBe(0);
      const notFound = await run((_req, res) => json(res, 404, { detail: 'Not Found' }));
      expect(methodFindings(notFound.results)).toEqual([{ operationId: 'listItems', severity: 'warning', method: 'TRACE' }]);
      // A warning does not fail the run.
      expect(notFound.code).toBe(0);
    },
    RUN_TIMEOUT,
  );

  test(
    "a 405's Allow that leaves out a documented method: an error (a 405 must list the resource's methods); a TRACE that is served: a warning",
    async () => {
      const { results } = await run((req, res) => (req.method === 'TRACE' ? json(res, 200, { echo: true }) : json(res, 405, { detail: 'no' }, { allow: 'GET' })));
      expect(methodFindings(results)).toEqual([
        { operationId: 'getItem', severity: 'warning', method: 'TRACE' },
        // QUERY meets the 405 first (OPTIONS after it: the same finding).
        { operationId: 'listItems', severity: 'error', method: 'QUERY' },
        { operationId: 'listItems', severity: 'warning', method: 'TRACE' },
      ]);
      const allowFinding = results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings)).find((f) => f.check === 'unsupported-method' && f.message.startsWith('QUERY /items '));
      expect(allowFinding?.count).toBe(2);
      expect(allowFinding?.message).toContain('leaves out POST');
    },
    RUN_TIMEOUT,
  );

  test(
    'a successful OPTIONS whose Allow leaves out a documented method (Litestar lists one handler of a path): a warning',
    async () => {
      const { results, code } = await run((req, res, allowed) =>
        req.method === 'OPTIONS' ? (res.writeHead(204, allowHeader(allowed.filter((m) => m !== 'GET'))), res.end()) : json(res, 405, { detail: 'no' }, allowHeader(allowed)),
      );
      expect(methodFindings(results)).toEqual([
        { operationId: 'getItem', severity: 'warning', method: 'OPTIONS' },
        { operationId: 'listItems', severity: 'warning', method: 'OPTIONS' },
      ]);
      const messages = results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings)).filter((f) => f.check === 'unsupported-method').map((f) => f.message);
      expect(messages.every((m) => /^OPTIONS \S+ answered 204 with "Allow: [^"]*", which leaves out GET: documented for this path\.$/.test(m))).toBe(true);
      expect(code).toBe(0);
    },
    RUN_TIMEOUT,
  );

  test(
    'QUERY refused with 400 (a server that does not route the method: Spring): a warning on each path; a 500 to it: an error',
    async () => {
      const refused = await run((req, res, allowed) => (req.method === 'QUERY' ? json(res, 400, { error: 'Bad Request' }) : json(res, 405, { detail: 'no' }, allowHeader(allowed))));
      expect(methodFindings(refused.results)).toEqual([
        { operationId: 'getItem', severity: 'warning', method: 'QUERY' },
        { operationId: 'listItems', severity: 'warning', method: 'QUERY' },
      ]);
      expect(refused.code).toBe(0);
      const crash = await run((req, res, allowed) => (req.method === 'QUERY' ? json(res, 500, { error: 'boom' }) : json(res, 405, { detail: 'no' }, allowHeader(allowed))));
      expect(methodFindings(crash.results)).toEqual([
        { operationId: 'getItem', severity: 'error', method: 'QUERY' },
        { operationId: 'listItems', severity: 'error', method: 'QUERY' },
      ]);
      expect(crash.code).not.toBe(0);
    },
    RUN_TIMEOUT,
  );

  test(
    'QUERY whose connection is cut without an answer (a front or parser that drops the method): a warning of this check, not a server error',
    async () => {
      const { results, code } = await run((req, res, allowed) => (req.method === 'QUERY' ? req.socket.destroy() : json(res, 405, { detail: 'no' }, allowHeader(allowed))));
      expect(methodFindings(results)).toEqual([
        { operationId: 'getItem', severity: 'warning', method: 'QUERY' },
        { operationId: 'listItems', severity: 'warning', method: 'QUERY' },
      ]);
      const all = results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings));
      expect(all.filter((f) => f.check !== 'unsupported-method')).toEqual([]);
      expect(all.find((f) => f.check === 'unsupported-method')?.message).toMatch(/^QUERY \/items\S* \(a method the contract does not document for the path\): the connection was closed without an answer/);
      expect(results.operations.map((o) => o.outcome)).toEqual(['passed', 'passed', 'passed']);
      expect(code).toBe(0);
    },
    RUN_TIMEOUT,
  );
});
