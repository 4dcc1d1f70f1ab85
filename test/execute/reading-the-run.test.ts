/**
 * A report a reader can act on, on a small store whose answers carry a date-time where `format: date` is
 * documented (every successful answer breaks its schema) and that answers malformed JSON with an undocumented 400:
 *  - the console lists every failing check of an operation (grouped by check and status, with the number of
 *    requests and a curl line each), not only the first;
 *  - a create whose answer breaks its schema still made its record: its integer id is used (the created record is
 *    read back, the delete's chain runs) and no skip says "answered no record id";
 *  - a delete is judged by the status of the read after it: a reader whose answers break their schema does not
 *    stop the "use after delete" chain;
 *  - a list that answered `[]` to its first calls and records breaking the schema once there were some is
 *    failed ("seen once the answer changed"), not flaky: flaky is the same request on the same state answering
 *    differently;
 *  - each operation's time is the wall time from its first request to its last answer, never more than the run,
 *    with the number of requests;
 *  - skipped cases are listed by reason with the operations each hit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CaseResult, RunResults } from '../../src/runner/model.ts';
import { renderSummary } from '../../src/runner/report/console.ts';
import { removeTemps, requireResults, runCli, tempDir, type CliRun } from '../support/runs.ts';

afterAll(removeTemps);

const THING = {
  type: 'object',
  required: ['id', 'name', 'day'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, day: { type: 'string', format: 'date' } },
};

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'things', version: '1' },
  servers: [{ url: 'http://127.0.0.1/t' }],
  paths: {
    '/things': {
      get: { operationId: 'listThings', responses: { '200': { description: 'things', content: { 'application/json': { schema: { type: 'array', items: THING } } } } } },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 20 } } } } } },
        responses: {
          '201': { description: 'made', content: { 'application/json': { schema: THING } } },
          '422': { description: 'refused' },
        },
      },
    },
    '/things/{thingId}': {
      parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: { operationId: 'getThing', responses: { '200': { description: 'the thing', content: { 'application/json': { schema: THING } } }, '404': { description: 'none' } } },
      delete: { operationId: 'deleteThing', responses: { '204': { description: 'gone' }, '404': { description: 'none' } } },
    },
  },
};

let listCalls = 0;

/**
 * The store. Its list reads empty to the first two calls (the presence probe's and the positive case's first),
 * as it would before the run's creates landed, and holds the records from then on.
 */
function store(): Server {
  // One record someone else made; the list reads empty to its first two calls all the same (see above).
  const things = new Map<number, { id: number; name: string; day: string }>([[1, { id: 1, name: 'first', day: '2026-11-27T09:00:00Z' }]]);
  let next = 2;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/t/things') {
        if (req.method === 'GET') {
          listCalls++;
          return json(200, listCalls <= 2 ? [] : [...things.values()]);
        }
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST' }).end();
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return json(400, { message: 'malformed JSON' });
        }
        const name = (body as { name?: unknown } | null)?.name;
        if (typeof name !== 'string' || name.length > 20) return res.writeHead(422).end();
        const thing = { id: next++, name, day: '2026-11-27T10:00:00Z' };
        things.set(thing.id, thing);
        return json(201, thing);
      }
      const m = /^\/t\/things\/([^/]+)$/.exec(url.pathname);
      if (!m) return res.writeHead(404).end();
      const id = Number(m[1]);
      if (req.method === 'GET') return things.has(id) ? json(200, things.get(id)) : res.writeHead(404).end();
      if (req.method === 'DELETE') return things.delete(id) ? res.writeHead(204).end() : res.writeHead(404).end();
      return res.writeHead(405, { allow: 'GET, DELETE' }).end();
    });
  });
}

let run: CliRun;
let results: RunResults;

beforeAll(async () => {
  const srv = store();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    await writeFile(spec, JSON.stringify(SPEC));
    run = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--seed', '1', '--concurrency', '1', '--allow-irreversible']);
    results = requireResults(run);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}, 120_000);

function checksOf(operationId: string): string[] {
  const op = results.operations.find((o) => o.operationId === operationId)!;
  return [...new Set(op.cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => f.check)))].sort();
}

