/**
 * Reads whose path names something no described operation creates, with an example value in the contract: the
 * positive case takes the example once a GET of that path answers it with success, and is judged in full; a
 * deployment without that record (404) leaves the read untested, never failed or passed; a write never acts on
 * the example's record. Against real HTTP servers: a correct one, one without the example's record, and one
 * whose greeting breaks its schema (flagged on the right operation and check).
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object', properties: { title: { type: 'string' } } } } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Examples', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/greeting/{name}': {
      get: {
        operationId: 'greet',
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', maxLength: 30, examples: ['world'] } }],
        responses: { '200': { description: 'ok', content: json({ type: 'object', required: ['message'], properties: { message: { type: 'string' } } }) }, '401': problem, '404': problem, '422': problem },
      },
    },
    '/accounts/{accountId}': {
      get: {
        operationId: 'getAccount',
        parameters: [{ name: 'accountId', in: 'path', required: true, example: 'acc-1', schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: json({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } }) }, '401': problem, '404': problem },
      },
      delete: {
        operationId: 'closeAccount',
        parameters: [{ name: 'accountId', in: 'path', required: true, example: 'acc-1', schema: { type: 'string' } }],
        responses: { '204': { description: 'closed' }, '401': problem, '404': problem },
      },
    },
  },
};

type Variant = 'correct' | 'no-account' | 'bad-greeting';

async function startServer(variant: Variant): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      const reply = (status: number, value?: unknown) => {
        if (value === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { title: 'Unauthorized' }); }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const greeting = /^\/svc\/greeting\/([^/]+)$/.exec(url.pathname);
      const account = /^\/svc\/accounts\/([^/]+)$/.exec(url.pathname);
      const allow = (methods: string) => {
        res.setHeader('allow', methods);
        reply(405, { title: 'Method Not Allowed' });
      };
      if (greeting) {
        if (req.method !== 'GET') return allow('GET');
        const name = decodeLeniently(greeting[1]!);
        if ([...name].length > 30) return reply(422, { title: 'name too long' });
        return reply(200, variant === 'bad-greeting' ? { greeting: `Hello, ${name}!` } : { message: `Hello, ${name}!` });
      }
      if (account) {
        const known = variant !== 'no-account' && decodeLeniently(account[1]!) === 'acc-1';
        if (req.method === 'GET') return known ? reply(200, { id: 'acc-1' }) : reply(404, { title: 'Not Found' });
        if (req.method === 'DELETE') return known ? reply(204) : reply(404, { title: 'Not Found' });
        return allow('GET, DELETE');
      }
      reply(404, { title: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function run(variant: Variant): Promise<{ results: RunResults; seen: string[] }> {
  const spec = join(await tempDir(), 'examples.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await startServer(variant);
  try {
    const cli = await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--fuzz-examples', '20']);
    return { results: requireResults(cli), seen: server.seen };
  } finally {
    await server.close();
  }
}

const positive = (results: RunResults, operationId: string) => operation(results, operationId).cases.find((c) => c.name === 'positive');

describe('path parameters no operation creates, with an example in the contract', () => {
  test('a correct server: the reads take the examples and pass; the write stays untested and never touches the record', async () => {
    const { results, seen } = await run('correct');
    expect(summary(results).filter((s) => !s.startsWith('closeAccount:'))).toEqual([]);
    // The DELETE's only finding: its 404 for ids no record has looks like an unknown route's (a warning).
    expect(allFindings(results).map((f) => `${f.operationId} ${f.check} ${f.severity}`)).toEqual(['closeAccount operation-present warning']);
    expect(positive(results, 'greet')?.outcome).toBe('passed');
    expect(positive(results, 'getAccount')?.outcome).toBe('passed');
    expect(seen).toContain('GET /svc/greeting/world');
    expect(seen).toContain('GET /svc/accounts/acc-1');
    expect(operation(results, 'closeAccount').outcome).toBe('untested');
    expect(seen.filter((s) => s === 'DELETE /svc/accounts/acc-1')).toEqual([]);
  }, 120_000);

  test('a deployment without the example\'s record: the read is untested (presence unverified), naming the example and the 404', async () => {
    const { results } = await run('no-account');
    // Its 404 cannot be told from an unknown route's: present but unverified (a warning), never missing or failed.
    expect(positive(results, 'getAccount')?.outcome).toBe('skipped');
    expect(operation(results, 'getAccount').outcome).toBe('untested');
    const [finding, ...others] = allFindings(results).filter((f) => f.operationId === 'getAccount');
    expect(others).toEqual([]);
    expect(finding).toMatchObject({ check: 'operation-present', severity: 'warning' });
    expect(finding?.message).toContain(`the contract's example ({accountId} = "acc-1") names none on this deployment (GET /accounts/{accountId} answered 404)`);
    expect(allFindings(results).filter((f) => f.severity !== 'warning')).toEqual([]);
    expect(positive(results, 'greet')?.outcome).toBe('passed');
  }, 120_000);

  test('a greeting that breaks its schema is flagged on greet, by response-schema-conformance', async () => {
    const { results } = await run('bad-greeting');
    expect(summary(results).filter((s) => !s.startsWith('closeAccount:'))).toEqual(['greet: failed [response-schema-conformance]']);
    expect(positive(results, 'greet')?.findings.map((f) => f.check)).toContain('response-schema-conformance');
  }, 120_000);
});
