/**
 * A credential of the run's own that the service refuses is a configuration problem, never the service's defect:
 * when every call that carried a security scheme's credential was answered 401, the run says so in one line naming
 * the scheme and how the credential is given, the operations that need it are untested with that reason (no error
 * finding), their auth matrix still runs, and the verdict is incomplete (exit 2). A credential the other operations
 * of its scheme accept and one operation alone refuses is that operation's defect (credential-recognised).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, listening, removeTemps, requireResults, resultsSchemaErrors, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const KEY = 'key-of-the-service-3c9e41d7a2';
const WRONG = 'key-the-service-never-issued-81f0b2';
const USER = 'auditor';
const PASSWORD = 'pw-refused-cred-5d1e09';

const LIST = { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } };

/** Two operations behind an apiKey, one behind basic auth, one open; each documents its refusal of a bad credential. */
function contract(): unknown {
  const get = (operationId: string, scheme: string | undefined, schema: unknown) => ({
    get: {
      operationId,
      ...(scheme ? { security: [{ [scheme]: [] }] } : {}),
      responses: {
        '200': { description: 'ok', content: { 'application/json': { schema } } },
        ...(scheme ? { '401': { description: 'bad credential' } } : {}),
      },
    },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'refused credential', version: '1' },
    servers: [{ url: 'http://127.0.0.1/svc' }],
    paths: {
      '/pets': get('listPets', 'api_key', LIST),
      '/owners': get('listOwners', 'api_key', LIST),
      '/toys': get('listToys', 'api_key', LIST),
      '/stats': get('getStats', 'basic_auth', { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } }),
      '/health': get('health', undefined, { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } }),
    },
    components: {
      securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, basic_auth: { type: 'http', scheme: 'basic' } },
    },
  };
}

/** The service: its own key for the apiKey operations (the paths in `refusing` refuse every key). */
function service(options: { refusing?: string[] } = {}) {
  return createServer((req, res) => {
    const reply = (status: number, value?: unknown) =>
      res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' }).end(value === undefined ? undefined : JSON.stringify(value));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'GET') return res.writeHead(405, { allow: 'GET' }).end();
    const keyOk = req.headers['x-api-key'] === KEY;
    if (path === '/svc/health') return reply(200, { ok: true });
    if (['/svc/pets', '/svc/owners', '/svc/toys'].includes(path)) return keyOk && !options.refusing?.includes(path) ? reply(200, []) : (res.setHeader('www-authenticate', 'ApiKey'), reply(401));
    if (path === '/svc/stats') {
      return req.headers['authorization'] === `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` ? reply(200, { count: 0 }) : (res.setHeader('www-authenticate', 'Basic realm="stats"'), reply(401));
    }
    return reply(404);
  });
}

let spec: string;
beforeAll(async () => {
  const dir = await tempDir();
  spec = join(dir, 'refused.json');
  await writeFile(spec, JSON.stringify(contract()));
});

async function runWith(key: string, options: { refusing?: string[]; args?: string[] } = {}) {
  const s = await listening(service(options));
  try {
    return await runCli(['--spec', spec, '--base-url', s.url, '--seed', '7', '--quiet', ...(options.args ?? [])], {
      env: { CONFORMANCE_AUTH: `api_key=${key}\nbasic_auth=${USER}:${PASSWORD}` },
    });
  } finally {
    await s.close();
  }
}

