/**
 * A required query, header or cookie parameter left out must be refused with a 4xx (negative-data-rejected):
 * a real server that ignores the missing parameter is flagged on the right operation and case; servers that
 * refuse with 400 or 422 without any envelope (and statuses the contract does not list) are not; a 5xx is a
 * server error. Credentials (the apiKey parameter, the profile's auth header) and transport headers are never
 * left out, nor a header the user sends with every request (-H).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe as suite, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { planOperation } from '../../src/runner/plan/cases.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { describe } from '../../src/runner/description/load.ts';
import { json, startHttp } from '../http/servers.ts';
import { pool, removeTemps, requireResults, resultsSchemaErrors, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

const ok = { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { hits: { type: 'integer' } } } } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Search', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  paths: {
    '/search': {
      get: {
        operationId: 'search',
        parameters: [
          { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 10 } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 5 } },
          { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' }, example: 'acme' },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
          // Never left out: OpenAPI ignores an Accept parameter, the client always sends one.
          { name: 'Accept', in: 'header', required: true, schema: { type: 'string' } },
        ],
        // Only 200 and 401 are listed: a refusal with 400 or 422 is the right answer to what is missing, in a status
        // the contract does not document (reported as such).
        responses: { '200': ok, '401': { description: 'no key' } },
      },
    },
    '/status': {
      get: { operationId: 'status', responses: { '200': ok, '401': { description: 'no key' } } },
    },
  },
};

type Mode = 'ignores' | '400' | '422' | '500';

function server(mode: Mode) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers['x-api-key'] !== TOKEN) return json(res, 401, { detail: 'no key' }, { 'www-authenticate': 'ApiKey' });
    if ((url.pathname === '/svc/status' || url.pathname === '/svc/search') && req.method !== 'GET') return json(res, 405, { detail: 'Method Not Allowed' }, { allow: 'GET' });
    if (url.pathname === '/svc/status' && req.method === 'GET') return json(res, 200, { hits: 0 });
    if (url.pathname !== '/svc/search' || req.method !== 'GET') return json(res, 404, { detail: 'Not Found' });
    const q = url.searchParams.get('q');
    // Left out, not empty: an empty header value is a schema-valid string the fuzzing phase may send.
    const missing = q === null || req.headers['x-tenant'] === undefined || !/(^|;\s*)session=/.test(req.headers.cookie ?? '');
    if (missing && mode !== 'ignores') {
      if (mode === '500') return json(res, 500, { detail: 'crashed' });
      if (mode === '422') return json(res, 422, { detail: [{ loc: ['query', 'q'], msg: 'field required' }] });
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request');
      return;
    }
    if (q !== null && ([...q].length > 10 || q === '')) return json(res, 422, { detail: 'q must be 1 to 10 characters' });
    const limit = url.searchParams.get('limit');
    if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 5)) return json(res, 422, { detail: 'limit must be 1 to 5' });
    return json(res, 200, { hits: 1 });
  };
}

/** The contract with the refusals documented too (400 as text, 422 as JSON). */
const DOCUMENTED = structuredClone(SPEC) as typeof SPEC & { paths: { '/search': { get: { responses: Record<string, unknown> } } } };
DOCUMENTED.paths['/search'].get.responses = {
  ...DOCUMENTED.paths['/search'].get.responses,
  '400': { description: 'missing input', content: { 'text/plain': { schema: { type: 'string' } } } },
  '422': { description: 'invalid input', content: { 'application/json': { schema: { type: 'object' } } } },
};

async function run(mode: Mode, extra: string[] = [], spec: object = SPEC): Promise<RunResults> {
  return limit(async () => {
    const svc = await startHttp(server(mode));
    try {
      const file = join(await tempDir(), 'search.json');
      await writeFile(file, JSON.stringify(spec));
      const r = await runCli(['--spec', file, '--base-url', `${svc.url}/svc`, '--token', TOKEN, '--max-examples', '3', ...extra]);
      const results = requireResults(r);
      expect(resultsSchemaErrors(results)).toEqual([]);
      return results;
    } finally {
      await svc.close();
    }
  });
}

const MISSING = ['negative: missing required query parameter q', 'negative: missing required header parameter X-Tenant', 'negative: missing required cookie parameter session'];

function flagged(results: RunResults): string[] {
  return results.operations.flatMap((o) =>
    o.cases.flatMap((c) => c.findings.filter((f) => f.severity !== 'info' && !f.waived).map((f) => `${f.operationId} › ${c.name} › ${f.check}:${f.severity}`)),
  );
}

