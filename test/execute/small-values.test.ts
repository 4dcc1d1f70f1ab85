/**
 * The fuzzing phase's small-value sweep against a real HTTP server: a rule about one small integer (a value the
 * service refuses with a documented 400 though the contract admits it, a value that breaks the service) is
 * found under every seed, on the right operation with the right check; a correct server gets nothing. And
 * fuzzOperation itself: the sweep's requests come first, every integer of a request at the same small value
 * (optional ones included, int64 text values, steps and bounds honoured), a quarter of the budget at most, none
 * where the request carries no integer.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { fuzzOperation, SMALL_SWEEP } from '../../src/runner/execute/fuzz.ts';
import type { Exchange, Operation, RunResults } from '../../src/runner/model.ts';
import { bearerContract, jsonServer, listening, removeTemps, requireResults, runCli, tempDir, TOKEN, type CliRun } from '../support/runs.ts';
import { expectNothingFlagged } from '../support/nothing-flagged.ts';

afterAll(removeTemps);

const error = { description: 'refused', content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } } } };
const SPEC = bearerContract('3.1.0', 'Small values', {
    '/counter': {
      put: {
        operationId: 'setCounter',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['counter'], properties: { counter: { type: 'integer', minimum: 0, maximum: 1000000 } } } } } },
        responses: { '204': { description: 'set' }, '400': error },
      },
    },
    '/pages': {
      get: {
        operationId: 'listPages',
        parameters: [{ name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { type: 'integer' } } } } }, '400': error },
      },
    },
});

/** faulty: the counter refuses 7 (400, documented) and a page size of 13 breaks the listing (500). */
async function startServer(faulty: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  const server = jsonServer((req, body, reply) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, { message: 'no' });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/svc/pages' && req.method === 'GET') {
      const raw = url.searchParams.get('size');
      const size = raw === null ? 10 : Number(raw);
      if (!/^\d+$/.test(raw ?? '10') || size < 1 || size > 1000) return reply(400, { message: 'size' });
      if (faulty && size === 13) return reply(500, { message: 'unlucky page' });
      return reply(200, [1, 2, 3].slice(0, Math.min(3, size)));
    }
    if (url.pathname === '/svc/counter' && req.method === 'PUT') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return reply(400, { message: 'not JSON' });
      }
      const counter = (parsed as { counter?: unknown } | null)?.counter;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Number.isInteger(counter) || (counter as number) < 0 || (counter as number) > 1000000) return reply(400, { message: 'counter' });
      if (faulty && counter === 7) return reply(400, { message: 'do not like the number 7' });
      return reply(204);
    }
    return reply(404, { message: 'Not Found' });
  });
  return listening(server);
}

async function runOn(url: string, seed: string): Promise<CliRun> {
  const spec = join(await tempDir(), 'small.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  return runCli(['--spec', spec, '--server', `svc=${url}`, '--token', TOKEN, '--quiet', '--seed', seed]);
}

async function run(url: string, seed: string): Promise<RunResults> {
  return requireResults(await runOn(url, seed));
}

const errors = (r: RunResults) =>
  r.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => `${o.operationId} ${c.name} ${f.check}: ${f.message}`)));

describe('the small-value sweep', () => {
  test('a small value refused with a documented 400, and one that breaks the service, are found under every seed', async () => {
    const server = await startServer(true);
    try {
      for (const seed of ['1', '2', '3']) {
        const found = errors(await run(server.url, seed));
        expect(found.filter((f) => f.startsWith('setCounter fuzzing positive-data-accepted')), `seed ${seed}: ${found.join('\n')}`).toEqual([
          expect.stringMatching(/rejected with 400 \(fuzzing: body\.counter = 7\)/),
        ]);
        expect(found.some((f) => /^listPages fuzzing not-a-server-error: .*query\.size = 13\b/.test(f)), `seed ${seed}: ${found.join('\n')}`).toBe(true);
        // Nothing else is blamed (the 500 is undocumented too).
        const expected = /^(setCounter fuzzing positive-data-accepted|listPages fuzzing (not-a-server-error|status-code-conformance)):/;
        expect(found.filter((f) => !expected.test(f)), `seed ${seed}`).toEqual([]);
      }
    } finally {
      await server.close();
    }
  }, 180_000);

  // One seed for the correct server: the faulty one above runs seeds 1, 2 and 3 (the sweep sends its small values
  // under every seed; the random requests after it differ).
  test('a correct server: nothing is flagged, every operation passed', async () => {
    const server = await startServer(false);
    try {
      for (const seed of ['1']) expectNothingFlagged(await runOn(server.url, seed), `seed ${seed}`, ['listPages', 'setCounter']);
    } finally {
      await server.close();
    }
  }, 180_000);
});

