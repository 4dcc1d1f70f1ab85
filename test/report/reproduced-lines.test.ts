/**
 * Every curl line the console prints answers what the line above it says, when pasted: a run against a small real
 * server on 127.0.0.1 whose create answers one check and status for different causes (a 201 body missing `age`, a
 * 201 body whose `age` is a string), an undocumented 422 only a coverage variation gets while that case's first
 * error is a 500, and whose delete answers an undocumented 202 for a record the run made first. Each line is
 * replayed with `sh -c` against the same server (it stays up); the delete's line says it needs its record, and the
 * reproduction script it points to makes the record and answers 202 again.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toCurl } from '../../src/runner/report/curl.ts';
import { jsonServer, listening, removeTemps, requireResults, runCli, tempDir, type CliRun } from '../support/runs.ts';
import { curlLines, replay, shell, type Line } from '../support/replay.ts';
import { cannotRun } from '../support/cannot-run.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const HAS_CURL = spawnSync('curl', ['--version']).status === 0;
const HAS_BASH = spawnSync('bash', ['--version']).status === 0;

const person = { type: 'object', required: ['id', 'name', 'age'], properties: { id: { type: 'string' }, name: { type: 'string' }, age: { type: 'integer' } } };
const input = { type: 'object', required: ['name', 'age'], properties: { name: { type: 'string', maxLength: 20 }, age: { type: 'integer', minimum: 0, maximum: 150 } } };
const error = { description: 'refused', content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'people', version: '1' },
  servers: [{ url: 'http://127.0.0.1/svc' }],
  paths: {
    '/people': {
      post: {
        operationId: 'createPerson',
        requestBody: { required: true, content: { 'application/json': { schema: input } } },
        responses: { '201': { description: 'created', content: { 'application/json': { schema: person } } }, '400': error },
      },
    },
    '/people/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getPerson', responses: { '200': { description: 'the person', content: { 'application/json': { schema: person } } }, '404': error } },
      delete: { operationId: 'deletePerson', responses: { '204': { description: 'deleted' }, '404': error } },
    },
  },
};

/** What the server gets wrong: a create without `age` (201 without it), an age above 150 (201 with it as a string), a null age (500), a long name (422); a delete answers 202. */
function peopleServer() {
  let next = 1;
  // Ids long enough for a reproduction script to carry from the create's answer (reproduction.ts: MIN_VALUE_LENGTH).
  const people = new Map<string, Record<string, unknown>>();
  return jsonServer((req, body, reply) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/svc/people') {
      if (!String(req.headers['content-type'] ?? '').includes('json')) return reply(400, { message: 'JSON only' });
      let b: Record<string, unknown>;
      try {
        b = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return reply(400, { message: 'malformed' });
      }
      if (typeof b !== 'object' || b === null || Array.isArray(b) || typeof b['name'] !== 'string') return reply(400, { message: 'name' });
      if (b['name'].length > 20) return reply(422, { message: 'name too long' });
      const age = b['age'];
      if (age === null) return reply(500, { message: 'boom' });
      if (age !== undefined && (typeof age !== 'number' || !Number.isInteger(age) || age < 0)) return reply(400, { message: 'age' });
      const id = `person-${String(next++).padStart(4, '0')}`;
      const p: Record<string, unknown> = { id, name: b['name'], ...(typeof age === 'number' ? { age: age > 150 ? String(age) : age } : {}) };
      people.set(id, p);
      return reply(201, p);
    }
    const m = /^\/svc\/people\/([^/]+)$/.exec(path);
    const id = decodeLeniently(m?.[1] ?? '');
    if (m && req.method === 'GET') return people.has(id) ? reply(200, people.get(id)) : reply(404, { message: 'no such person' });
    if (m && req.method === 'DELETE') {
      if (!people.delete(id)) return reply(404, { message: 'no such person' });
      return reply(202);
    }
    reply(404, { message: 'no such route' });
  });
}

let server: Awaited<ReturnType<typeof listening>>;
let run: CliRun;
let lines: Line[];

beforeAll(async () => {
  server = await listening(peopleServer());
  const spec = join(await tempDir(), 'people.json');
  writeFileSync(spec, JSON.stringify(SPEC));
  run = await runCli(['--spec', spec, '--base-url', server.url, '--seed', '1']);
  lines = curlLines(run.stdout);
}, 150_000);

