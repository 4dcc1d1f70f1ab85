/**
 * A request the deployment closes the connection of without an answer (a handler that crashed: Go's net/http and
 * Rust's hyper cut the connection of a request whose handler panicked), again when it is sent alone, while the
 * deployment answers other requests: a `connection-dropped` error (WFC 100) on that operation, with its curl line.
 * A server that cuts a request only while it handles another (a front shedding load) answers the lone re-send: a
 * hiccup of what else was in flight, not reported. A correct server: nothing. (A deployment that stops answering entirely is the "stopped answering"
 * rule's: test/runs/misbehaving-targets.test.ts.)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { expectReportsAgree } from '../support/reports-agree.ts';
import { allFindings, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tempDir, type CliRun } from '../support/runs.ts';
import { expectNothingFlagged } from '../support/nothing-flagged.ts';

afterAll(removeTemps);

const RUN_TIMEOUT = 120_000;
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const THING = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 40 } } };
const ID = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      get: { operationId: 'listThings', responses: { '200': { description: 'all', ...json({ type: 'array', items: THING }) } } },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 40 } } }) },
        responses: { '201': { description: 'made', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) } },
      },
    },
    '/things/{id}': {
      get: { operationId: 'getThing', parameters: [ID], responses: { '200': { description: 'one', ...json(THING) }, '400': { description: 'refused', ...json(ERROR) }, '404': { description: 'none', ...json(ERROR) } } },
    },
    '/things/{id}/report': {
      get: {
        operationId: 'getReport',
        parameters: [ID],
        responses: { '200': { description: 'its report', ...json({ type: 'object', required: ['id', 'lines'], properties: { id: { type: 'integer' }, lines: { type: 'integer' } } }) }, '400': { description: 'refused', ...json(ERROR) }, '404': { description: 'none', ...json(ERROR) } },
      },
    },
  },
};

/**
 * 'crashes': every GET of a report has its connection cut without an answer; 'busy': only one that comes while
 * the server handles another request (every answer takes 10 ms), as a front shedding load does; 'correct'.
 */
type Mode = 'crashes' | 'busy' | 'correct';

function server(mode: Mode): { srv: Server; cut: () => number } {
  const things = new Map<number, { id: number; name: string }>();
  let cut = 0;
  let handling = 0;
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const [, id, report] = /^\/t\/things\/([^/]+)(\/report)?$/.exec(path) ?? [];
    if (path === '/t/things') {
      if (req.method === 'GET') return send(200, [...things.values()]);
      if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST' }).end();
      let name: unknown;
      try {
        name = (JSON.parse(body) as { name?: unknown } | null)?.name;
      } catch {
        return send(400, { message: 'malformed JSON' });
      }
      if (typeof name !== 'string' || name.length > 40) return send(400, { message: 'invalid thing' });
      const thing = { id: things.size + 1, name };
      things.set(thing.id, thing);
      return send(201, thing);
    }
    if (id === undefined) return send(404, { message: 'no such route' });
    if (req.method !== 'GET') return res.writeHead(405, { allow: 'GET' }).end();
    if (report && (mode === 'crashes' || (mode === 'busy' && handling > 1))) {
      cut++;
      return req.socket.destroy();
    }
    if (!/^\d+$/.test(id)) return send(400, { message: 'the id is not an integer' });
    const thing = things.get(Number(id));
    if (!thing) return send(404, { message: 'no such thing' });
    return send(200, report ? { id: thing.id, lines: thing.name.length } : thing);
  };
  const srv = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      handling++;
      res.on('close', () => handling--);
      if (mode === 'busy') setTimeout(() => handle(req, res, body), 10);
      else handle(req, res, body);
    });
  });
  return { srv, cut: () => cut };
}

