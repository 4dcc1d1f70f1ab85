/**
 * Empty values in the query and in headers, against real HTTP servers that read them the two ways real ones do:
 * as the parameter left out (ASP.NET Core's binding, Huma) or as a value refused because it is empty (strict
 * OpenAPI validators). Neither server is flagged; a server that takes any value for an enum is, on the right
 * operation and check; the required parameter's empty value is still sent as a probe (both readings refuse it).
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const GENRES = ['fiction', 'science', 'poetry'];
const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } } } };

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Books', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/books': {
      get: {
        operationId: 'listBooks',
        parameters: [
          { name: 'shelf', in: 'query', required: true, schema: { type: 'string', enum: ['a', 'b'] } },
          { name: 'genre', in: 'query', schema: { type: 'string', enum: GENRES } },
          { name: 'author', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 40 } },
          { name: 'X-Region', in: 'header', schema: { type: 'string', minLength: 2, maxLength: 8 } },
          { name: 'note', in: 'query', allowEmptyValue: true, schema: { type: 'string', maxLength: 20 } },
        ],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
          '400': problem,
          '401': problem,
        },
      },
    },
  },
};

type Reading = 'left-out' | 'refused' | 'any-genre';

/**
 * 'left-out': an empty value is the parameter left out; 'refused': an empty value is a 400; both validate the
 * rest strictly. 'any-genre' reads empty values as left out and takes any genre (the enum not enforced).
 */
async function startServer(reading: Reading): Promise<{ url: string; urls: string[]; close: () => Promise<void> }> {
  const urls: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      urls.push(req.url ?? '');
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { title: 'Unauthorized' }); }
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/svc/books') return reply(404, { title: 'Not Found' });
      if (req.method !== 'GET') {
        res.setHeader('allow', 'GET');
        return reply(405, { title: 'Method Not Allowed' });
      }
      const values: Record<string, string | undefined> = {};
      const raw: Array<[string, string | undefined]> = [...['shelf', 'genre', 'author'].map((n): [string, string | undefined] => [n, url.searchParams.get(n) ?? undefined]), ['X-Region', req.headers['x-region'] as string | undefined]];
      for (const [name, value] of raw) {
        // `note` allows an empty value: every server takes it.
        if (value === '' && reading === 'refused') return reply(400, { title: `${name} is empty` });
        values[name] = value === '' ? undefined : value;
      }
      if (values['shelf'] !== 'a' && values['shelf'] !== 'b') return reply(400, { title: 'shelf' });
      if (values['genre'] !== undefined && reading !== 'any-genre' && !GENRES.includes(values['genre'])) return reply(400, { title: 'genre' });
      const author = values['author'];
      if (author !== undefined && [...author].length > 40) return reply(400, { title: 'author' });
      const note = url.searchParams.get('note');
      if (note !== null && [...note].length > 20) return reply(400, { title: 'note' });
      const region = values['X-Region'];
      if (region !== undefined && (region.length < 2 || region.length > 8)) return reply(400, { title: 'region' });
      return reply(200, []);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, urls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function run(reading: Reading): Promise<{ results: RunResults; urls: string[] }> {
  const spec = join(await tempDir(), 'books.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await startServer(reading);
  try {
    const cli = await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--fuzz-examples', '60']);
    return { results: requireResults(cli), urls: server.urls };
  } finally {
    await server.close();
  }
}

describe('empty values in the query and in headers', () => {
  test.each(['left-out', 'refused'] as const)('a server reading an empty value as %s fails nothing', async (reading) => {
    const { results, urls } = await run(reading);
    expect(summary(results)).toEqual([]);
    // Read as left out, an optional parameter's empty value was taken: accepted leniently (a warning, counted
    // apart), nothing else; refused, nothing at all.
    const lenient = allFindings(results).filter((f) => f.lenient);
    expect(allFindings(results).filter((f) => !f.lenient)).toEqual([]);
    if (reading === 'refused') expect(lenient).toEqual([]);
    else expect(new Set(lenient.map((f) => `${f.operationId} ${f.inputClass} ${f.severity}`))).toEqual(new Set(['listBooks empty-optional-query warning']));
    expect(results.verdict).toBe('conformant');
    // The required parameter's empty value went out as a probe that must be refused; the optional ones' as
    // lenient input, never as part of a request drawn as valid.
    expect(urls.some((u) => /[?&]shelf=(&|$)/.test(u))).toBe(true);
    const optionalEmpty = urls.filter((u) => /[?&](genre|author)=(&|$)/.test(u));
    expect(optionalEmpty.length).toBeGreaterThan(0);
    expect(optionalEmpty.every((u) => (u.match(/=(&|$)/g) ?? []).length === 1)).toBe(true);
    // allowEmptyValue: the empty value is one the server must take, and it is sent.
    expect(urls.some((u) => /[?&]note=(&|$)/.test(u))).toBe(true);
    expect(urls.length).toBeGreaterThan(60);
  }, 120_000);

  test('a server taking any genre is flagged on listBooks, by negative-data-rejected, for a genre outside the enum', async () => {
    const { results } = await run('any-genre');
    const findings = allFindings(results).filter((f) => f.check === 'negative-data-rejected' && f.severity === 'error');
    expect(summary(results)).toEqual(['listBooks: failed [negative-data-rejected]']);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => /query\.genre = "zz-not-in-enum"/.test(f.message))).toBe(true);
  }, 120_000);
});
