/**
 * A body schema that names properties but no type (a common slip: `required` and `properties` without
 * `type: object`) lets any JSON kind through by the letter. The run sends the other kinds (`[]`, a string, a
 * number, `true`) and judges only their answers: a server that refuses them with an undocumented media type
 * is flagged on that operation by content-type-conformance; one that refuses them with its documented JSON
 * error, or takes them, gets nothing flagged.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const ERROR = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer', format: 'int32' }, message: { type: 'string' } } };
const PET = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, tag: { type: 'string' } } };

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/pets': {
      post: {
        operationId: 'addPet',
        requestBody: {
          required: true,
          // No `type`: by the letter of JSON Schema, `[]` and `true` are valid bodies.
          content: { 'application/json': { schema: { required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } } } },
        },
        responses: {
          '200': { description: 'the pet', content: { 'application/json': { schema: PET } } },
          default: { description: 'an error', content: { 'application/json': { schema: ERROR } } },
        },
      },
    },
  },
};

type Refusal = 'text' | 'json' | 'accept';

interface Seen {
  body: string;
  status: number;
}

/** The pet store; `refusal` is how it answers a body that is no JSON object. */
async function startServer(refusal: Refusal): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  let next = 1;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        seen.push({ body, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const error = (message: string) => json(400, { code: 400, message });
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/svc/pets') return json(404, { code: 404, message: 'no such path' });
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return json(405, { code: 405, message: 'POST only' });
      }
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return json(415, { code: 415, message: 'JSON only' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return error('not JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        if (refusal === 'text') {
          seen.push({ body, status: 400 });
          res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
          return res.end('json: cannot unmarshal into Go value of type NewPet');
        }
        if (refusal === 'json') return error('a pet is an object');
        return json(200, { id: next++, name: 'unnamed' });
      }
      const pet = parsed as Record<string, unknown>;
      if (typeof pet['name'] !== 'string') return error('name is required');
      if ('tag' in pet && typeof pet['tag'] !== 'string') return error('tag is a string');
      return json(200, { id: next++, name: pet['name'], ...(typeof pet['tag'] === 'string' ? { tag: pet['tag'] } : {}) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let spec: string | undefined;

async function runAgainst(refusal: Refusal): Promise<{ results: RunResults; seen: Seen[] }> {
  spec ??= join(await tempDir(), 'pets.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await startServer(refusal);
  try {
    const cli = await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--max-examples', '10']);
    return { results: requireResults(cli), seen: server.seen };
  } finally {
    await server.close();
  }
}

describe('a body schema without a type', () => {
  test('other JSON kinds are sent; a refusal as text/plain is flagged on the operation, by content-type-conformance', async () => {
    const { results, seen } = await runAgainst('text');
    // Each kind went out as the whole body.
    for (const body of ['[]', '"conformance"', '1', 'true']) expect(seen.some((s) => s.body === body)).toBe(true);
    const found = allFindings(results).filter((f) => f.severity === 'error');
    // The media type is the defect: a text/plain body is judged as text, not as JSON that failed to parse.
    expect([...new Set(found.map((f) => f.check))].sort()).toEqual(['content-type-conformance']);
    expect(found.every((f) => f.operationId === 'addPet')).toBe(true);
    const op = results.operations.find((o) => o.operationId === 'addPet');
    expect(op?.outcome).toBe('failed');
    expect(found.find((f) => f.check === 'content-type-conformance')?.message).toMatch(/Response 400 has content type text\/plain/);
    // The evidence is a request whose body is another JSON kind.
    const evidence = op?.cases.flatMap((c) => (c.findings.some((f) => f.check === 'content-type-conformance') ? c.exchanges : [])) ?? [];
    expect(evidence.some((e) => ['[]', '"conformance"', '1', 'true'].includes(String(e.request.body)))).toBe(true);
  }, 120_000);

  test('a refusal with the documented JSON error is not flagged, and neither is taking them', async () => {
    for (const refusal of ['json', 'accept'] as const) {
      const { results, seen } = await runAgainst(refusal);
      expect(seen.some((s) => s.body === 'true'), refusal).toBe(true);
      expect(allFindings(results).filter((f) => f.severity !== 'info'), refusal).toEqual([]);
      expect(results.operations.find((o) => o.operationId === 'addPet')?.outcome, refusal).toBe('passed');
    }
  }, 120_000);
});