/** The console's lines of one failing operation (up to the next operation or section). */
function consoleBlock(operationId: string): string[] {
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^  \\S+ +${operationId}  `).test(l));
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && !/^ {11}/.test(l));
  return lines.slice(at + 1, end < 0 ? undefined : end);
}

describe('reading the run', () => {
  test('the console lists every failing check of an operation, each with its count and curl line', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(checksOf('createThing')).toEqual(expect.arrayContaining(['response-schema-conformance', 'status-code-conformance']));
    const block = consoleBlock('createThing');
    for (const check of ['response-schema-conformance', 'status-code-conformance']) {
      expect(block.some((l) => l.includes(`: ${check}: `)), `${check} in\n${block.join('\n')}`).toBe(true);
    }
    // Each check's group says how many requests showed it and how to send one again.
    expect(block.filter((l) => /\d+ requests? answered \d{3} · curl /.test(l)).length, block.join('\n')).toBeGreaterThanOrEqual(2);
    expect(block.some((l) => /answered 400 · curl .*-X POST/.test(l)), block.join('\n')).toBe(true);
  });

  test('a create whose answer breaks its schema still made its record: its id is used, no skip says otherwise', () => {
    const skips = results.operations.flatMap((o) => o.cases.filter((c) => c.outcome === 'skipped').map((c) => `${o.operationId} ${c.name}: ${c.skipReason}`));
    expect(skips.filter((s) => /no record id/.test(s))).toEqual([]);
    const create = results.operations.find((o) => o.operationId === 'createThing')!;
    const readable = create.cases.find((c) => c.name === 'lifecycle: created record readable');
    expect(readable?.outcome, JSON.stringify(readable)).not.toBe('skipped');
    // The delete's chain ran on a reader whose answers break the schema: a delete is judged by the status after it.
    const deleted = results.operations.find((o) => o.operationId === 'deleteThing')!.cases.find((c) => c.name === 'lifecycle: use after delete');
    expect(deleted?.outcome, JSON.stringify(deleted)).toBe('passed');
  });

  test('a list that changed with the state is failed, not flaky', () => {
    const list = results.operations.find((o) => o.operationId === 'listThings')!;
    expect(list.outcome).toBe('failed');
    expect(results.operations.filter((o) => o.outcome === 'flaky').map((o) => o.operationId)).toEqual([]);
    const positive = list.cases.find((c) => c.name === 'positive')!;
    expect(positive.outcome).toBe('failed');
    expect(positive.findings.find((f) => f.check === 'response-schema-conformance')?.message).toMatch(/Seen once the answer changed with the deployment's state/);
  });

  test("an operation's time is its wall time, never more than the run, with its requests", () => {
    for (const op of results.operations.filter((o) => o.method !== null)) {
      expect(op.durationMs, op.operationId).toBeLessThanOrEqual(results.durationMs);
      expect(op.requests, op.operationId).toBeGreaterThan(0);
    }
    const slowest = run.stdout.split('\n').slice(run.stdout.split('\n').findIndex((l) => l.startsWith('Slowest operations')) + 1);
    expect(slowest[0]).toMatch(/^ +\d+(\.\d+)? m?s {2}\w+ {2}\d+ requests$/);
  });
});

describe('skipped cases on the console', () => {
  test('grouped by reason, with the operations each reason hit', () => {
    const skipped = (name: string, kind: 'irreversible' | 'no-producer', reason: string): CaseResult => ({
      name,
      kind: 'positive',
      outcome: 'skipped',
      skipKind: kind,
      skipReason: reason,
      durationMs: 0,
      checks: [],
      findings: [],
      exchanges: [],
    });
    const op = (operationId: string, cases: RunResults['operations'][number]['cases']) =>
      ({ operationId, method: 'POST', path: `/${operationId}`, group: 'g', service: 's', outcome: 'untested', durationMs: 0, cases }) as RunResults['operations'][number];
    const text = renderSummary(
      {
        ...results,
        operations: [
          op('sendOtp', [skipped('positive', 'irreversible', 'irreversible: sends a one-time password')]),
          op('resetCounter', [skipped('positive', 'irreversible', 'irreversible: resets a counter'), skipped('negative: x', 'irreversible', 'irreversible: resets a counter')]),
          op('readOrphan', [skipped('positive', 'no-producer', 'no described operation creates the record for {orphanId}')]),
        ],
      },
      {},
      { color: false },
    );
    const lines = text.split('\n');
    const at = lines.indexOf('Skipped cases, by reason:');
    expect(at, text).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 5)).toEqual([
      '      3  irreversible side effects (--allow-irreversible against a disposable deployment): sendOtp, resetCounter',
      '         e.g. irreversible: sends a one-time password (and 1 other reason)',
      '      1  no operation of the contract makes the records they need: readOrphan',
      '         e.g. no described operation creates the record for {orphanId}',
    ]);
  });
});