describe('fuzzOperation: the sweep', () => {
  const op = (requestSchema: Record<string, unknown> | undefined, parameters: Operation['parameters'] = []): Operation => ({
    operationId: 'op', method: 'POST', path: '/op', group: '/op', service: 'svc', specFile: 'x', pointer: '/paths/~1op/post', parameters,
    ...(requestSchema ? { requestBody: { required: true, contentType: 'application/json', pointer: '', schema: requestSchema } } : {}),
    responses: [], secured: false, extensions: {},
  });
  const sentRequests = async (operation: Operation, numRuns: number, body: unknown) => {
    const sent: Array<{ query: Record<string, unknown>; body: unknown }> = [];
    await fuzzOperation(operation, { pathParams: {}, query: {}, body }, {
      seed: 'seed:op',
      numRuns,
      send: async (r) => {
        sent.push({ query: r.query, body: r.body });
        return { request: { method: 'POST', url: 'http://x/op', headers: {}, body: '' }, response: { status: 200, headers: {}, body: '{}', durationMs: 1 } } as unknown as Exchange;
      },
    });
    return sent;
  };

  test('every integer of the k-th request is the k-th small value of its range, optional ones and int64 text included', async () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'integer' },
        b: { type: 'integer', minimum: 5 },
        c: { type: 'integer', multipleOf: 3 },
        d: { type: 'integer', minimum: 0, maximum: 2 },
        name: { type: 'string' },
        // Identifiers keep their draws: a small id names a record that exists.
        id: { type: 'integer', minimum: 0 },
        ownerId: { type: 'integer', minimum: 0 },
      },
    };
    const sent = await sentRequests(op(schema, [{ name: 'n', in: 'query', required: false, pointer: '', schema: { type: 'integer', format: 'int64' } }]), 100, { a: 1 });
    const sweep = sent.slice(0, SMALL_SWEEP);
    const swept: unknown[] = [];
    sweep.forEach((r, k) => {
      const body = r.body as Record<string, unknown>;
      expect(body['a'], `request ${k}`).toBe(k);
      expect(body['b'], `request ${k}`).toBe(5 + k);
      expect(body['c'], `request ${k}`).toBe(3 * k);
      // A range of three: its values, then drawn at random inside it.
      if (k <= 2) expect(body['d']).toBe(k);
      else expect([0, 1, 2]).toContain(body['d']);
      expect(typeof body['name']).toBe('string');
      swept.push(body['id'], body['ownerId']);
      expect(String(r.query['n'])).toBe(String(k));
    });
    expect(swept.filter((v) => typeof v === 'number' && v > 1000).length).toBeGreaterThan(SMALL_SWEEP);
    // The rest are the random draws: not all small.
    expect(sent.slice(SMALL_SWEEP).some((r) => Math.abs((r.body as { a: number }).a) > 1000)).toBe(true);
  });

  test('a quarter of the budget at most; none where the request carries no integer', async () => {
    const small = await sentRequests(op({ type: 'object', required: ['a'], properties: { a: { type: 'integer', minimum: 0 } } }), 8, { a: 1 });
    expect(small.slice(0, 2).map((r) => (r.body as { a: number }).a)).toEqual([0, 1]);
    expect(small.length).toBeLessThanOrEqual(8);
    const text = await sentRequests(op({ type: 'object', required: ['s'], properties: { s: { type: 'string' }, n: { type: 'number' } } }), 40, { s: 'x' });
    const first = text.slice(0, 8).map((r) => (r.body as { n?: number }).n).filter((n) => n !== undefined);
    // Numbers are drawn, not swept: no run of 0, 1, 2 at the start.
    expect(first.slice(0, 3)).not.toEqual([0, 1, 2]);
  });
});