afterAll(async () => {
  await server?.close();
  await removeTemps();
});

describe('every curl line the console prints answers what the line above it states', () => {
  test('the run fails on the create and the delete, and one check and status holds two causes, each its own line', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(lines.map((l) => l.operation)).toEqual(expect.arrayContaining(['createPerson', 'deletePerson']));
    // A later case that met the same cause says so ("the same as in …") and is left out here.
    const schema201 = lines.filter((l) => l.operation === 'createPerson' && l.status === 201 && l.finding.includes('response-schema-conformance') && !l.finding.includes('the same as in'));
    // The first counts the later cases' same finding too ("seen on N requests").
    expect(schema201.map((l) => l.finding.replace(/^.*does not match the schema: /, '').replace(/ \(seen on \d+ requests\)$/, ''))).toEqual([
      "(root) must have required property 'age'.",
      expect.stringMatching(/^\/age must be integer\./),
    ]);
    // Each with its own request: the body without `age`, the one with an age above 150.
    expect(schema201[0]!.curl).not.toContain('"age"');
    expect(schema201[1]!.curl).toMatch(/"age":\d{3,}/);
    // The variation the coverage case alone got an undocumented 422 for is shown with its own request, not the case's first error.
    expect(lines.some((l) => l.status === 422 && l.finding.includes('status-code-conformance: Status 422'))).toBe(true);
  });

  test('each line alone, replayed with sh -c against the server, answers the status it states', async ({ skip }) => {
    if (!HAS_CURL) cannotRun(skip, 'curl not installed: cannot run the printed lines');
    const alone = lines.filter((l) => l.needs === undefined);
    expect(alone.length).toBeGreaterThanOrEqual(5);
    for (const l of alone) expect(await replay(l.curl), `${l.finding}\n${l.curl}`).toBe(String(l.status));
  });

  test('a line whose request needs a record made first says so; alone it answers otherwise, and its reproduction script answers as stated', async ({ skip }) => {
    if (!HAS_CURL || !HAS_BASH) cannotRun(skip, 'curl or bash not installed: cannot run the printed lines');
    const needing = lines.filter((l) => l.needs !== undefined);
    expect(needing.map((l) => [l.operation, l.status])).toEqual([['deletePerson', 202]]);
    const [line] = needing;
    expect(line!.needs).toContain('the reproduction script in index.html and results.json makes it');
    // The record it names is gone (the run deleted it): alone the line answers 404, not the 202 it states.
    expect(await replay(line!.curl)).toBe('404');
    const results = requireResults(run);
    const kase = results.operations.find((o) => o.operationId === 'deletePerson')?.cases.find((c) => c.curl === line!.curl);
    expect(kase?.reproduction).toBeDefined();
    const script = await shell('bash', kase!.reproduction!);
    expect(script.stdout).toContain('reproduced: HTTP 202, as in the run');
    expect(script.code).toBe(0);
  });

  test('results.json: each finding\'s curl line is the exchange whose answer its message states, and a folded one speaks of its own', async ({ skip }) => {
    if (!HAS_CURL) cannotRun(skip, 'curl not installed: cannot run the lines');
    const create = requireResults(run).operations.find((o) => o.operationId === 'createPerson')!;
    let checked = 0;
    for (const c of create.cases) {
      for (const f of c.findings.filter((x) => x.severity === 'error')) {
        const line = f.curl ?? c.curl;
        const claimed = /(?:Response|Status|answered|accepted with) (\d{3})\b/.exec(f.message)?.[1];
        if (!line || !claimed) continue;
        // The case keeps the exchange the line was made from, and that exchange got the status the message states.
        const exchange = c.exchanges.find((e) => toCurl(e.request) === line);
        expect(exchange?.response?.status, `${c.name}: ${f.message}`).toBe(Number(claimed));
        expect(await replay(line), `${c.name}: ${f.message}`).toBe(claimed);
        checked++;
        if (f.sameAs === undefined) continue;
        // A folded finding's message is its own evidence's: the property its own body lacks.
        expect(f.message.startsWith(`the same as in "${f.sameAs}": `)).toBe(true);
        const missing = /required property '(\w+)'/.exec(f.message)?.[1];
        if (missing && f.actual && typeof f.actual === 'object') expect(f.actual).not.toHaveProperty(missing);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
