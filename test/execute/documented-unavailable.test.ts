/**
 * A 503 (Service Unavailable) the operation documents, by its code or its 5XX range: the deployment says it cannot
 * serve the request now, as its contract allows. It is asked once more after a back-off; an answer that persists
 * leaves the case errored with that reason (the run cannot vouch for the operation: the verdict is incomplete),
 * neither passed nor a server error blamed on the service. An undocumented 503 stays a server error, and a
 * documented one is still held to its schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const THING = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
const MESSAGE = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const ok = { '200': { description: 'the thing', ...json(THING) } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  servers: [{ url: 'http://127.0.0.1/t' }],
  paths: {
    // 503 documented by the 5XX range, and by its code.
    '/thing': { get: { operationId: 'getThing', responses: { ...ok, '5XX': { description: 'no thing now', ...json(MESSAGE) } } } },
    '/busy': { get: { operationId: 'getBusy', responses: { ...ok, '503': { description: 'busy', ...json(MESSAGE) } } } },
    // 503 not documented (a default answer documents no status of its own).
    '/broken': { get: { operationId: 'getBroken', responses: { ...ok, default: { description: 'an error', ...json(MESSAGE) } } } },
    // 503 documented, answered with a body its schema refuses.
    '/odd': { get: { operationId: 'getOdd', responses: { ...ok, '503': { description: 'busy', ...json(MESSAGE) } } } },
  },
};

type Mode = 'unavailable' | 'unavailable-once' | 'faults';

/**
 * 'unavailable': /thing and /busy always answer their documented 503 (the others 200); 'unavailable-once': /thing
 * answers 503 to its first request only; 'faults': also /broken answers an undocumented 503 and /odd a documented
 * 503 whose body breaks its schema.
 */
function server(mode: Mode, seen: Map<string, number>): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (!['/t/thing', '/t/busy', '/t/broken', '/t/odd'].includes(path)) return send(404, { message: 'no such route' });
      if (req.method !== 'GET') return res.writeHead(405, { allow: 'GET' }).end();
      const unavailable = () => send(503, { message: 'No things are available now.' }, { 'retry-after': '0' });
      if (path === '/t/thing' && (mode !== 'unavailable-once' || n === 1)) return unavailable();
      if (path === '/t/busy' && mode !== 'unavailable-once') return unavailable();
      if (mode === 'faults' && path === '/t/broken') return unavailable();
      if (mode === 'faults' && path === '/t/odd') return send(503, { reason: 7 });
      return send(200, { name: 'a thing' });
    });
  });
}

async function run(mode: Mode): Promise<{ results: RunResults; code: number | null; seen: Map<string, number> }> {
  const seen = new Map<string, number>();
  const srv = server(mode, seen);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--quiet', '--seed', '1']);
    return { results: requireResults(cli), code: cli.code, seen };
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const op = (results: RunResults, id: string) => results.operations.find((o) => o.operationId === id)!;
const errors = (results: RunResults, id: string) => op(results, id).cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => f.check));

describe('a documented 503', () => {
  test('persisting: the operation is errored with the reason, nothing is blamed on the service, the verdict is incomplete', async () => {
    const { results, code } = await run('unavailable');
    for (const id of ['getThing', 'getBusy']) {
      expect(op(results, id).outcome, id).toBe('errored');
      expect(errors(results, id), id).toEqual([]);
      const positive = op(results, id).cases.find((c) => c.name === 'positive')!;
      expect(positive.outcome).toBe('errored');
      expect(positive.errorMessage).toMatch(new RegExp(`503 \\(Service Unavailable\\), which ${id} documents`));
    }
    for (const id of ['getBroken', 'getOdd']) expect(op(results, id).outcome, id).toBe('passed');
    expect(results.verdict).toBe('incomplete');
    expect(code).not.toBe(0);
    expect(code).not.toBe(1);
  }, 120_000);

  test('answered once: asked again after the back-off, served, and passed', async () => {
    const { results } = await run('unavailable-once');
    expect(op(results, 'getThing').outcome).toBe('passed');
    const retried = op(results, 'getThing').cases.flatMap((c) => c.exchanges.flatMap((e) => e.retries ?? []));
    expect(retried.map((r) => r.reason)).toContain('documented transient 503');
    expect(results.verdict).toBe('conformant');
  }, 120_000);

  test('undocumented, a server error; documented with a body its schema refuses, that finding and no server error', async () => {
    const { results } = await run('faults');
    expect(errors(results, 'getBroken')).toContain('not-a-server-error');
    expect(op(results, 'getBroken').outcome).toBe('failed');
    expect(errors(results, 'getOdd')).toContain('response-schema-conformance');
    expect(errors(results, 'getOdd')).not.toContain('not-a-server-error');
    expect(results.verdict).toBe('not-conformant');
  }, 120_000);
});
