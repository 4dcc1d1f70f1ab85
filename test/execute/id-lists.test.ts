/**
 * A collection that answers its members' ids, not their records (`{"pet_ids": ["<uuid>", …]}`, `[1, 2, 3]`), as its
 * schema says (an array of strings or integers, bare or the one array of a wrapper): against a real HTTP server, a
 * created record whose id the list names is listed (no created-resource-readable finding), and a list that drops
 * the created id is still reported, on the create, naming the list.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, jsonServer, listening, operation, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = { description: 'refused', content: json({ type: 'object', properties: { message: { type: 'string' } } }) };

/** One collection under `/things`: its records' id of `id` schema, its list answering `listSchema`. */
function contract(id: Record<string, unknown>, listSchema: unknown): Record<string, unknown> {
  const record = { type: 'object', required: ['id', 'name'], properties: { id, name: { type: 'string', minLength: 1, maxLength: 20 } } };
  return {
    openapi: '3.1.0',
    info: { title: 'Id lists', version: '1' },
    paths: {
      '/things': {
        get: { operationId: 'listThings', responses: { '200': { description: 'the ids', content: json(listSchema) } } },
        post: {
          operationId: 'createThing',
          requestBody: { required: true, content: json({ type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 20 } } }) },
          responses: { '201': { description: 'made', content: json(record) }, '400': error },
        },
      },
      '/things/{thingId}': {
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: id }],
        get: { operationId: 'getThing', responses: { '200': { description: 'the record', content: json(record) }, '400': error, '404': error } },
      },
    },
  };
}

type Shape = 'uuid-wrapper' | 'integer-bare';
const SCHEMAS: Record<Shape, { id: Record<string, unknown>; list: unknown }> = {
  'uuid-wrapper': { id: { type: 'string', format: 'uuid' }, list: { type: 'object', required: ['thing_ids'], properties: { thing_ids: { type: 'array', items: { type: 'string', format: 'uuid' } } } } },
  'integer-bare': { id: { type: 'integer', minimum: 1 }, list: { type: 'array', items: { type: 'integer' } } },
};

/** dropping: the list names only the records the deployment held before the run, never one it created. */
async function run(shape: Shape, dropping: boolean): Promise<RunResults> {
  const uuids = shape === 'uuid-wrapper';
  const held: Array<string | number> = uuids ? [randomUUID(), randomUUID()] : [1, 2];
  const records = new Map<string, { id: string | number; name: string }>(held.map((id) => [String(id), { id, name: 'held' }]));
  let next = 100;
  const server = jsonServer((req, body, reply) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/svc/things' && req.method === 'POST') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return reply(400, { message: 'not JSON' });
      }
      const name = (parsed as { name?: unknown } | null)?.name;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.keys(parsed).some((k) => k !== 'name') || typeof name !== 'string' || name.length < 1 || name.length > 20) {
        return reply(400, { message: 'name' });
      }
      const record = { id: uuids ? randomUUID() : next++, name };
      records.set(String(record.id), record);
      return reply(201, record);
    }
    if (path === '/svc/things' && req.method === 'GET') {
      const ids = [...records.values()].map((r) => r.id).filter((id) => !dropping || held.includes(id));
      return reply(200, uuids ? { thing_ids: ids } : ids);
    }
    const id = /^\/svc\/things\/([^/]+)$/.exec(path)?.[1];
    if (id !== undefined && req.method === 'GET') {
      const valid = uuids ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) : /^[1-9]\d{0,8}$/.test(id);
      if (!valid) return reply(400, { message: 'id' });
      const record = records.get(uuids ? id.toLowerCase() : id);
      return record ? reply(200, record) : reply(404, { message: 'Not Found' });
    }
    return reply(404, { message: 'Not Found' });
  });
  const { url, close } = await listening(server);
  try {
    const file = join(await tempDir(), 'things.openapi.json');
    await writeFile(file, JSON.stringify(contract(SCHEMAS[shape].id, SCHEMAS[shape].list)));
    return requireResults(await runCli(['--spec', file, '--base-url', url, '--quiet', '--seed', '1', '--fuzz-examples', '5', '--concurrency', '1']));
  } finally {
    await close();
  }
}

const readable = (results: RunResults) => operation(results, 'createThing').cases.find((c) => c.name === 'lifecycle: created record readable');
const unreadable = (results: RunResults) => allFindings(results).filter((f) => f.check === 'created-resource-readable');

describe('a collection that lists ids', () => {
  test('a wrapper of uuids that names the created id lists the record: the case passes, nothing is reported', async () => {
    const results = await run('uuid-wrapper', false);
    expect(readable(results)?.outcome).toBe('passed');
    expect(unreadable(results)).toEqual([]);
  });

  test('a wrapper of uuids that drops the created id: the record is missing from the list, an error of the create', async () => {
    const results = await run('uuid-wrapper', true);
    expect(readable(results)?.outcome).toBe('failed');
    const found = unreadable(results);
    expect(found.map((f) => `${f.operationId} ${f.severity}`)).toEqual(['createThing error']);
    expect(found[0]?.message).toMatch(/^The created record [0-9a-f-]{36} is missing from its collection's list \(listThings\)\.$/);
    // The evidence is what the list named: the two ids the deployment held, not an empty list of records.
    expect(found[0]?.actual).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });

  test('a bare array of integer ids that names the created id lists the record; one that drops it is reported', async () => {
    const listed = await run('integer-bare', false);
    expect(readable(listed)?.outcome).toBe('passed');
    expect(unreadable(listed)).toEqual([]);
    const dropped = await run('integer-bare', true);
    expect(readable(dropped)?.outcome).toBe('failed');
    const found = unreadable(dropped);
    expect(found.map((f) => `${f.operationId} ${f.severity}`)).toEqual(['createThing error']);
    expect(found[0]?.message).toMatch(/^The created record \d+ is missing from its collection's list \(listThings\)\.$/);
    expect(found[0]?.actual).toEqual([1, 2]);
  });
});
