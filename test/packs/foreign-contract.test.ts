/**
 * A pack applies only to its own contracts: a run of a foreign description (the OpenAPI Initiative's petstore
 * example, against a small server of it) shows nothing of the Customer pack in the console, results.json,
 * junit.xml or index.html: no scenario suite, no catalog coverage, no profile, no service name.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, runCli } from '../support/runs.ts';

const SPEC = join(ROOT, 'test/packs/fixtures/petstore.openapi.yaml');
const TRACES = /customer|foreign[-_ ]?trade|address[-_ ]?type|ERR_PLAT|forgot|scenario|reference number|\b287\b/i;
let server: Server;
let base = '';

beforeAll(async () => {
  const pets = [{ id: 1, name: 'Rex' }];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const limit = url.searchParams.get('limit');
      if (url.pathname === '/v1/pets' && req.method === 'GET') {
        if (limit !== null && (!/^-?\d+$/.test(limit) || Number(limit) > 100 || Number(limit) < -(2 ** 31))) return json(400, { code: 400, message: 'bad limit' });
        return json(200, pets);
      }
      if (url.pathname === '/v1/pets' && req.method === 'POST') {
        res.writeHead(201);
        return res.end();
      }
      const m = /^\/v1\/pets\/([^/]+)$/.exec(url.pathname);
      const pet = m && req.method === 'GET' ? pets.find((p) => String(p.id) === m[1]) : undefined;
      if (pet) return json(200, pet);
      return json(404, { code: 404, message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a run of a foreign contract shows no trace of the Customer pack in any artifact', async () => {
  const run = await runCli(['--spec', SPEC, '--base-url', base, '--token', 'x'], {});
  expect(run.results, run.stderr).toBeDefined();
  // The run did judge the pets API (its operations are in every report).
  expect(run.results!.operations.map((o) => o.operationId).sort()).toEqual(['createPets', 'listPets', 'showPetById']);
  expect(run.results!.coverage.catalogTotal).toBe(3);
  const artifacts = {
    console: run.stdout + run.stderr,
    'results.json': readFileSync(join(run.out, 'results.json'), 'utf8'),
    'junit.xml': readFileSync(join(run.out, 'junit.xml'), 'utf8'),
    'index.html': readFileSync(join(run.out, 'index.html'), 'utf8'),
  };
  for (const [name, raw] of Object.entries(artifacts)) {
    // Times are no trace (a case that took 287 ms): durations, timestamps and JUnit's seconds are left out.
    const text = raw
      .replace(/"[A-Za-z]*(?:Ms|At|Time)"\s*:\s*"?[\d.:TZ+-]+"?/g, '')
      .replace(/\btime="[\d.]+"/g, '')
      .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, '');
    const trace = TRACES.exec(text);
    expect(trace?.[0], `${name}: …${trace ? text.slice(Math.max(0, trace.index - 160), trace.index + 40) : ''}…`).toBeUndefined();
  }
});

test('--fail-on untested is not failed by the Customer scenario suites on a foreign contract', async () => {
  const run = await runCli(['--spec', SPEC, '--base-url', base, '--token', 'x', '--include', 'listPets', '--fail-on', 'untested'], {});
  expect(run.results?.operations.some((o) => o.operationId.startsWith('scenario'))).toBe(false);
  expect(run.results?.counts.untested).toBe(0);
  expect(run.code, run.stdout).toBe(0);
});
