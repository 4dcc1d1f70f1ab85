/**
 * Each body judged by the media type it is answered in, and as far as it was read: a documented text/plain or
 * text/html answer is text (no "body is not JSON"), a documented page of 3 MB is judged for its status, media
 * type and headers and noted once as not judged past the body cap (never a failure; `--max-body-size` reads it
 * whole), and an XML answer must be well-formed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const PAGE = `<!doctype html><html><body>${'<p>documentation</p>'.repeat(150_000)}</body></html>`;

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'media', version: '1' },
  servers: [{ url: 'http://127.0.0.1/m' }],
  paths: {
    '/docs': { get: { operationId: 'docs', responses: { '200': { description: 'the documentation page', content: { 'text/html': { schema: { type: 'string' } } } } } } },
    '/feed': { get: { operationId: 'feed', responses: { '200': { description: 'an XML feed', content: { 'application/xml': { schema: { type: 'object' } } } } } } },
    '/echo': {
      get: {
        operationId: 'echo',
        parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': { description: 'the text', content: { 'text/plain': { schema: { type: 'string' } } } },
          '400': { description: 'why not', content: { 'text/plain': { schema: { type: 'string', maxLength: 100 } } } },
          '422': { description: 'why not', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
  },
};

function server(xml: string): Server {
  return createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method !== 'GET') return res.writeHead(405, { allow: 'GET' }).end();
    if (url.pathname === '/m/docs') return send(200, 'text/html; charset=utf-8', PAGE);
    if (url.pathname === '/m/feed') return send(200, 'application/xml', xml);
    if (url.pathname === '/m/echo') {
      const q = url.searchParams.get('q');
      if (q === null) return send(400, 'text/plain', 'q is required');
      if (q === '') return send(422, 'text/plain', 'q must not be empty');
      return send(200, 'text/plain', q);
    }
    return send(404, 'text/plain', 'not found');
  });
}

async function run(xml: string, extra: string[] = []): Promise<RunResults> {
  const srv = server(xml);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'media.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/m`, '--token', 'media-token', '--quiet', '--seed', '1', ...extra]);
    return requireResults(cli);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const WELL_FORMED = '<?xml version="1.0"?><feed><item id="1">a</item></feed>';

describe('bodies judged by their media type, as far as they were read', () => {
  test('documented text and HTML answers are text; a 3 MB page is noted once as not judged past the cap, never failed', async () => {
    const results = await run(WELL_FORMED);
    expect(summary(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    const notJudged = allFindings(results).filter((f) => f.check === 'response-body-readable');
    expect(notJudged.length).toBeGreaterThan(0);
    expect(notJudged.every((f) => f.operationId === 'docs' && f.severity === 'warning')).toBe(true);
    // Shown once in full (the first case that saw it), the later cases pointing to it; a coverage case keeps its
    // own account.
    const docs = results.operations.find((o) => o.operationId === 'docs')?.cases ?? [];
    const full = docs.filter((c) => c.kind !== 'coverage').flatMap((c) => c.findings).filter((f) => f.check === 'response-body-readable' && !f.message.startsWith('the same as in'));
    expect(full).toHaveLength(1);
    expect(full[0]?.message).toMatch(/^Response 200 body is more than 1048576 bytes: not judged past 1048576 bytes \(--max-body-size\); its status, media type and headers were\./);
  }, 120_000);

  test('--max-body-size 4MB reads the page whole: nothing to note', async () => {
    const results = await run(WELL_FORMED, ['--max-body-size', '4MB']);
    expect(results.verdict).toBe('conformant');
    expect(allFindings(results).filter((f) => f.check === 'response-body-readable')).toEqual([]);
  }, 120_000);

  test('XML that is not well-formed fails its operation, by response-body-readable', async () => {
    const results = await run('<feed><item>a</feed>');
    expect(summary(results)).toEqual(['feed: failed [response-body-readable]']);
    const f = allFindings(results).find((x) => x.operationId === 'feed' && x.severity === 'error');
    expect(f?.message).toMatch(/^Response 200 is labelled application\/xml but is not well-formed XML: /);
  }, 120_000);
});
