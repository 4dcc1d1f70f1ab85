/**
 * Every request media type the contract declares is sent, valid and invalid: a text/plain body gets the classes
 * of its schema (a length beyond maxLength), a form's fields those of a query parameter (a number that is no
 * number, a bound), a `*\/*` body goes as JSON, text and bytes (never as the literal `*\/*`), and a malformed
 * Content-Type (a multipart type without its boundary, a parameter without a value) goes to operations with and
 * without a body. A correct server is conformant; each fault is found on its operation by its check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const PROBLEM = { description: 'refused', content: { 'text/plain': { schema: { type: 'string' } } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'media in', version: '1' },
  servers: [{ url: 'http://127.0.0.1/m' }],
  paths: {
    '/notes': {
      post: {
        operationId: 'addNote',
        requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string', minLength: 1, maxLength: 20 } } } },
        responses: { '201': { description: 'kept', content: { 'text/plain': { schema: { type: 'string' } } } }, '400': PROBLEM, '415': PROBLEM },
      },
    },
    '/orders': {
      post: {
        operationId: 'order',
        requestBody: {
          required: true,
          content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['name', 'qty'], properties: { name: { type: 'string', minLength: 1, maxLength: 10 }, qty: { type: 'integer', minimum: 1, maximum: 10 } } } } },
        },
        responses: { '201': { description: 'ordered', content: { 'application/json': { schema: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer' } } } } } }, '400': PROBLEM, '415': PROBLEM },
      },
    },
    '/blobs': {
      post: {
        operationId: 'putBlob',
        requestBody: { required: true, content: { '*/*': { schema: {} } } },
        responses: { '201': { description: 'stored', content: { 'application/json': { schema: { type: 'object', required: ['bytes'], properties: { bytes: { type: 'integer' } } } } } }, '400': PROBLEM },
      },
    },
    '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'pong', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
  },
};

type Fault = 'text-unbounded' | 'form-untyped' | 'bytes-crash' | 'boundary-crash';

/** The Content-Type headers each path was sent. */
const sent = new Map<string, Set<string>>();

function server(fault?: Fault): Server {
  sent.clear();
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const type = req.headers['content-type'] ?? '';
      if (!sent.has(url.pathname)) sent.set(url.pathname, new Set());
      sent.get(url.pathname)!.add(type);
      const body = Buffer.concat(chunks);
      const reply = (status: number, contentType: string | undefined, text: string) => res.writeHead(status, contentType ? { 'content-type': contentType } : {}).end(text);
      const refuse = (why: string) => reply(400, 'text/plain', why);
      // A multipart type must carry its boundary: the faulty server's parser throws without one.
      if (/^multipart\//i.test(type) && !/boundary=/i.test(type)) return fault === 'boundary-crash' ? reply(500, 'text/plain', 'Multipart: Boundary not found') : refuse('no boundary');
      if (/;\s*[^=;]+\s*$/.test(type)) return refuse('a parameter without a value');
      const route = { '/m/notes': 'POST', '/m/orders': 'POST', '/m/blobs': 'POST', '/m/ping': 'GET' }[url.pathname];
      if (!route) return reply(404, 'text/plain', 'no such route');
      if (req.method !== route) return res.writeHead(405, { allow: route }).end();
      if (url.pathname === '/m/ping') return reply(200, 'text/plain', 'pong');
      if (url.pathname === '/m/notes') {
        if (!/^text\/plain\b/i.test(type)) return reply(415, 'text/plain', 'text only');
        const text = body.toString('utf8');
        if (text.length === 0 || ([...text].length > 20 && fault !== 'text-unbounded')) return refuse('1 to 20 characters');
        return reply(201, 'text/plain', text);
      }
      if (url.pathname === '/m/orders') {
        if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return reply(415, 'text/plain', 'a form only');
        const form = new URLSearchParams(body.toString('utf8'));
        const name = form.get('name');
        const qtyText = form.get('qty') ?? '';
        const qty = fault === 'form-untyped' ? Number.parseInt(qtyText, 10) || 1 : /^-?\d+$/.test(qtyText) ? Number(qtyText) : Number.NaN;
        if (!name || [...name].length > 10 || !Number.isInteger(qty) || qty < 1 || qty > 10) return refuse('name and qty (1 to 10) are required');
        return reply(201, 'application/json', JSON.stringify({ qty }));
      }
      // /blobs: any bytes in any concrete media type.
      if (type === '' || type.includes('*')) return refuse('a concrete media type is required');
      if (fault === 'bytes-crash' && /^application\/octet-stream\b/i.test(type)) return reply(500, 'text/plain', 'stream not supported');
      return reply(201, 'application/json', JSON.stringify({ bytes: body.length }));
    });
  });
}

async function run(srv: Server): Promise<RunResults> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'media-in.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/m`, '--token', 'media-token', '--quiet', '--seed', '1']);
    return requireResults(cli);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

/** "<operationId>: <checks>" of the error findings. */
function errors(results: RunResults): string[] {
  const by = new Map<string, Set<string>>();
  for (const f of allFindings(results).filter((x) => x.severity === 'error')) by.set(f.operationId, (by.get(f.operationId) ?? new Set()).add(f.check));
  return [...by].map(([op, checks]) => `${op}: ${[...checks].sort().join(', ')}`).sort();
}

const types = (path: string) => [...(sent.get(`/m${path}`) ?? [])].map((t) => t.split(';')[0]!.trim()).sort();

describe('every request media type the contract declares, valid and invalid', () => {
  test('a correct server is conformant: each body goes in its media types, */* as real ones', async () => {
    const results = await run(server());
    expect(errors(results), JSON.stringify(allFindings(results).filter((f) => f.severity === 'error').map((f) => [f.operationId, f.message]))).toEqual([]);
    expect(results.verdict).toBe('conformant');
    expect(types('/blobs')).toEqual(expect.arrayContaining(['application/json', 'text/plain', 'application/octet-stream']));
    expect(types('/blobs')).not.toContain('*/*');
    expect(types('/notes')).toContain('text/plain');
    expect(types('/orders')).toContain('application/x-www-form-urlencoded');
    // The malformed Content-Types, to operations with a body and without one.
    expect([...(sent.get('/m/ping') ?? [])]).toContain('multipart/form-data');
    expect([...(sent.get('/m/notes') ?? [])]).toEqual(expect.arrayContaining(['multipart/form-data', 'text/plain; charset']));
  }, 120_000);

  test.each([
    ['text-unbounded', ['addNote: negative-data-rejected'], /body = "[a-zA-Z0-9]{21}"|maxLength|length/],
    ['form-untyped', ['order: negative-data-rejected'], /body\.qty = /],
    ['bytes-crash', ['putBlob: not-a-server-error, status-code-conformance'], /500/],
    ['boundary-crash', ['addNote: not-a-server-error, status-code-conformance', 'order: not-a-server-error, status-code-conformance', 'ping: not-a-server-error, status-code-conformance', 'putBlob: not-a-server-error, status-code-conformance'], /multipart\/form-data/],
  ] as const)('%s is found on its operation by its check', async (fault, expected, message) => {
    const results = await run(server(fault));
    expect(errors(results)).toEqual(expected);
    expect(allFindings(results).some((f) => f.severity === 'error' && message.test(f.message)), JSON.stringify(allFindings(results).filter((f) => f.severity === 'error').map((f) => f.message))).toBe(true);
  }, 120_000);
});
