/**
 * One seed, one verdict: a store that hands a freed id to the next record it makes (the lowest free one, as a
 * slab allocator does) and answers after a random delay, run five times at --concurrency 8 with one seed, gives
 * the same findings, outcomes and counts each time; on its correct variant no record-level error at all, and on
 * a variant whose delete does not delete, use-after-delete on the delete under every run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, jsonServer, listening, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';
import { expectReportsAgree } from '../support/reports-agree.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const NEW = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 20 }, size: { type: 'integer', minimum: 0, maximum: 99 } }, additionalProperties: false };
const ITEM = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' }, size: { type: 'integer' } } };
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const id = [{ name: 'itemId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];
const refused = { '400': { description: 'refused', ...json(ERROR) } };
const none = { '404': { description: 'none', ...json(ERROR) } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'slab store', version: '1' },
  paths: {
    '/items': {
      get: { operationId: 'listItems', responses: { '200': { description: 'all', ...json({ type: 'array', items: ITEM }) } } },
      post: { operationId: 'createItem', requestBody: { required: true, ...json(NEW) }, responses: { '201': { description: 'made', ...json(ITEM) }, ...refused } },
    },
    '/items/{itemId}': {
      get: { operationId: 'getItem', parameters: id, responses: { '200': { description: 'one', ...json(ITEM) }, ...refused, ...none } },
      put: { operationId: 'putItem', parameters: id, requestBody: { required: true, ...json(NEW) }, responses: { '200': { description: 'updated', ...json(ITEM) }, ...refused, ...none } },
      delete: { operationId: 'deleteItem', parameters: id, responses: { '204': { description: 'deleted' }, ...refused, ...none } },
    },
  },
};

type Mode = 'correct' | 'delete-keeps';

/** Items keyed by id; a new item takes the lowest free id. Every answer waits 0 to 15 ms, at random. */
function slabStore(mode: Mode) {
  const items = new Map<number, Record<string, unknown>>();
  const valid = (v: unknown): v is { name: string; size?: number } => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    if (Object.keys(o).some((k) => k !== 'name' && k !== 'size')) return false;
    if (typeof o['name'] !== 'string' || o['name'].length < 1 || o['name'].length > 20) return false;
    return o['size'] === undefined || (Number.isInteger(o['size']) && (o['size'] as number) >= 0 && (o['size'] as number) <= 99);
  };
  return jsonServer((req, body, reply) => {
    const later = (status: number, value?: unknown) => setTimeout(() => reply(status, value), Math.floor(Math.random() * 16));
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/svc/, '');
    let parsed: unknown;
    try {
      parsed = body === '' ? undefined : JSON.parse(body);
    } catch {
      return later(400, { message: 'malformed' });
    }
    if (path === '/items') {
      if (req.method === 'GET') return later(200, [...items.values()]);
      if (req.method !== 'POST') return later(405, { message: 'method' });
      if (!valid(parsed)) return later(400, { message: 'invalid' });
      let next = 1;
      while (items.has(next)) next++;
      const item = { id: next, ...parsed };
      items.set(next, item);
      return later(201, item);
    }
    const m = /^\/items\/([^/]+)$/.exec(path);
    if (!m) return later(404, { message: 'no route' });
    if (!/^[1-9][0-9]{0,8}$/.test(m[1]!)) return later(400, { message: 'bad id' });
    const key = Number(m[1]);
    const item = items.get(key);
    if (req.method === 'GET') return item ? later(200, item) : later(404, { message: 'none' });
    if (req.method === 'PUT') {
      if (!valid(parsed)) return later(400, { message: 'invalid' });
      if (!item) return later(404, { message: 'none' });
      const updated = { id: key, ...parsed };
      items.set(key, updated);
      return later(200, updated);
    }
    if (req.method === 'DELETE') {
      if (!item) return later(404, { message: 'none' });
      if (mode === 'correct') items.delete(key);
      return later(204);
    }
    return later(405, { message: 'method' });
  });
}

async function runs(mode: Mode, times: number): Promise<RunResults[]> {
  const server = await listening(slabStore(mode));
  try {
    const dir = await tempDir();
    const spec = join(dir, 'slab.openapi.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const out: RunResults[] = [];
    for (let i = 0; i < times; i++) {
      const run = await runCli(['--spec', spec, '--base-url', server.url, '--seed', '7', '--concurrency', '8', '--allow-irreversible', '--quiet']);
      await expectReportsAgree(run);
      out.push(requireResults(run));
    }
    return out;
  } finally {
    await server.close();
  }
}

/** What a verdict is made of: every finding (operation, check, severity, message) and every case's outcome, sorted; the counts. */
function fingerprint(results: RunResults) {
  return {
    verdict: results.verdict,
    counts: results.counts,
    // The ids in a message are those the store gave, in the order the creates reached it: not the run's to fix.
    findings: allFindings(results).map((f) => `${f.operationId} ${f.check} ${f.severity}: ${f.message.replace(/\/items\/\d+/g, '/items/N')}`).sort(),
    outcomes: results.operations.flatMap((o) => o.cases.map((c) => `${o.operationId} ${c.name}: ${c.outcome}`)).sort(),
  };
}

const RECORD_CHECKS = new Set(['use-after-delete', 'created-resource-readable', 'update-persisted', 'ownership']);

describe('a store that gives freed ids to new records, answering in random order', () => {
  test('the correct store: five runs at --concurrency 8, one verdict, no record-level error', { timeout: 300_000 }, async () => {
    const results = await runs('correct', 5);
    const first = fingerprint(results[0]!);
    for (const r of results.slice(1)) expect(fingerprint(r)).toEqual(first);
    expect(allFindings(results[0]!).filter((f) => RECORD_CHECKS.has(f.check))).toEqual([]);
  });

  test('a delete that deletes nothing: use-after-delete on deleteItem in every run', { timeout: 300_000 }, async () => {
    const results = await runs('delete-keeps', 3);
    const first = fingerprint(results[0]!);
    for (const r of results.slice(1)) expect(fingerprint(r)).toEqual(first);
    expect(allFindings(results[0]!).filter((f) => f.check === 'use-after-delete').map((f) => f.operationId)).toContain('deleteItem');
  });
});
