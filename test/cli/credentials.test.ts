/**
 * Credentials go only where the contract asks for them, in the scheme it names: an operation that declares no
 * security is sent none (and a contract without security needs no token at all); `--auth <scheme>=<value>` (or
 * CONFORMANCE_AUTH, or the config file's `auth` map) gives each security scheme its own credential (an apiKey's
 * key, basic's user:password), redacted everywhere as $CONFORMANCE_AUTH_<SCHEME>; a missing credential is one
 * line naming the scheme. A 404 the operation documents is its own answer (the record does not exist), never
 * proof that the route is missing. A description whose component name breaks OpenAPI's name rule loads with a
 * warning naming the key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toCurl } from '../../src/runner/report/curl.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const KEY = 'key-9f3a77c1e0d2b4';
const USER = 'auditor';
const PASSWORD = 'pw-61c0ff2e9ab7';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

const PET = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };

function spec(security: 'none' | 'schemes'): unknown {
  const secured = (scheme: string) => (security === 'schemes' ? { security: [{ [scheme]: [] }] } : {});
  return {
    openapi: '3.1.0',
    info: { title: 'pets', version: '1' },
    servers: [{ url: 'http://127.0.0.1/p' }],
    paths: {
      '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'pets', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } } } },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          ...secured('api_key'),
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'the pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
            '401': { description: 'no key' },
            '404': { description: 'no such pet' },
          },
        },
      },
      // Answers its documented 404 (empty: no pet matches) to every search on an empty store, as an unknown route is.
      '/search': {
        get: {
          operationId: 'searchPets',
          ...secured('api_key'),
          parameters: [{ name: 'name', in: 'query', required: false, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'matches', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } },
            '401': { description: 'no key' },
            '404': { description: 'no pet matches' },
          },
        },
      },
      '/stats': {
        get: {
          operationId: 'stats',
          ...secured('basic_auth'),
          responses: {
            '200': { description: 'counts', content: { 'application/json': { schema: { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } } } } },
            '401': { description: 'who are you' },
          },
        },
      },
    },
    components: {
      schemas: { Pet: PET },
      ...(security === 'schemes'
        ? { securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, basic_auth: { type: 'http', scheme: 'basic' } } }
        : {}),
    },
  };
}

/** Credentials each path was sent: "<path> <header>=<value>" for authorization and x-api-key. */
const received = new Set<string>();

/** No pets stored: GET /pets/{id} answers its documented 404 with an empty body, as an unknown route does. */
function server(check: boolean): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    for (const name of ['authorization', 'x-api-key']) if (req.headers[name] !== undefined) received.add(`${path.replace(/\/\d+$/, '/{id}')} ${name}`);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'GET') return res.writeHead(405, { allow: 'GET' }).end();
    if (path === '/p/pets') return json(200, []);
    if (/^\/p\/pets\/-?\d+$/.test(path)) {
      if (check && req.headers['x-api-key'] !== KEY) return res.writeHead(401, { 'www-authenticate': 'ApiKey' }).end();
      return res.writeHead(404).end();
    }
    if (path === '/p/search') {
      if (check && req.headers['x-api-key'] !== KEY) return res.writeHead(401, { 'www-authenticate': 'ApiKey' }).end();
      return res.writeHead(404).end();
    }
    if (path === '/p/stats') {
      if (check && req.headers['authorization'] !== `Basic ${BASIC}`) return res.writeHead(401, { 'www-authenticate': 'Basic realm="stats"' }).end();
      return json(200, { count: 0 });
    }
    return res.writeHead(404).end();
  });
}

