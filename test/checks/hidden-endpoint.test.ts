/**
 * WFC 210, a hidden accessible endpoint: a method the contract documents for no operation of a path that the
 * deployment serves (2xx) instead of refusing it (405 or 501, a 404, 401/403 for the credentials). The rule on its
 * own (HTTP's OPTIONS and a HEAD where GET is documented are not hidden), then real HTTP servers: one that serves
 * an undocumented GET, TRACE and (asked only with --allow-irreversible) DELETE is found on the operation that
 * probed each path, under three seeds; correct ones, strict and lenient, are found with nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { hiddenEndpoint } from '../../src/runner/checks/hidden-endpoint.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { json, startHttp } from '../http/servers.ts';
import { expectReportsAgree } from '../support/reports-agree.ts';
import { allFindings, pool, removeTemps, requireResults, runCli, summary, tempDir, type CliRun } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

/** The check on one answer to a probe of /notes/{id}, whose contract documents GET there (and /notes/{id}/x: none). */
function judged(method: string, status: number, documented = ['GET']): Finding[] {
  const ctx = {
    exchange: { request: { method, url: 'http://x/notes/1', headers: {} }, response: { status, headers: {}, body: '', truncated: false, size: 0 }, durationMs: 1 },
    operation: { operationId: 'getNote', method: 'GET', path: '/notes/{id}', specFile: 'notes.json', pointer: '/paths/~1notes~1{id}/get' },
    expectation: 'unsupported-method',
    unsupportedMethod: { documented, covered: documented, recordUnknown: true },
  } as unknown as CheckContext;
  return hiddenEndpoint.run(ctx);
}

describe('the rule', () => {
  test('a success to an undocumented method is an error naming the method, the path and the status', () => {
    for (const [method, status] of [['DELETE', 204], ['TRACE', 200], ['QUERY', 200], ['POST', 201], ['PUT', 200], ['PATCH', 200]] as const) {
      const found = judged(method, status);
      expect(found.map((f) => `${f.check} ${f.severity}`), method).toEqual(['hidden-endpoint error']);
      expect(found[0]!.message).toMatch(new RegExp(`^${method} /notes/\\{id\\} answered ${status}: the deployment serves a method the contract does not document for the path \\(it documents GET\\)`));
      expect(found[0]!.actual).toBe(status);
    }
  });

  test("a refusal of any kind, HTTP's OPTIONS, and a HEAD where GET is documented: nothing", () => {
    for (const status of [400, 401, 403, 404, 405, 409, 415, 429, 501, 500, 302]) expect(judged('DELETE', status), String(status)).toEqual([]);
    expect(judged('OPTIONS', 200)).toEqual([]);
    expect(judged('OPTIONS', 204)).toEqual([]);
    expect(judged('HEAD', 200)).toEqual([]);
    // A HEAD served where the path documents no GET serves the GET it stands for: hidden.
    expect(judged('HEAD', 200, ['POST']).map((f) => f.check)).toEqual(['hidden-endpoint']);
  });
});

const NOTE = { type: 'object', required: ['id', 'text'], properties: { id: { type: 'integer' }, text: { type: 'string', maxLength: 100 } } };
const ID = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const ERROR = { description: 'refused', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } };
const one = { description: 'the note', content: { 'application/json': { schema: NOTE } } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Notes', version: '1' },
  paths: {
    '/notes': {
      get: { operationId: 'listNotes', responses: { '200': { description: 'all', content: { 'application/json': { schema: { type: 'array', items: NOTE } } } } } },
      post: {
        operationId: 'addNote',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 100 } } } } } },
        responses: { '201': { description: 'made', content: { 'application/json': { schema: NOTE } } }, '400': ERROR, '415': ERROR },
      },
    },
    '/notes/{id}': { get: { operationId: 'getNote', parameters: [ID], responses: { '200': one, '400': ERROR, '404': ERROR } } },
    '/notes/{id}/archive': { post: { operationId: 'archiveNote', parameters: [ID], responses: { '200': one, '400': ERROR, '404': ERROR } } },
  },
};

/**
 * 'serves': an undocumented GET of /notes/{id}/archive answers the note, TRACE /notes echoes its request line, and
 * DELETE /notes/{id} deletes the note (204); every other undocumented method is refused, 405 with Allow. 'strict':
 * 405 with Allow, OPTIONS 204 with Allow. 'lenient': what most routers do, 404 to a method no route has (501 to
 * TRACE), OPTIONS 200 with Allow; a JSON body read whatever its Content-Type, unknown properties ignored.
 */
type Mode = 'serves' | 'strict' | 'lenient';

