/**
 * The fuzzing phase against real HTTP servers: random schema-valid requests (fast-check) find a server error
 * that needs a particular combination of values, and shrink it to a minimal request; a correct server gets
 * nothing flagged; the same seed sends the same requests; --read-only sends no unsafe call; the shrinking is
 * bounded by its request budget.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CaseResult, RunResults } from '../../src/runner/model.ts';
import { fuzzOperation, SHRINK_BUDGET } from '../../src/runner/execute/fuzz.ts';
import type { Exchange, Operation } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '400': { description: 'bad request' }, '401': { description: 'no credentials' } };
const json = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Fuzz', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/orders': {
      post: {
        operationId: 'placeOrder',
        requestBody: json({
          type: 'object',
          required: ['count', 'name'],
          properties: {
            count: { type: 'integer', format: 'int32' },
            name: { type: 'string', maxLength: 40 },
            note: { type: 'string' },
            urgent: { type: 'boolean' },
            id: { type: 'string', readOnly: true },
          },
        }),
        responses: ok,
      },
    },
    '/baskets': {
      post: {
        operationId: 'fillBasket',
        requestBody: json({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 99 } }, label: { type: 'string' } } }),
        responses: ok,
      },
    },
    '/search': {
      get: {
        operationId: 'search',
        parameters: [
          { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 50 } },
          { name: 'X-Locale', in: 'header', required: false, schema: { type: 'string', enum: ['en', 'de'] } },
        ],
        responses: ok,
      },
    },
    '/always': {
      post: {
        operationId: 'alwaysBroken',
        requestBody: json({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'array', items: { type: 'string' } } } }),
        responses: ok,
      },
    },
  },
};

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A server that answers like the description; `faulty` adds the server errors. */
async function startServer(faulty: boolean, delayMs?: () => number): Promise<{ url: string; seen: Seen[]; inFlight: { now: number; max: number }; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const inFlight = { now: 0, max: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    inFlight.max = Math.max(inFlight.max, ++inFlight.now);
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const reply = (status: number, value: unknown = {}) => {
        const answer = () => {
          inFlight.now--;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        if (delayMs) setTimeout(answer, delayMs());
        else answer();
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { message: 'no' }); }
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/svc/search') return url.searchParams.get('q') ? reply(200, {}) : reply(400, { message: 'q' });
      if (req.method !== 'POST') return reply(404, { detail: 'Not Found' });
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reply(400, { message: 'not an object' });
      } catch {
        return reply(400, { message: 'not JSON' });
      }
      if (url.pathname === '/svc/orders') {
        const { count, name } = parsed;
        if (!Number.isInteger(count) || (count as number) > 2147483647 || (count as number) < -2147483648 || typeof name !== 'string' || [...name].length > 40) return reply(400, { message: 'bad types' });
        if ('note' in parsed && typeof parsed['note'] !== 'string') return reply(400, { message: 'bad note' });
        if ('urgent' in parsed && typeof parsed['urgent'] !== 'boolean') return reply(400, { message: 'bad urgent' });
        if (faulty && (count as number) > 1000 && /[^\x00-\x7f]/.test(name)) return reply(500, { message: 'encoding overflow' });
        return reply(200, { count, name });
      }
      if (url.pathname === '/svc/baskets') {
        const items = parsed['items'];
        if (!Array.isArray(items) || items.some((i) => !Number.isInteger(i))) return reply(400, { message: 'bad items' });
        if ('label' in parsed && typeof parsed['label'] !== 'string') return reply(400, { message: 'bad label' });
        if (faulty && items.length > 3) return reply(500, { message: 'basket overflow' });
        return reply(200, { items });
      }
      if (url.pathname === '/svc/always') {
        const { a, b, c } = parsed;
        const valid = (a === undefined || typeof a === 'string') && (b === undefined || typeof b === 'number') && (c === undefined || (Array.isArray(c) && c.every((x) => typeof x === 'string')));
        if (!valid) return reply(400, { message: 'bad types' });
        return faulty ? reply(500, { message: 'always' }) : reply(200, {});
      }
      return reply(404, { detail: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, seen, inFlight, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let spec: string;

async function run(url: string, extra: string[]): Promise<RunResults> {
  spec ??= join(await tempDir(), 'fuzz.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const cli = await runCli(['--spec', spec, '--server', `svc=${url}`, '--token', TOKEN, '--quiet', '--max-examples', '0', '--keep-passed-exchanges', ...extra]);
  return requireResults(cli);
}

function fuzzCase(results: RunResults, operationId: string): CaseResult | undefined {
  return results.operations.find((o) => o.operationId === operationId)?.cases.find((c) => c.name === 'fuzzing');
}

function sentBody(c: CaseResult | undefined): Record<string, unknown> {
  return JSON.parse(c?.exchanges.at(-1)?.request.body ?? 'null') as Record<string, unknown>;
}

describe('the fuzzing phase', () => {
  describe('against a server whose errors need a combination of values', () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    let results: RunResults;
    beforeAll(async () => {
      server = await startServer(true);
      results = await run(server.url, ['--seed', '1', '--fuzz-examples', '50']);
    }, 180_000);
    afterAll(() => server.close());

    test('finds the error that needs a number over 1000 together with a non-ASCII name, shrunk to the minimal request', () => {
      const c = fuzzCase(results, 'placeOrder');
      expect(c?.outcome, JSON.stringify(c)).toBe('failed');
      expect(c?.findings.map((f) => f.check)).toContain('not-a-server-error');
      const body = sentBody(c);
      // Optional fields left out, the number at the smallest failing value, the name one non-ASCII character and,
      // after a space, the part of its own a name carries (a backend may keep names unique: plan/named-values.ts).
      expect(Object.keys(body).sort()).toEqual(['count', 'name']);
      expect(body['count']).toBe(1001);
      expect(body['name']).toMatch(/^[^\x00-\x7f] [a-z0-9]{8}$/u);
      const message = c?.findings.find((f) => f.check === 'not-a-server-error')?.message ?? '';
      expect(message).toMatch(/fuzzing: body\.count = 1001, body\.name = "/);
      expect(message).toMatch(/smallest failing request of \d+ sent/);
      // The reproduction is the shrunk request itself, one curl line (the token as a variable).
      expect(c?.curl).toMatch(/^curl .*-X POST .*\/svc\/orders/);
      expect(c?.curl).toContain('"count":1001');
      expect(c?.curl).toContain('$CONFORMANCE_TOKEN');
      expect(c?.curl).not.toContain(TOKEN);
    });

    test('finds the error that needs a list longer than 3, shrunk to four items', () => {
      const c = fuzzCase(results, 'fillBasket');
      expect(c?.outcome).toBe('failed');
      const body = sentBody(c);
      expect(Object.keys(body)).toEqual(['items']);
      expect(body['items']).toEqual([0, 0, 0, 0]);
    });

    test('the shrinking stops at its request budget', () => {
      const c = fuzzCase(results, 'alwaysBroken');
      expect(c?.outcome).toBe('failed');
      const serverError = c?.findings.find((f) => f.check === 'not-a-server-error');
      const sent = Number(/of (\d+) sent/.exec(serverError?.message ?? '')?.[1]);
      expect(sent).toBeGreaterThan(0);
      expect(sent).toBeLessThanOrEqual(1 + SHRINK_BUDGET);
      expect(sentBody(c)).toEqual({});
    });

    test('a correct operation on the same server passes; readOnly fields are never sent', () => {
      expect(fuzzCase(results, 'search')?.outcome).toBe('passed');
      const orders = server.seen.filter((s) => s.method === 'POST' && s.url === '/svc/orders' && s.body !== '{"conformance-probe":');
      expect(orders.length).toBeGreaterThan(10);
      expect(orders.some((s) => 'id' in (JSON.parse(s.body) as object))).toBe(false);
    });
  });

  describe('against a correct server', () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    let first: RunResults;
    let firstSeen: string[];
    let again: string[];
    let other: string[];
    // Every request but the probe of a route that surely does not exist (a random path by design).
    const fuzzRequests = (seen: Seen[]) => seen.filter((s) => !s.url.includes('conformance-unknown-route')).map((s) => `${s.method} ${s.url} ${s.body}`).sort();
    beforeAll(async () => {
      server = await startServer(false);
      first = await run(server.url, ['--seed', '3']);
      firstSeen = fuzzRequests(server.seen.splice(0));
      await run(server.url, ['--seed', '3']);
      again = fuzzRequests(server.seen.splice(0));
      await run(server.url, ['--seed', '4']);
      other = fuzzRequests(server.seen.splice(0));
    }, 300_000);
    afterAll(() => server.close());

    test('nothing is flagged and every fuzzing case passed', () => {
      expect(allFindings(first).filter((f) => f.severity === 'error')).toEqual([]);
      for (const op of ['placeOrder', 'fillBasket', 'search', 'alwaysBroken']) expect(fuzzCase(first, op)?.outcome).toBe('passed');
    });

    test('the same seed sends the same requests; another seed sends others', () => {
      expect(again).toEqual(firstSeen);
      expect(other).not.toEqual(firstSeen);
      // The default run draws up to 10 requests per operation (--fuzz-examples).
      expect(firstSeen.filter((s) => s.startsWith('GET /svc/search')).length).toBeGreaterThan(5);
    });
  });

  test('drawn requests go out several at a time, never more than --concurrency in flight, judged the same whatever the timing', async () => {
    const shown = (r: RunResults) =>
      r.operations.flatMap((o) => (o.cases.find((c) => c.name === 'fuzzing')?.findings ?? []).map((f) => `${o.operationId} ${f.check} ${f.message}`)).sort();
    const runs: Array<{ findings: string[]; requests: string[]; max: number }> = [];
    for (const delay of [() => Math.random() * 6, () => 6 - Math.random() * 6]) {
      const server = await startServer(true, delay);
      try {
        const results = await run(server.url, ['--seed', '5', '--fuzz-examples', '30', '--concurrency', '3', '--include', 'alwaysBroken,fillBasket']);
        const requests = server.seen.filter((s) => !s.url.includes('conformance-unknown-route')).map((s) => `${s.method} ${s.url} ${s.body}`).sort();
        runs.push({ findings: shown(results), requests, max: server.inFlight.max });
      } finally {
        await server.close();
      }
    }
    for (const r of runs) {
      expect(r.max).toBeLessThanOrEqual(3);
      expect(r.max).toBeGreaterThan(1);
      expect(r.findings.some((f) => f.startsWith('fillBasket not-a-server-error'))).toBe(true);
    }
    expect(runs[1]?.findings).toEqual(runs[0]?.findings);
    expect(runs[1]?.requests).toEqual(runs[0]?.requests);
  }, 180_000);

  test('fuzzOperation: `parallel` requests in flight at most, answers handed on in the order drawn, the same ones whatever the timing', async () => {
    const op: Operation = {
      operationId: 'fill', method: 'POST', path: '/fill', group: '/fill', service: 'svc', specFile: 'x', pointer: '/paths/~1fill/post', parameters: [],
      requestBody: { required: true, contentType: 'application/json', pointer: '', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 0, maximum: 1000 }, s: { type: 'string' } } } },
      responses: [], secured: false, extensions: {},
    };
    const once = async (latency: (i: number) => number) => {
      let now = 0;
      let max = 0;
      let i = 0;
      const order: string[] = [];
      const fuzz = await fuzzOperation(op, { pathParams: {}, query: {}, body: { n: 1 } }, {
        seed: 'seed:fill',
        numRuns: 40,
        parallel: 4,
        send: async (r) => {
          max = Math.max(max, ++now);
          await new Promise((resolve) => setTimeout(resolve, latency(i++)));
          now--;
          const status = (r.body as { n: number }).n > 500 ? 500 : 200;
          return { request: { method: 'POST', url: 'http://x/fill', headers: {}, body: JSON.stringify(r.body) }, response: { status, headers: {}, body: '{}', durationMs: 1 } } as unknown as Exchange;
        },
        answered: (r) => order.push(JSON.stringify(r.body)),
      });
      return { max, order, failing: JSON.stringify(fuzz.failing?.request.body) };
    };
    const a = await once((k) => (k * 7) % 5);
    const b = await once((k) => 4 - ((k * 3) % 5));
    expect(a.max).toBe(4);
    expect(b.max).toBe(4);
    expect(b.order).toEqual(a.order);
    expect(a.order.length).toBeGreaterThan(20);
    // Shrunk from the first server error in the order drawn, to the smallest failing value.
    expect(a.failing).toBe('{"n":501}');
    expect(b.failing).toBe(a.failing);
  });

  test('fuzzOperation: a slow first answer holds back the sending (at most twice `parallel` answered and not yet judged), not a hundred answers waiting in memory', async () => {
    const op: Operation = {
      operationId: 'fill', method: 'POST', path: '/fill', group: '/fill', service: 'svc', specFile: 'x', pointer: '/paths/~1fill/post', parameters: [],
      requestBody: { required: true, contentType: 'application/json', pointer: '', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 0, maximum: 100000 } } } },
      responses: [], secured: false, extensions: {},
    };
    let sent = 0;
    let judged = 0;
    let waiting = 0;
    const fuzz = await fuzzOperation(op, { pathParams: {}, query: {}, body: { n: 1 } }, {
      seed: 'seed:slow-first',
      numRuns: 100,
      parallel: 4,
      send: async () => {
        const mine = sent++;
        // The first answer comes last: every other one is answered at once and must wait for its turn.
        await new Promise((resolve) => setTimeout(resolve, mine === 0 ? 200 : 0));
        waiting = Math.max(waiting, sent - judged);
        return { request: { method: 'POST', url: 'http://x/fill', headers: {}, body: '{}' }, response: { status: 200, headers: {}, body: '{}', durationMs: 1 } } as unknown as Exchange;
      },
      answered: () => void judged++,
    });
    expect(fuzz.sent).toBeGreaterThan(50);
    expect(judged).toBe(fuzz.sent);
    expect(waiting).toBeLessThanOrEqual(8);
  });

  test('--read-only: the fuzzing phase of an unsafe operation does not run; safe ones do', async () => {
    const server = await startServer(true);
    try {
      const unsafe = () =>
        server.seen
          .splice(0)
          .filter((s) => s.method !== 'GET' && s.method !== 'HEAD' && s.method !== 'OPTIONS' && !s.url.includes('conformance-unknown-route'))
          .map((s) => `${s.method} ${s.url} ${s.body}`)
          .sort();
      const off = await run(server.url, ['--read-only', '--fuzz-examples', '0']);
      const without = unsafe();
      // --fuzz-examples 0 turns the phase off.
      expect(off.operations.flatMap((o) => o.cases).some((c) => c.name === 'fuzzing')).toBe(false);
      const results = await run(server.url, ['--read-only', '--fuzz-examples', '20']);
      const searches = server.seen.filter((s) => s.method === 'GET' && s.url.startsWith('/svc/search')).length;
      expect(fuzzCase(results, 'placeOrder')?.outcome).toBe('skipped');
      expect(fuzzCase(results, 'placeOrder')?.skipReason).toMatch(/--read-only/);
      expect(fuzzCase(results, 'search')?.outcome).toBe('passed');
      // The phase adds no unsafe call: the ones sent are the read-only run's own (presence probes with a malformed
      // body, auth cases without a body, negative cases that must be rejected), the same as without the phase.
      expect(unsafe()).toEqual(without);
      expect(searches).toBeGreaterThan(5);
    } finally {
      await server.close();
    }
  }, 180_000);
});