const byOutcome = (results: RunResults) => results.operations.map((o) => `${o.operationId} ${o.outcome}`).sort();
const errors = (results: RunResults) => allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}`);

describe('the run’s own credential refused', () => {
  test('a key the service refuses everywhere: one line naming the scheme, its operations untested with why, no error finding, exit 2', async () => {
    const run = await runWith(WRONG);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const results = requireResults(run);
    expect(results.verdict).toBe('incomplete');
    expect(resultsSchemaErrors(results)).toEqual([]);
    // One line, naming the scheme and how its credential is given.
    const lines = run.stderr.split('\n').filter((l) => l.includes('api_key'));
    expect(lines, run.stderr).toHaveLength(1);
    // The first operation in report order that refused it is named (listOwners: group /owners), at any concurrency.
    expect(lines[0]).toBe(
      'conformance: the credential for security scheme "api_key" was refused by listOwners (401) and by every other call that carried it: check what --auth api_key=<value> gives (CONFORMANCE_AUTH, or auth in the config file); reports written',
    );
    expect(results.stopped).toMatch(/the credential for security scheme "api_key" was refused/);
    // Nothing blamed on the service.
    expect(errors(results)).toEqual([]);
    expect(allFindings(results).filter((f) => f.check === 'positive-data-accepted')).toEqual([]);
    expect(results.counts.failed).toBe(0);
    // The operations behind the key are untested with the reason; the other scheme and the open operation are tested.
    expect(byOutcome(results)).toEqual(['getStats passed', 'health passed', 'listOwners untested', 'listPets untested', 'listToys untested']);
    for (const id of ['listPets', 'listOwners', 'listToys']) {
      const op = results.operations.find((o) => o.operationId === id)!;
      expect(op.reason).toBe('the run\'s credential for security scheme "api_key" was refused on every call that carried it: check --auth api_key=<value>');
      const positive = op.cases.find((c) => c.kind === 'positive')!;
      expect(positive).toMatchObject({ outcome: 'skipped', skipKind: 'credential-refused' });
      // The auth matrix (calls sent deliberately without a valid credential) still ran and passed.
      const auth = op.cases.filter((c) => c.kind === 'auth');
      expect(auth.length).toBeGreaterThan(0);
      expect(auth.every((c) => c.outcome === 'passed')).toBe(true);
    }
    // The key itself is in no output.
    for (const file of ['results.json', 'junit.xml', 'index.html']) {
      const text = await readFile(join(run.out, file), 'utf8');
      expect(text.includes(WRONG), file).toBe(false);
      expect(text.includes(PASSWORD), file).toBe(false);
    }
    expect(run.stdout + run.stderr).not.toContain(WRONG);
  });

  test('one seed, one verdict: the same line and outcomes at any concurrency', async () => {
    const [one, many] = [await runWith(WRONG, { args: ['--concurrency', '1'] }), await runWith(WRONG, { args: ['--concurrency', '16'] })];
    expect(one.code).toBe(2);
    expect(many.code).toBe(2);
    expect(requireResults(one).verdictLine).toBe(requireResults(many).verdictLine);
    expect(byOutcome(requireResults(one))).toEqual(byOutcome(requireResults(many)));
  });

  test('the right key: conformant, exit 0, nothing said of credentials', async () => {
    const run = await runWith(KEY);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = requireResults(run);
    expect(results.verdict).toBe('conformant');
    expect(results.stopped).toBeUndefined();
    expect(byOutcome(results)).toEqual(['getStats passed', 'health passed', 'listOwners passed', 'listPets passed', 'listToys passed']);
    expect(run.stderr).not.toMatch(/was refused/);
  });

  test.each([1, 2, 3])('operations that refuse a key another of its scheme accepts: their defect (credential-recognised, WFC 205), no configuration problem (seed %i)', async (seed) => {
    const run = await runWith(KEY, { refusing: ['/svc/owners', '/svc/pets'], args: ['--seed', String(seed)] });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const results = requireResults(run);
    expect(resultsSchemaErrors(results)).toEqual([]);
    expect(results.verdict).toBe('not-conformant');
    expect(results.stopped).toBeUndefined();
    expect(run.stderr).not.toMatch(/was refused/);
    expect(run.stderr).not.toMatch(/rejected the credentials/);
    expect(byOutcome(results)).toEqual(['getStats passed', 'health passed', 'listOwners failed', 'listPets failed', 'listToys passed']);
    // Said once, by the check of that fault, not also as a refused valid request.
    expect(allFindings(results).filter((f) => f.check === 'positive-data-accepted' && f.severity === 'error')).toEqual([]);
    expect([...new Set(errors(results))].sort()).toEqual(['listOwners: credential-recognised', 'listPets: credential-recognised']);
    for (const id of ['listOwners', 'listPets']) {
      const found = allFindings(results).find((f) => f.operationId === id && f.check === 'credential-recognised')!;
      const path = id === 'listOwners' ? '/svc/owners' : '/svc/pets';
      expect(found.message).toMatch(new RegExp(`^GET ${path} answered 401 to the run's own credential for security scheme "api_key", which other operations accept: an authenticated caller is told it is not \\(403 says it may not do this\\)\\.`));
      expect(found.faultCode).toBe(205);
    }
    const junit = await readFile(join(run.out, 'junit.xml'), 'utf8');
    expect(junit).toContain('fault-code=205 credential-recognised');
  });
});