function server(mode: Mode) {
  const notes = new Map<number, { id: number; text: string }>();
  let next = 1;
  return (req: IncomingMessage, res: ServerResponse, text: string) => {
    const method = req.method ?? '';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const [, id, archive] = /^\/notes\/([^/]+)(\/archive)?$/.exec(path) ?? [];
    const allowed = path === '/notes' ? ['GET', 'POST'] : archive ? ['POST'] : id !== undefined ? ['GET'] : [];
    if (allowed.length === 0) return json(res, 404, { message: 'no such route' });
    const note = id !== undefined && /^\d+$/.test(id) ? notes.get(Number(id)) : undefined;
    if (!allowed.includes(method)) {
      if (mode === 'serves' && method === 'GET' && archive) return note ? json(res, 200, note) : json(res, 404, { message: 'no such note' });
      if (mode === 'serves' && method === 'TRACE' && path === '/notes') return res.writeHead(200, { 'content-type': 'message/http' }).end(`TRACE ${req.url} HTTP/1.1\r\n\r\n`);
      if (mode === 'serves' && method === 'DELETE' && id !== undefined && !archive) return note ? (notes.delete(note.id), res.writeHead(204).end()) : json(res, 404, { message: 'no such note' });
      if (mode !== 'lenient') return method === 'OPTIONS' ? res.writeHead(204, { allow: allowed.join(', ') }).end() : json(res, 405, { message: 'method not allowed' }, { allow: allowed.join(', ') });
      if (method === 'OPTIONS') return res.writeHead(200, { allow: [...allowed, 'HEAD', 'OPTIONS'].join(', ') }).end();
      return method === 'TRACE' ? json(res, 501, { message: 'not implemented' }) : json(res, 404, { message: 'no such route' });
    }
    if (path === '/notes' && method === 'GET') return json(res, 200, [...notes.values()]);
    if (path === '/notes') {
      if (mode !== 'lenient' && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) return json(res, 415, { message: 'JSON only' });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return json(res, 400, { message: 'malformed JSON' });
      }
      const value = (body as { text?: unknown } | null)?.text;
      if (typeof value !== 'string' || value.length > 100) return json(res, 400, { message: 'invalid note' });
      const made = { id: next++, text: value };
      notes.set(made.id, made);
      return json(res, 201, made);
    }
    if (!/^\d+$/.test(id ?? '') || Number(id) < 1) return json(res, 400, { message: 'the id is a positive integer' });
    return note ? json(res, 200, note) : json(res, 404, { message: 'no such note' });
  };
}

async function run(mode: Mode, seed: string, args: string[] = ['--allow-irreversible']): Promise<{ cli: CliRun; results: RunResults }> {
  return limit(async () => {
    const svc = await startHttp(server(mode));
    try {
      const file = join(await tempDir(), 'notes.json');
      await writeFile(file, JSON.stringify(SPEC));
      const cli = await runCli(['--spec', file, '--base-url', svc.url, '--seed', seed, ...args]);
      return { cli, results: requireResults(cli) };
    } finally {
      await svc.close();
    }
  });
}

const hidden = (results: RunResults) =>
  [...new Set(allFindings(results).filter((f) => f.check === 'hidden-endpoint').map((f) => `${f.operationId} ${f.severity} ${/^[A-Z]+ \S+ answered \d+/.exec(f.message.replace(/^the same as in "[^"]+": /, ''))?.[0]}`))].sort();

describe('a deployment that serves methods its contract does not document', () => {
  for (const seed of ['1', '2', '3']) {
    test(
      `found on the operation that probed each path, once, as an error (seed ${seed})`,
      async () => {
        const { cli, results } = await run('serves', seed);
        const where = `${summary(results).join('\n')}\n${cli.stdout.slice(0, 3000)}`;
        expect(hidden(results), where).toEqual([
          'archiveNote error GET /notes/{id}/archive answered 200',
          'getNote error DELETE /notes/{id} answered 204',
          'listNotes error TRACE /notes answered 200',
        ]);
        // Not a second finding of unsupported-method: nothing else is found.
        expect(allFindings(results).filter((f) => f.check !== 'hidden-endpoint' && f.severity !== 'info' && !f.lenient), where).toEqual([]);
        const outcome = Object.fromEntries(results.operations.filter((o) => o.method !== null).map((o) => [o.operationId, o.outcome]));
        // The served DELETE removed the note: it is not sent again to be replayed (it would act again), so the case fails, not flaky.
        expect(outcome, where).toEqual({ listNotes: 'failed', addNote: 'passed', getNote: 'failed', archiveNote: 'failed' });
        expect(results.verdict).toBe('not-conformant');
        expect(cli.code, cli.stderr).toBe(1);
        expect(cli.stdout).toMatch(/hidden-endpoint: DELETE \/notes\/\{id\} answered 204/);
        await expectReportsAgree(cli);
      },
      RUN_TIMEOUT,
    );
  }

  test(
    'without --allow-irreversible the DELETE is not asked: the safe methods served are found alone',
    async () => {
      const { cli, results } = await run('serves', '1', []);
      expect(hidden(results), summary(results).join('\n')).toEqual(['archiveNote error GET /notes/{id}/archive answered 200', 'listNotes error TRACE /notes answered 200']);
      expect(cli.code).toBe(1);
    },
    RUN_TIMEOUT,
  );

  for (const mode of ['strict', 'lenient'] as const) {
    test(
      `a correct deployment (${mode}): nothing found, the run conformant`,
      async () => {
        const { cli, results } = await run(mode, '1');
        const where = `${summary(results).join('\n')}\n${cli.stdout.slice(0, 3000)}`;
        expect(hidden(results), where).toEqual([]);
        expect(allFindings(results).filter((f) => f.severity === 'error'), where).toEqual([]);
        expect(results.verdict, where).toBe('conformant');
        expect(cli.code, cli.stderr).toBe(0);
      },
      RUN_TIMEOUT,
    );
  }
});