suite('a required parameter left out, against real servers', () => {
  test(
    'a server that ignores the missing parameter (answers 200): flagged on that operation, each case, negative-data-rejected',
    async () => {
      const results = await run('ignores', [], DOCUMENTED);
      expect(flagged(results).sort()).toEqual(MISSING.map((n) => `search › ${n} › negative-data-rejected:error`).sort());
      const search = results.operations.find((o) => o.operationId === 'search')!;
      expect(search.outcome).toBe('failed');
      expect(search.cases.find((c) => c.name === MISSING[0])?.findings[0]).toMatchObject({ expected: '4xx', actual: 200, method: 'GET', path: '/search' });
      expect(results.operations.find((o) => o.operationId === 'status')?.outcome).toBe('passed');
      // Credentials and transport headers are never left out.
      const names = search.cases.map((c) => c.name);
      expect(names.some((n) => /X-Api-Key|Accept/i.test(n) && n.startsWith('negative: missing'))).toBe(false);
    },
    RUN_TIMEOUT,
  );

  test(
    'a server that answers 500 to the missing parameter: a server error (not-a-server-error) on each case',
    async () => {
      const results = await run('500', [], DOCUMENTED);
      // The contract lists no 500 either: the status is undocumented as well.
      expect(flagged(results).sort()).toEqual(MISSING.flatMap((n) => [`search › ${n} › not-a-server-error:error`, `search › ${n} › status-code-conformance:error`]).sort());
    },
    RUN_TIMEOUT,
  );

  test(
    'a server that refuses with a plain-text 400 the contract does not list: the refusal is right, its status undocumented',
    async () => {
      const results = await run('400');
      // Each case that left a parameter out, and the coverage case (its invalid q and limit refused with an
      // undocumented 422): status-code-conformance only; every refusal itself was right (negative-data-rejected).
      expect(flagged(results).sort()).toEqual(['search › coverage › status-code-conformance:error', ...MISSING.map((n) => `search › ${n} › status-code-conformance:error`)].sort());
      const documented = await run('400', [], DOCUMENTED);
      expect(flagged(documented)).toEqual([]);
      expect(documented.verdict).toBe('conformant');
      const search = documented.operations.find((o) => o.operationId === 'search')!;
      for (const name of MISSING) expect(search.cases.find((c) => c.name === name)?.outcome, name).toBe('passed');
    },
    RUN_TIMEOUT,
  );

  test(
    'a server that refuses with 422 and no envelope, as documented: nothing flagged; a header sent with -H is not left out',
    async () => {
      const results = await run('422', ['-H', 'X-Tenant:acme'], DOCUMENTED);
      expect(flagged(results)).toEqual([]);
      expect(results.verdict).toBe('conformant');
      const search = results.operations.find((o) => o.operationId === 'search')!;
      const header = search.cases.find((c) => c.name === MISSING[1]);
      expect(header?.outcome).toBe('skipped');
      expect(header?.skipReason).toMatch(/X-Tenant goes with every request \(-H\)/);
      expect(search.cases.find((c) => c.name === MISSING[0])?.outcome).toBe('passed');
    },
    RUN_TIMEOUT,
  );
});

suite('which parameters are left out (the plan)', async () => {
  const generic = await loadProfile(GENERIC_PROFILE);
  const platform = await loadProfile(join(import.meta.dirname, '../../contract/profile.yaml'));
  const plan = (profile = generic, spec: object = SPEC, id = 'search') => {
    const { service, operations } = describe(spec as Record<string, unknown>, 'search.json');
    const op = operations.find((o) => o.operationId === id)!;
    return planOperation({ services: [service], operations }, op, profile, { operations: {} } as never, { seed: 1, readOnly: false, allowIrreversible: false, otpSource: false, maxExamples: 0 });
  };

  test('each required query, header and cookie parameter; never an optional one, the apiKey, Accept, nor the profile auth header', () => {
    const cases = plan().cases.filter((c) => c.name.startsWith('negative: missing required'));
    expect(cases.map((c) => c.name)).toEqual(MISSING);
    expect(cases.every((c) => c.expectation === 'rejected' && c.kind === 'negative' && c.anyClientError === true)).toBe(true);
    const query = cases[0]!.request;
    expect(query.query).not.toHaveProperty('q');
    expect(query.headers).toHaveProperty('X-Tenant', 'acme');
    expect(cases[1]!.request.headers ?? {}).not.toHaveProperty('X-Tenant');
    expect(cases[2]!.request.cookies ?? {}).not.toHaveProperty('session');
    const withAuthHeader = structuredClone(SPEC);
    withAuthHeader.paths['/search'].get.parameters.push({ name: 'authorization', in: 'header', required: true, schema: { type: 'string' } });
    expect(plan(generic, withAuthHeader).cases.filter((c) => c.name.startsWith('negative: missing required')).map((c) => c.name)).toEqual(MISSING);
  });

  test('a platform profile that maps invalid input to 400 judges them like its other negative cases', () => {
    const cases = plan(platform).cases.filter((c) => c.name.startsWith('negative: missing required'));
    expect(cases).toHaveLength(3);
    expect(cases.some((c) => c.anyClientError)).toBe(false);
  });
});