let srv: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  srv = server(true);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/p`;
  dir = await tempDir();
  await writeFile(join(dir, 'open.json'), JSON.stringify(spec('none')));
  await writeFile(join(dir, 'secured.json'), JSON.stringify(spec('schemes')));
});
afterAll(() => new Promise((resolve) => srv.close(resolve)));

describe('credentials only where the contract asks for them', () => {
  test('a contract without security runs without a token, and no request carries credentials', async () => {
    const open = server(false);
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    received.clear();
    try {
      const run = await runCli(['--spec', join(dir, 'open.json'), '--base-url', `http://127.0.0.1:${(open.address() as AddressInfo).port}/p`, '--quiet']);
      expect(run.stderr).not.toMatch(/bearer token/);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(requireResults(run).verdict).toBe('conformant');
      expect([...received]).toEqual([]);
      // No auth case is planned for an operation that declares no security.
      expect(requireResults(run).operations.flatMap((o) => o.cases.map((c) => c.name)).filter((n) => n.startsWith('auth'))).toEqual([]);
    } finally {
      await new Promise((resolve) => open.close(resolve));
    }
  });

  test('a missing credential is one line naming the scheme and how to give it', async () => {
    const run = await runCli(['--spec', join(dir, 'secured.json'), '--base-url', base, '--include', 'getPet']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'conformance: no credentials for security scheme "api_key" (apiKey in header X-API-Key), which 1 selected operation requires: pass --auth api_key=<value> (or set CONFORMANCE_AUTH="api_key=<value>"; CONFORMANCE_TOKEN serves every scheme without one)',
    );
    // Selecting only the open operation needs nothing.
    const open = await runCli(['--spec', join(dir, 'secured.json'), '--base-url', base, '--include', 'listPets', '--quiet']);
    expect(open.code, open.stderr).toBe(0);
    const unknown = await runCli(['--spec', join(dir, 'secured.json'), '--base-url', base, '--auth', 'apikey=x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe("conformance: --auth names no security scheme the contract's operations use: apikey (schemes: api_key, basic_auth)");
    const malformed = await runCli(['--spec', join(dir, 'secured.json'), '--base-url', base, '--auth', 'api_key']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--auth takes <scheme>=<value>/);
  });

  test('each scheme gets its own credential (flag, environment); a documented 404 is never a missing route; nothing leaks', async () => {
    for (const how of ['flags', 'environment'] as const) {
      received.clear();
      const args = ['--spec', join(dir, 'secured.json'), '--base-url', base, '--keep-passed-exchanges', '--quiet', '--seed', '1'];
      const run =
        how === 'flags'
          ? await runCli([...args, '--auth', `api_key=${KEY}`, '--auth', `basic_auth=${USER}:${PASSWORD}`])
          : await runCli(args, { env: { CONFORMANCE_AUTH: `api_key=${KEY}\nbasic_auth=${USER}:${PASSWORD}` } });
      expect(run.code, `${how}: ${run.stdout}${run.stderr}`).toBe(0);
      const results = requireResults(run);
      expect(results.verdict, how).toBe('conformant');
      // getPet: present (its 404 is its own documented answer), untested beyond that: no pet exists to read.
      // searchPets: its documented 404 is its answer, not a missing route (it cannot show a match: untested).
      expect(results.operations.map((o) => `${o.operationId} ${o.outcome}`).sort(), how).toEqual(['getPet untested', 'listPets passed', 'searchPets untested', 'stats passed']);
      const getPet = results.operations.find((o) => o.operationId === 'getPet')!;
      expect(getPet.cases.find((c) => c.kind === 'presence')?.outcome, how).not.toBe('missing');
      expect(allFindings(results).filter((f) => f.severity === 'error'), how).toEqual([]);
      // The open operation got no credentials; each secured one its own scheme's only.
      expect([...received].sort(), how).toEqual(['/p/pets/{id} x-api-key', '/p/search x-api-key', '/p/stats authorization']);
      // The auth cases ran against each scheme (and the deployment refused them: passed).
      const auth = results.operations.find((o) => o.operationId === 'getPet')!.cases.filter((c) => c.name.startsWith('auth'));
      expect(auth.length, how).toBeGreaterThan(0);
      for (const file of ['results.json', 'junit.xml', 'index.html']) {
        const text = await readFile(join(run.out, file), 'utf8');
        for (const secret of [KEY, PASSWORD, BASIC]) expect(text.includes(secret), `${how}: ${file} holds a credential`).toBe(false);
      }
      expect(run.stdout + run.stderr).not.toContain(KEY);
      // The key stands as its variable; the reproduction reads it from the user's shell.
      const request = getPet.cases.find((c) => c.kind === 'presence')!.exchanges![0]!.request;
      expect(request.headers['x-api-key'] ?? request.headers['X-API-Key']).toBe('$CONFORMANCE_AUTH_API_KEY');
      expect(toCurl(request)).toContain('"x-api-key: $CONFORMANCE_AUTH_API_KEY"');
    }
  });

  test('the config file takes credentials as a map, and `conformance config` masks them', async () => {
    const config = join(dir, 'conformance.config.yaml');
    await writeFile(config, `auth:\n  api_key: ${KEY}\n  basic_auth: ${USER}:${PASSWORD}\n`);
    const run = await runCli(['--config', config, '--spec', join(dir, 'secured.json'), '--base-url', base, '--quiet']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const shown = await runCli(['config', '--config', config, '--spec', join(dir, 'secured.json'), '--base-url', base], { noOut: true });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/auth/);
    expect(shown.stdout).not.toContain(KEY);
    expect(shown.stdout).not.toContain(PASSWORD);
  });
});

