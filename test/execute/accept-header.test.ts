/**
 * Every request asks for the media types the operation's answers declare (successes first), and the coverage
 * phase asks for each declared type alone and once for a type nobody declared. A server that negotiates strictly
 * (406 to an Accept it cannot meet, as RFC 9110 §12.5.1 allows) and one that ignores Accept are both correct;
 * a declared media type refused, a server error to an undeclared one, a broken XML answer and an error answer in
 * a type the contract does not declare are each found on their operation by their check.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'negotiation', version: '1' },
  servers: [{ url: 'http://127.0.0.1/n' }],
  paths: {
    '/articles': {
      get: {
        operationId: 'listArticles',
        responses: { '200': { description: 'articles', content: { 'application/vnd.api+json': { schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { type: 'object' } } } } } } } },
      },
    },
    '/hello': { get: { operationId: 'hello', responses: { '200': { description: 'a greeting', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
    '/report': {
      get: {
        operationId: 'report',
        responses: {
          '200': {
            description: 'the report',
            content: {
              'application/json': { schema: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } } },
              'application/xml': { schema: { type: 'object' } },
            },
          },
        },
      },
    },
    '/items': {
      post: {
        operationId: 'addItem',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } } } },
        responses: {
          '201': { description: 'added', content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } } },
          '400': { description: 'refused', content: { 'application/problem+json': { schema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } } } },
          '415': { description: 'not JSON' },
        },
      },
    },
  },
};

type Fault = 'refuses-declared' | 'crash-undeclared' | 'broken-xml' | 'html-error';

/** The media types an Accept header lets through, of those offered, in the server's order. */
function acceptable(req: IncomingMessage, offered: string[]): string[] {
  const header = req.headers.accept;
  if (!header) return offered;
  const ranges = header.split(',').map((r) => r.split(';')[0]!.trim().toLowerCase());
  return offered.filter((o) => ranges.some((r) => r === '*/*' || r === o || (r.endsWith('/*') && o.startsWith(r.slice(0, -1)))));
}

/** The Accept headers each path was sent. */
const asked = new Map<string, Set<string>>();

/** A correct server that negotiates strictly (406 to an Accept it cannot meet) or ignores Accept, or a faulty one. */
function server(mode: 'strict' | 'ignores', fault?: Fault): Server {
  asked.clear();
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!asked.has(path)) asked.set(path, new Set());
    asked.get(path)!.add(req.headers.accept ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, type: string | undefined, body: string) => res.writeHead(status, type ? { 'content-type': type } : {}).end(body);
      const routes: Record<string, { method: string; offered: string[] }> = {
        '/n/articles': { method: 'GET', offered: ['application/vnd.api+json'] },
        '/n/hello': { method: 'GET', offered: ['text/plain'] },
        '/n/report': { method: 'GET', offered: fault === 'refuses-declared' ? ['application/json'] : ['application/json', 'application/xml'] },
        '/n/items': { method: 'POST', offered: ['application/json', 'application/problem+json'] },
      };
      const route = routes[url.pathname];
      if (!route) return send(404, 'text/plain', 'not found');
      if (req.method !== route.method) return res.writeHead(405, { allow: route.method }).end();
      const chosen = mode === 'ignores' ? route.offered : acceptable(req, route.offered);
      if (chosen.length === 0) return fault === 'crash-undeclared' ? send(500, 'text/plain', 'no renderer') : send(406, 'text/plain', 'not acceptable');
      if (url.pathname === '/n/articles') return send(200, 'application/vnd.api+json', JSON.stringify({ data: [{ id: '1', type: 'articles' }] }));
      if (url.pathname === '/n/hello') return send(200, 'text/plain', 'hello');
      if (url.pathname === '/n/report') {
        if (chosen[0] === 'application/xml') return send(200, 'application/xml', fault === 'broken-xml' ? '<report><total>3</report>' : '<report><total>3</total></report>');
        return send(200, 'application/json', JSON.stringify({ total: 3 }));
      }
      // POST /items: JSON only; a refusal in problem+json, or (html-error) an HTML page to a client asking for problem+json alone.
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return send(415, undefined, '');
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const name = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['name'] : undefined;
      if (typeof name !== 'string' || name === '') {
        if (fault === 'html-error' && req.headers.accept === 'application/problem+json') return send(400, 'text/html', '<html><body>Bad request</body></html>');
        return send(400, 'application/problem+json', JSON.stringify({ title: 'name is required' }));
      }
      return send(201, 'application/json', JSON.stringify({ name }));
    });
  });
}

async function run(srv: Server): Promise<RunResults> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'negotiation.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/n`, '--token', 'negotiation-token', '--quiet', '--seed', '1', '--keep-passed-exchanges']);
    return requireResults(cli);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

/** The Accept headers a run sent to a path. */
function acceptsSent(path: string): string[] {
  return [...(asked.get(`/n${path}`) ?? [])].sort();
}

/** "<operationId>: <checks>" of the error findings. */
function errors(results: RunResults): string[] {
  const by = new Map<string, Set<string>>();
  for (const f of allFindings(results).filter((x) => x.severity === 'error')) by.set(f.operationId, (by.get(f.operationId) ?? new Set()).add(f.check));
  return [...by].map(([op, checks]) => `${op}: ${[...checks].sort().join(', ')}`).sort();
}

describe('Accept: the media types the contract declares', () => {
  test('a server that negotiates strictly is conformant: each operation is asked for what it declares', async () => {
    const results = await run(server('strict'));
    expect(summary(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
    expect(acceptsSent('/articles')).toContain('application/vnd.api+json');
    expect(acceptsSent('/hello')).toContain('text/plain');
    // Both declared types of the report, the first asked with the other and alone.
    expect(acceptsSent('/report')).toEqual(expect.arrayContaining(['application/json, application/xml', 'application/xml']));
    expect(acceptsSent('/items')).toEqual(expect.arrayContaining(['application/json, application/problem+json', 'application/problem+json']));
    // A 406 to an Accept nobody declared is the right answer: a warning where the contract does not document it.
    const undeclared = allFindings(results).filter((f) => f.severity === 'warning' && /Status 406 is not documented/.test(f.message));
    expect(undeclared.map((f) => f.operationId).sort()).toEqual(['addItem', 'hello', 'listArticles', 'report']);
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
  }, 120_000);

  test('a server that ignores Accept is conformant', async () => {
    const results = await run(server('ignores'));
    expect(summary(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
  }, 120_000);

  test.each([
    ['refuses-declared', ['report: positive-data-accepted, status-code-conformance'], /^Status 406 is not documented for report/],
    ['crash-undeclared', ['addItem: not-a-server-error, status-code-conformance', 'hello: not-a-server-error, status-code-conformance', 'listArticles: not-a-server-error, status-code-conformance', 'report: not-a-server-error, status-code-conformance'], /Status 500 is not documented/],
    ['broken-xml', ['report: response-body-readable'], /^Response 200 is labelled application\/xml but is not well-formed XML/],
    ['html-error', ['addItem: content-type-conformance'], /^Response 400 has content type text\/html, not one the contract declares/],
  ] as const)('%s is found on its operation by its check', async (fault, expected, message) => {
    const results = await run(server('strict', fault));
    expect(errors(results)).toEqual(expected);
    expect(results.verdict).toBe('not-conformant');
    expect(allFindings(results).some((f) => f.severity === 'error' && message.test(f.message))).toBe(true);
  }, 120_000);
});
