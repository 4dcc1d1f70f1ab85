/**
 * A path parameter the contract types as any string, where the deployment's route takes only some (a segment of
 * two letters): the made-up value meets the unknown-route answer and no operation creates a record to name, so
 * values of other shapes are tried (session.ts, servedForOtherValues). One the route takes proves it served, and
 * its 404 to the values the contract allows is then a finding (status-code-conformance), as Schemathesis reports
 * it (ST103). A correct deployment (any string) passes; one without the route at all stays present but
 * unverified, a warning; a DELETE is never sent values of other shapes.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Languages', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/languages/{code}': {
      parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getLanguage',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } } } } },
      },
      post: {
        operationId: 'describeLanguage',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } } } }, '400': { description: 'bad body' } },
      },
      delete: { operationId: 'forgetLanguage', responses: { '204': { description: 'gone' } } },
    },
  },
};

type Variant = 'two-letters' | 'any' | 'none';

async function run(variant: Variant, args: string[] = []): Promise<{ results: RunResults; seen: string[]; bodies: string[] }> {
  const seen: string[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      if (req.method === 'POST') bodies.push(`${req.url} ${text}`);
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const code = /^\/svc\/languages\/([^/]+)$/.exec(path)?.[1];
      // What a web framework answers to a path no route matches: the same page whatever the path.
      const unknown = () => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      const served = code !== undefined && (variant === 'any' || (variant === 'two-letters' && /^[a-z]{2}$/.test(code)));
      if (!served) return unknown();
      if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code }));
      if (req.method === 'DELETE') return res.writeHead(204).end();
      if (req.method === 'POST') {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return res.writeHead(400).end();
        }
        if (typeof (body as { text?: unknown } | null)?.text !== 'string') return res.writeHead(400).end();
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code }));
      }
      res.writeHead(405, { allow: 'GET, POST, DELETE', 'content-type': 'text/html' }).end('<h1>Method Not Allowed</h1>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/svc`;
  try {
    const spec = join(await tempDir(), 'languages.openapi.json');
    await writeFile(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', url, '--quiet', '--seed', '1', '--fuzz-examples', '10', ...args]);
    return { results: requireResults(cli), seen, bodies };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test('a route that takes only two letters where the contract allows any string: present, and its 404 to other strings a finding', async () => {
  const { results, seen, bodies } = await run('two-letters');
  const get = operation(results, 'getLanguage');
  expect(get.outcome).toBe('failed');
  const found = allFindings(results).filter((f) => f.operationId === 'getLanguage');
  expect(found.map((f) => `${f.check} ${f.severity}`)).toContain('status-code-conformance error');
  expect(found.filter((f) => f.check === 'operation-present')).toEqual([]);
  expect(seen).toContain('GET /svc/languages/ab');
  // The DELETE is never asked with values of other shapes: it could remove a record the run did not make.
  expect(seen.filter((s) => /^DELETE \/svc\/languages\/(a|ab|abc|abcd|1|12|123)$/.test(s))).toEqual([]);
  // The value the route took names the record of the read's cases: its positive case passes on it.
  expect(get.cases.find((c) => c.kind === 'positive')?.skipReason).toBe(undefined);
  expect(get.cases.find((c) => c.kind === 'positive')?.outcome).toBe('passed');
  // A write is sent it only where the user allows what cannot be undone: here its body only ever went malformed.
  expect(bodies.filter((b) => b.startsWith('/svc/languages/ab ') && b.includes('"text"'))).toEqual([]);
  expect(operation(results, 'describeLanguage').cases.find((c) => c.kind === 'positive')?.outcome).toBe('skipped');
});

test('with --allow-irreversible, a write names the value the route took', async () => {
  const { results, bodies } = await run('two-letters', ['--allow-irreversible']);
  const positive = operation(results, 'describeLanguage').cases.find((c) => c.kind === 'positive');
  expect(positive?.skipReason).toBe(undefined);
  expect(positive?.outcome).toBe('passed');
  expect(bodies.some((b) => b.startsWith('/svc/languages/ab ') && b.includes('"text"'))).toBe(true);
});

test('a correct deployment (any string): nothing found, no other shape asked', async () => {
  const { results, seen } = await run('any');
  // Its read names a language no operation creates: its cases that need no particular record run on values its
  // schema takes and pass (the coverage asks other methods of the path: the 405 lists the three it serves).
  expect(summary(results).filter((s) => !s.startsWith('forgetLanguage:'))).toEqual(['describeLanguage: untested []']);
  expect(operation(results, 'getLanguage').outcome).toBe('passed');
  // The DELETE's own outcome is not this test's subject (left out of the summary above): this deployment serves
  // every code, also one it was told to forget, which use-after-delete rightly says; the contract documents no 404
  // for the read, so no deployment could answer both.
  expect(allFindings(results).filter((f) => f.operationId !== 'forgetLanguage')).toEqual([]);
  expect(allFindings(results).filter((f) => f.operationId === 'forgetLanguage').map((f) => f.check)).toEqual(['use-after-delete']);
  expect(seen.filter((s) => /^GET \/svc\/languages\/(a|ab|abc|abcd|1|12|123)$/.test(s))).toEqual([]);
});

test('a deployment without the route: present but unverified, a warning, as before', async () => {
  const { results } = await run('none');
  expect(operation(results, 'getLanguage').outcome).toBe('untested');
  expect(allFindings(results).filter((f) => f.operationId === 'getLanguage').map((f) => `${f.check} ${f.severity}`)).toEqual(['operation-present warning']);
});
