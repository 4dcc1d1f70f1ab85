/**
 * The shapes real servers broke on, against tiny node:http servers: a body nested 5,000 levels deep (a recursive
 * parser's stack overflow, answered 500), the object's own values as an array (`[5,"x",false]`, which derived
 * decoders build a record from: 201), a string field's value as an array of one (unwrapped by validators that
 * coerce types to arrays: 201), and a required field left out under a second declared request media type (a form,
 * where the server fills a default the JSON path does not). Each fault is found on its operation by its check; a
 * correct strict server and a correct lenient one (null for optional fields, coerced scalars, a deep object stored and
 * sent back) are found nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const PROBLEM = { description: 'refused', content: { 'application/json': { schema: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } } } } };
const ORDER = { type: 'object', required: ['name', 'qty'], properties: { name: { type: 'string', minLength: 1, maxLength: 20 }, qty: { type: 'integer', minimum: 1, maximum: 10 } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'shapes', version: '1' },
  servers: [{ url: 'http://127.0.0.1/s' }],
  paths: {
    '/todos': {
      post: {
        operationId: 'createTodo',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'value'],
                properties: { id: { type: 'integer', minimum: 1, maximum: 1_000_000 }, value: { type: 'string', minLength: 1, maxLength: 100 }, done: { type: 'boolean' }, meta: { type: 'object' } },
              },
            },
          },
        },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' }, value: { type: 'string' }, done: { type: 'boolean' }, meta: { type: 'object' } } } } } },
          '400': PROBLEM,
          '415': PROBLEM,
        },
      },
    },
    '/orders': {
      post: {
        operationId: 'createOrder',
        requestBody: { required: true, content: { 'application/json': { schema: ORDER }, 'application/x-www-form-urlencoded': { schema: ORDER } } },
        responses: { '201': { description: 'ordered', content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' }, qty: { type: 'integer' } } } } } }, '400': PROBLEM, '415': PROBLEM },
      },
    },
  },
};

type Mode = 'strict' | 'lenient';
type Fault = 'deep-crash' | 'values-as-array' | 'one-element-array' | 'form-missing';

/** How deep a JSON text nests, read without recursion. */
function depth(text: string): number {
  let deepest = 0;
  let now = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++now);
    else if (c === ']' || c === '}') now--;
  }
  return deepest;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * strict: the contract exactly (a depth limit of 512, answered 400). lenient: null for an optional field is no value,
 * a numeric string is a number, "true"/1 a boolean, any JSON body whatever its media type; arrays are never scalars.
 */
function server(mode: Mode, faults: readonly Fault[]): Server {
  const lenient = mode === 'lenient';
  const has = (fault: Fault) => faults.includes(fault);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const refuse = (detail: string) => send(400, { detail });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/s/todos' && url.pathname !== '/s/orders') return send(404, { detail: 'not found' });
      if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const text = Buffer.concat(chunks).toString('utf8');
      const form = url.pathname === '/s/orders' && type === 'application/x-www-form-urlencoded';
      if (!form && type !== 'application/json' && !(lenient && type !== '' && !type.startsWith('multipart/'))) return send(415, { detail: 'JSON only' });
      let body: unknown;
      if (form) body = Object.fromEntries(new URLSearchParams(text));
      else {
        // A recursive parser runs out of stack far before 5,000 levels: the faulty server does not catch it.
        if (has('deep-crash') && url.pathname === '/s/todos' && depth(text) > 1000) return res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        if (!lenient && depth(text) > 512) return refuse('nested too deep');
        try {
          body = JSON.parse(text);
        } catch {
          return refuse('not JSON');
        }
      }
      if (url.pathname === '/s/todos') return todo(body);
      return order(body, form);

      function integer(v: unknown): number | undefined {
        if (typeof v === 'number' && Number.isInteger(v)) return v;
        if (lenient && typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
        return undefined;
      }
      function todo(raw: unknown): unknown {
        // A decoder that builds the record from a sequence: [id, value, done, meta].
        let b = raw;
        if (has('values-as-array') && Array.isArray(b)) b = { id: b[0], value: b[1], done: b[2], meta: b[3] };
        if (!isRecord(b)) return refuse('an object is required');
        const field = (name: string) => {
          const v = b[name];
          if (has('one-element-array') && Array.isArray(v) && v.length === 1 && typeof v[0] !== 'object') return v[0];
          return lenient && v === null ? undefined : v;
        };
        const id = integer(field('id'));
        let value = field('value');
        if (lenient && (typeof value === 'number' || typeof value === 'boolean')) value = String(value);
        let done = field('done');
        if (lenient && (done === 1 || done === 0 || done === 'true' || done === 'false')) done = done === 1 || done === 'true';
        if (id === undefined || id < 1 || id > 1_000_000) return refuse('id');
        if (typeof value !== 'string' || [...value].length < 1 || [...value].length > 100) return refuse('value');
        if (done !== undefined && typeof done !== 'boolean') return refuse('done');
        const meta = field('meta');
        if (meta !== undefined && !isRecord(meta)) return refuse('meta');
        // The lenient server echoes what it was sent, a body nested deep included (as text: JSON.stringify of a value
        // that deep runs out of stack).
        if (lenient && !form && isRecord(raw) && isRecord(raw['meta']) && value === raw['value'] && id === raw['id'] && done === raw['done']) return res.writeHead(201, { 'content-type': 'application/json' }).end(text);
        return send(201, { id, value, ...(done !== undefined ? { done } : {}) });
      }
      function order(b: unknown, asForm: boolean): unknown {
        if (!isRecord(b)) return refuse('an object is required');
        // The faulty form binder fills a default for a missing name; the JSON path does not.
        let name = b['name'];
        if (has('form-missing') && asForm && name === undefined) name = 'anonymous';
        const qty = asForm ? (typeof b['qty'] === 'string' && /^\d+$/.test(b['qty']) ? Number(b['qty']) : undefined) : integer(b['qty']);
        if (typeof name !== 'string' || [...name].length < 1 || [...name].length > 20) return refuse('name');
        if (qty === undefined || qty < 1 || qty > 10) return refuse('qty');
        return send(201, { name, qty });
      }
    });
  });
}