async function run(mode: Mode, seed: string): Promise<{ cli: CliRun; results: RunResults; cut: number }> {
  const { srv, cut } = server(mode);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--seed', seed, '--keep-passed-exchanges']);
    return { cli, results: requireResults(cli), cut: cut() };
  } finally {
    srv.closeAllConnections();
    await new Promise((resolve) => srv.close(resolve));
  }
}

const dropped = (results: RunResults): Finding[] => allFindings(results).filter((f) => f.check === 'connection-dropped');

describe('a request whose connection the deployment closes without an answer', () => {
  for (const seed of ['1', '2', '3']) {
    test(
      `cut every time, again when sent alone, while others are answered: connection-dropped on that operation alone (seed ${seed})`,
      async () => {
        const { cli, results, cut } = await run('crashes', seed);
        const where = `${summary(results).join('\n')}\n${cli.stdout.slice(0, 3000)}`;
        expect(cut, where).toBeGreaterThan(0);
        const found = dropped(results);
        expect(found.length, where).toBeGreaterThan(0);
        expect(new Set(found.map((f) => `${f.operationId} ${f.severity}`))).toEqual(new Set(['getReport error']));
        for (const f of found) expect(f.message).toMatch(/^(the same as in "[^"]+": )?GET \/things\/\{id\}\/report\b.* got no response: the server closed the connection without an answer .* the last sent alone \(no other request of the run's cases in flight\), while it answered another request/);
        // Not also a server error of the old kind: one finding per crash.
        expect(allFindings(results).filter((f) => f.check === 'not-a-server-error'), where).toEqual([]);
        // Only that operation fails; the others pass.
        for (const o of results.operations.filter((o) => o.method !== null)) expect(o.outcome, `${o.operationId}\n${where}`).toBe(o.operationId === 'getReport' ? 'failed' : 'passed');
        expect(results.verdict).toBe('not-conformant');
        expect(results.targetDown).toBeUndefined();
        expect(cli.code, cli.stderr).toBe(1);
        expect(resultsSchemaErrors(results)).toEqual([]);
        // Its curl line: the finding's own or its case's, the GET of a report.
        const report = results.operations.find((o) => o.operationId === 'getReport')!;
        const withFinding = report.cases.filter((c) => c.findings.some((f) => f.check === 'connection-dropped'));
        for (const c of withFinding) {
          const curls = c.findings.filter((f) => f.check === 'connection-dropped').map((f) => f.curl ?? c.curl ?? '');
          for (const curl of curls) expect(curl).toMatch(/^curl .*\/t\/things\/[^/]+\/report/);
        }
        // The console says it, on that operation, with the check's id.
        expect(cli.stdout).toMatch(/connection-dropped/);
        expect(cli.stdout).toMatch(/getReport/);
        await expectReportsAgree(cli);
      },
      RUN_TIMEOUT,
    );
  }

  test(
    'cut only while the server handles another request, answered when sent alone: not connection-dropped, the run conformant',
    async () => {
      const { cli, results, cut } = await run('busy', '1');
      const where = `${summary(results).join('\n')}\n${cli.stdout.slice(0, 3000)}`;
      expect(cut, where).toBeGreaterThan(0);
      // The cut requests were sent again alone and answered (kept with --keep-passed-exchanges).
      const resent = results.operations.flatMap((o) => o.cases.flatMap((c) => c.exchanges)).filter((e) => e.retries?.some((r) => r.reason.startsWith('sent alone: ')));
      expect(resent.length, where).toBeGreaterThan(0);
      expect(resent.every((e) => e.response !== undefined), where).toBe(true);
      expect(resultsSchemaErrors(results)).toEqual([]);
      expect(dropped(results), where).toEqual([]);
      expectNothingFlagged(cli, where);
      await expectReportsAgree(cli);
    },
    RUN_TIMEOUT,
  );

  test(
    'a correct server: nothing found',
    async () => {
      const { cli, results, cut } = await run('correct', '1');
      expect(cut).toBe(0);
      expectNothingFlagged(cli, summary(results).join('\n'));
    },
    RUN_TIMEOUT,
  );
});