describe('a description with an odd component name', () => {
  test('loads with a warning naming the key; references to it resolve and its schema is applied', async () => {
    const odd = spec('none') as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };
    odd.components.schemas['Page[Pet]'] = { type: 'array', items: { $ref: '#/components/schemas/Pet' }, minItems: 1 };
    odd.paths['/pets']!['get']!.responses['200']!.content!['application/json']!.schema = { $ref: '#/components/schemas/Page[Pet]' };
    const file = join(dir, 'odd.json');
    await writeFile(file, JSON.stringify(odd));
    const open = server(false);
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    try {
      const run = await runCli(['--spec', file, '--base-url', `http://127.0.0.1:${(open.address() as AddressInfo).port}/p`, '--include', 'listPets', '--quiet'], { env: { CONFORMANCE_NO_CACHE: '1' } });
      expect(run.stderr).toContain(`conformance: warning: ${file}: #/components/schemas/Page[Pet]: the name "Page[Pet]" breaks OpenAPI's rule for component names`);
      // The schema behind the odd name is applied: the empty list breaks its minItems.
      expect(run.code, run.stderr).toBe(1);
      expect(allFindings(requireResults(run)).map((f) => `${f.operationId} ${f.check}`)).toContain('listPets response-schema-conformance');
    } finally {
      await new Promise((resolve) => open.close(resolve));
    }
    // A real error elsewhere is still refused, naming its place.
    (odd as unknown as { info: unknown }).info = 42;
    await writeFile(file, JSON.stringify(odd));
    const bad = await runCli(['--spec', file, '--base-url', 'http://127.0.0.1:9/p'], { env: { CONFORMANCE_NO_CACHE: '1' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/odd\.json#\/info: invalid OpenAPI/);
  });
});

describe('a description with keys OpenAPI does not allow in its descriptive objects', () => {
  test("loads with a warning per key (springdoc's info.license.extensions, a tag's extra key); a run tests it; such a key elsewhere is still refused", async () => {
    const extra = spec('none') as Record<string, unknown> & { info: Record<string, unknown>; paths: Record<string, Record<string, Record<string, unknown>>> };
    extra.info['license'] = { name: 'Apache 2.0', url: 'http://www.apache.org/licenses/LICENSE-2.0', extensions: {} };
    extra.tags = [{ name: 'pets', extensions: {} }];
    const file = join(dir, 'extra-metadata.json');
    await writeFile(file, JSON.stringify(extra));
    const open = server(false);
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    try {
      const run = await runCli(['--spec', file, '--base-url', `http://127.0.0.1:${(open.address() as AddressInfo).port}/p`, '--include', 'listPets', '--quiet'], { env: { CONFORMANCE_NO_CACHE: '1' } });
      expect(run.stderr).toContain(`conformance: warning: ${file}: #/info/license/extensions: a key OpenAPI does not allow there; left out`);
      expect(run.stderr).toContain(`conformance: warning: ${file}: #/tags/0/extensions: a key OpenAPI does not allow there; left out`);
      // The run went on: the operation was tested.
      expect(requireResults(run).operations.find((o) => o.operationId === 'listPets')?.cases.length).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => open.close(resolve));
    }
    // The same key on an operation is a broken description: refused, naming its place.
    extra.paths['/pets']!['get']!['extensions'] = {};
    await writeFile(file, JSON.stringify(extra));
    const bad = await runCli(['--spec', file, '--base-url', 'http://127.0.0.1:9/p'], { env: { CONFORMANCE_NO_CACHE: '1' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/extra-metadata\.json#\/paths\/~1pets\/get: invalid OpenAPI/);
  });
});