async function run(mode: Mode, faults: readonly Fault[], seed: number): Promise<RunResults> {
  const srv = server(mode, faults);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'shapes.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    return requireResults(await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/s`, '--token', 'shapes-token', '--quiet', '--seed', String(seed)]));
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const errors = (results: RunResults) => allFindings(results).filter((f) => f.severity === 'error');
const shown = (results: RunResults) => JSON.stringify(errors(results).map((f) => [f.operationId, f.check, f.message]));
/** "<operationId>: <checks>" of the error findings. */
function byOperation(results: RunResults): string[] {
  const by = new Map<string, Set<string>>();
  for (const f of errors(results)) by.set(f.operationId, (by.get(f.operationId) ?? new Set()).add(f.check));
  return [...by].map(([op, checks]) => `${op}: ${[...checks].sort().join(', ')}`).sort();
}

const SEEDS = [1, 2, 3];

/** One run per server and seed, shared by the tests that read it. */
const runs = new Map<string, Promise<RunResults>>();
function ran(mode: Mode, faults: readonly Fault[], seed: number): Promise<RunResults> {
  const key = `${mode}:${faults.join('+')}:${seed}`;
  if (!runs.has(key)) runs.set(key, run(mode, faults, seed));
  return runs.get(key)!;
}

/** A planted fault: the operation and checks that find it, and the message and input class of a finding of it. */
const FAULTS = {
  'deep-crash': ['createTodo', 'not-a-server-error, status-code-conformance', /nested 5,000 levels deep/, undefined],
  'values-as-array': ['createTodo', 'negative-data-rejected', /body = \[\d+,".*"(,\w+)?.*\] \(the body's own values as an array, not an object\)/, 'values-as-array'],
  'one-element-array': ['createTodo', 'negative-data-rejected', /body\.value = \[".*"\] \(a one-element array, not a string\)/, 'one-element-array'],
  'form-missing': ['createOrder', 'negative-data-rejected', /^Invalid input was accepted with 201 \(sent as application\/x-www-form-urlencoded\)\.$/, 'missing-required'],
} as const satisfies Record<Fault, readonly [string, string, RegExp, string | undefined]>;

describe.concurrent('the missing shapes', () => {
  // Each correct server runs one seed (strict 1, lenient 2): the faulty servers below run seeds 1, 2 and 3, and a
  // second seed of a server that flags nothing proves nothing the first does not.
  test.each([['strict', 1], ['lenient', 2]] as const)('a correct %s server: nothing found (seed %i)', async (mode, only) => {
    for (const seed of [only]) {
      const results = await ran(mode, [], seed);
      expect(errors(results), shown(results)).toEqual([]);
      expect(results.verdict).toBe('conformant');
      // The lenient server stores the object nested 5,000 deep and sends it back: as deep as the request, not judged.
      const echoed = allFindings(results).filter((f) => f.check === 'response-body-readable');
      if (mode === 'lenient') expect(echoed.length, shown(results)).toBeGreaterThan(0);
      expect(echoed.every((f) => f.severity === 'warning' && /as deep as the request it answers: not judged\.$/.test(f.message))).toBe(true);
    }
  });

  // The body 5,000 levels deep (createTodo's) and the form binder's default (createOrder's) share a deployment: each
  // fault sits on its own operation and path, and neither touches what the other is sent or answers.
  test.each([
    ['a recursive parser overflowing on a body 5,000 levels deep (500); a required field left out taken as a form, refused as JSON (201)', ['deep-crash', 'form-missing']],
    ['the values as an array taken (201)', ['values-as-array']],
    ['a one-element array unwrapped for a string (201)', ['one-element-array']],
  ] as const)('%s: found on its operation by its check, under seeds 1, 2 and 3', async (_name, faults) => {
    for (const seed of SEEDS) {
      const results = await ran('strict', faults, seed);
      const planted = faults.map((fault) => FAULTS[fault]);
      expect(byOperation(results), shown(results)).toEqual(planted.map(([operationId, checks]) => `${operationId}: ${checks}`).sort());
      for (const [operationId, , message, inputClass] of planted) {
        const found = errors(results).filter((f) => f.operationId === operationId && message.test(f.message) && (inputClass === undefined || f.inputClass === inputClass));
        expect(found.length, `${operationId}: ${shown(results)}`).toBeGreaterThan(0);
      }
    }
  });

  test('the form fault is found on the case of that media type', async () => {
    // The seed-1 run of the deployment with the form fault above, read again.
    const results = await ran('strict', ['deep-crash', 'form-missing'], 1);
    const cases = results.operations.find((o) => o.operationId === 'createOrder')?.cases ?? [];
    const failed = cases.filter((c) => c.findings.some((f) => f.severity === 'error')).map((c) => c.name);
    expect(failed).toEqual(['negative: missing body field name (as application/x-www-form-urlencoded)']);
  });
});
