/**
 * The coverage phase on a network that drops connections (a keep-alive socket closed under the client, a busy
 * machine): a broken connection before any answer is sent once more, and it never hides a server error later
 * in the phase. A variation whose connection is cut on every attempt, while the server answers another request at
 * once and cuts again when it is sent alone, broke the server on that input (a handler that crashed): found as
 * connection-dropped naming it, never passed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CaseResult, RunResults } from '../../src/runner/model.ts';
import { json, startHttp } from '../http/servers.ts';
import { pool, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Calc', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/multiply': {
      post: {
        operationId: 'multiply',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number', example: 2 }, b: { type: 'number', example: 3 } } },
            },
          },
        },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { result: { type: 'number' } } } } } }, '422': { description: 'invalid' } },
      },
    },
  },
};

/**
 * Multiplies. Every schema-valid body other than the plain one (2 × 3) has its connection dropped the first
 * time it is seen (`dropsEach`: that many times); `overflows`: a product beyond a double answers 500;
 * `alwaysDrops`: a negative `a` is dropped every time.
 */
function server(mode: Mode) {
  const seen = new Map<string, number>();
  let dropped = 0;
  const handler = (req: IncomingMessage, res: ServerResponse, text: string) => {
    if (req.method !== 'POST') return json(res, 405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return json(res, 422, { detail: 'JSON only' });
    let body: { a?: unknown; b?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return json(res, 422, { detail: 'not JSON' });
    }
    const { a, b } = body ?? {};
    if (typeof a !== 'number' || typeof b !== 'number') return json(res, 422, { detail: 'a and b are numbers' });
    const plain = a === 2 && b === 3;
    if (!plain && ((mode.alwaysDrops && a < 0) || (seen.get(text) ?? 0) < (mode.dropsEach ?? 1))) {
      seen.set(text, (seen.get(text) ?? 0) + 1);
      dropped++;
      req.socket.destroy();
      return;
    }
    const result = a * b;
    if (mode.overflows && !Number.isFinite(result)) return json(res, 500, { detail: 'Internal Server Error' });
    return json(res, 200, { result: Number.isFinite(result) ? result : 0 });
  };
  return { handler, dropped: () => dropped };
}

interface Mode {
  overflows: boolean;
  alwaysDrops: boolean;
  /** Times each new variation's connection is dropped before it is answered (default 1). */
  dropsEach?: number;
}

async function run(mode: Mode): Promise<{ coverage: CaseResult; results: RunResults; dropped: number }> {
  return limit(async () => {
    const { handler, dropped } = server(mode);
    const svc = await startHttp(handler);
    try {
      const file = join(await tempDir(), 'calc.json');
      await writeFile(file, JSON.stringify(SPEC));
      const r = await runCli(['--spec', file, '--base-url', `${svc.url}/svc`, '--token', TOKEN, '--seed', '1']);
      const results = requireResults(r);
      const coverage = results.operations.find((o) => o.operationId === 'multiply')?.cases.find((c) => c.kind === 'coverage');
      if (!coverage) throw new Error(`no coverage case: ${r.stdout}`);
      return { coverage, results, dropped: dropped() };
    } finally {
      await svc.close();
    }
  });
}

describe('the coverage phase when connections break', () => {
  test(
    'each dropped variation is sent once more, and the overflow further on is still found as a server error',
    async () => {
      const { coverage, dropped } = await run({ overflows: true, alwaysDrops: false });
      expect(dropped).toBeGreaterThan(1);
      expect(coverage.outcome).toBe('failed');
      expect(coverage.findings.map((f) => `${f.check}:${f.severity}`)).toContain('not-a-server-error:error');
    },
    RUN_TIMEOUT,
  );

  test(
    'sockets that fail one after another (idle connections the server closed together) are retried until one answers',
    async () => {
      const { coverage, results, dropped } = await run({ overflows: true, alwaysDrops: false, dropsEach: 3 });
      expect(dropped).toBeGreaterThan(3);
      expect(coverage.outcome).toBe('failed');
      expect(coverage.findings.map((f) => `${f.check}:${f.severity}`)).toContain('not-a-server-error:error');
      expect(results.operations.flatMap((o) => o.cases).filter((c) => c.outcome === 'errored')).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'a variation whose connection is cut every time, alone too, while the server answers others: connection-dropped on that input, not passed',
    async () => {
      const { coverage } = await run({ overflows: false, alwaysDrops: true });
      expect(coverage.outcome).toBe('failed');
      const cut = coverage.findings.filter((f) => f.check === 'connection-dropped');
      expect(cut.length).toBeGreaterThan(0);
      expect(cut[0]!.message).toMatch(/closed the connection without an answer .* the last sent alone .* while it answered another request/);
      expect(coverage.findings.filter((f) => f.check === 'not-a-server-error')).toEqual([]);
      expect(cut.map((f) => f.varied)).toContain('body.a');
    },
    RUN_TIMEOUT,
  );
});
