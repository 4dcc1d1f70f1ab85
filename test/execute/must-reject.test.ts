/**
 * The inputs a service must refuse are sent: one value of each JSON kind no parser turns into the declared type
 * (an array for a string: `"email": ["a@b.co"]`, the one-element-array class), and near misses of each format (a date-time for a date, nullable
 * or not). A server that takes them is flagged on the operation by negative-data-rejected; a correct one that
 * refuses them is flagged nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'people', version: '1' },
  servers: [{ url: 'http://127.0.0.1/p' }],
  paths: {
    '/people': {
      post: {
        operationId: 'createPerson',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['email'],
                properties: {
                  email: { type: 'string', format: 'email' },
                  born: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
                },
              },
            },
          },
        },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { type: 'object', properties: { email: { type: 'string' } } } } } },
          '422': { description: 'invalid', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
};

type Kind = 'correct' | 'takes-array' | 'takes-date-time';

/** A server that validates as the contract says; or one that takes an array for the email, or a date-time for the date. */
function server(kind: Kind): Server {
  return createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method !== 'POST' || req.url !== '/p/people') return req.url !== '/p/people' ? send(404, { detail: 'not found' }) : res.writeHead(405, { allow: 'POST' }).end();
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return send(422, { detail: 'not JSON' });
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return send(422, { detail: 'not an object' });
      let email = body['email'];
      if (kind === 'takes-array' && Array.isArray(email)) email = String(email[0]);
      if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return send(422, { detail: 'email' });
      const born = body['born'];
      const date = kind === 'takes-date-time' ? /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/ : /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
      if (born !== undefined && born !== null && !(typeof born === 'string' && date.test(born) && !Number.isNaN(Date.parse(born.slice(0, 10))) && new Date(born.slice(0, 10)).toISOString().startsWith(born.slice(0, 10)))) return send(422, { detail: 'born' });
      return send(201, { email });
    });
  });
}

async function run(kind: Kind, seed: number): Promise<RunResults> {
  const srv = server(kind);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'people.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    return requireResults(await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/p`, '--token', 'people-token', '--quiet', '--seed', String(seed)]));
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const errors = (results: RunResults) => allFindings(results).filter((f) => f.severity === 'error');

describe.concurrent('inputs a service must refuse', () => {
  test('a correct server refuses them: nothing flagged, under two seeds', async () => {
    for (const seed of [1, 2]) {
      const results = await run('correct', seed);
      expect(summary(results)).toEqual([]);
      expect(errors(results)).toEqual([]);
    }
  });

  test.each([
    ['an array taken for a string (email: ["a@b.co"])', 'takes-array', 'one-element-array', /body\.email = \[.*\] \(a one-element array, not a string\)/],
    ['a date-time taken for a nullable date', 'takes-date-time', 'invalid-format', /body\.born = "2020-01-01T00:00:00Z?" \(invalid date, close to a valid one\)/],
  ] as const)('%s: flagged on createPerson by negative-data-rejected, under two seeds', async (_name, kind, inputClass, label) => {
    for (const seed of [1, 2]) {
      const results = await run(kind, seed);
      expect(summary(results)).toEqual(['createPerson: failed [negative-data-rejected]']);
      const found = errors(results).filter((f) => f.inputClass === inputClass);
      expect(found.length, JSON.stringify(errors(results).map((f) => f.message))).toBeGreaterThan(0);
      expect(found.some((f) => label.test(f.message)), JSON.stringify(found.map((f) => f.message))).toBe(true);
    }
  });
});
