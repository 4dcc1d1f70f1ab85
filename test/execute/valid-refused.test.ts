/**
 * A valid request refused is an error, in every phase that sends valid requests (the positive case, the coverage
 * and fuzzing phases, the update chain), unless the refusal can depend on stored data: the request names a record
 * the run did not get from the service (a warning naming the field), or the answer is a 409; or the contract says
 * it does not show the rule the request may break (`x-required: not shown`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ 'application/json': { schema } });
const problem = { description: 'refused', content: json({ type: 'object', properties: { message: { type: 'string' } } }) };
const thing = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 30 }, size: { type: 'integer', minimum: 0, maximum: 100 }, owner_id: { type: 'integer', minimum: 1 } } };
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];

/** A thing that always names its parent (no operation makes parents: the run's value is made up). */
const child = { ...thing, required: ['name', 'parent_id'], properties: { ...thing.properties, parent_id: { type: 'integer', minimum: 1 } } };

function spec(unshown: boolean, withParent = false) {
  const schema = withParent ? child : thing;
  const body = { required: true, content: json(unshown ? { ...schema, 'x-required': 'not shown' } : schema) };
  return {
    openapi: '3.1.0',
    info: { title: 'things', version: '1' },
    servers: [{ url: 'http://127.0.0.1/v' }],
    paths: {
      '/things': { post: { operationId: 'createThing', requestBody: body, responses: { '201': { description: 'made', content: json({ type: 'object', properties: { id: { type: 'integer' } } }) }, '400': problem, '403': problem } } },
      '/things/{id}': {
        get: { operationId: 'getThing', parameters: id, responses: { '200': { description: 'ok', content: json({ type: 'object' }) }, '404': problem } },
        put: { operationId: 'putThing', parameters: id, requestBody: body, responses: { '200': { description: 'ok', content: json({ type: 'object' }) }, '400': problem, '403': problem, '404': problem } },
      },
    },
  };
}

type Kind = 'correct' | 'refuses-size' | 'owner-must-exist' | 'requires-size' | 'forbids-size' | 'owner-forbidden';

/** `refuses-size`: a PUT with a size is refused (a rule no contract states); `owner-must-exist`: an owner_id names a record; `requires-size`: a size is required, though the contract does not say. */
function server(kind: Kind, parent = false): Server {
  const things = new Map<number, Record<string, unknown>>();
  let next = 1;
  return createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const m = /^\/v\/things(?:\/([^/?]+))?$/.exec(req.url ?? '');
      if (!m) return send(404, { message: 'no route' });
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        return send(400, { message: 'not JSON' });
      }
      const invalid =
        typeof body !== 'object' || body === null || Array.isArray(body) ||
        typeof body['name'] !== 'string' || [...body['name']].length < 1 || [...body['name']].length > 30 ||
        ('size' in body && !(Number.isInteger(body['size']) && (body['size'] as number) >= 0 && (body['size'] as number) <= 100)) ||
        ('owner_id' in body && !(Number.isInteger(body['owner_id']) && (body['owner_id'] as number) >= 1)) ||
        // A parent is required where the contract says so; which one is not looked at.
        (parent && !(Number.isInteger(body['parent_id']) && (body['parent_id'] as number) >= 1)) ||
        !/^application\/json\b/.test(req.headers['content-type'] ?? '');
      const write = req.method === 'POST' || req.method === 'PUT';
      if (write && invalid) return send(400, { message: 'invalid' });
      if (write && kind === 'owner-must-exist' && 'owner_id' in body && !things.has(body['owner_id'] as number)) return send(400, { message: 'no such owner' });
      if (write && kind === 'owner-forbidden' && 'owner_id' in body && !things.has(body['owner_id'] as number)) return send(403, { message: 'not your owner' });
      if (write && kind === 'requires-size' && !('size' in body)) return send(400, { message: 'size is required' });
      if (m[1] === undefined) {
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
        const made = next++;
        things.set(made, body);
        return send(201, { id: made });
      }
      if (!['GET', 'PUT'].includes(req.method ?? '')) return res.writeHead(405, { allow: 'GET, PUT' }).end();
      const key = Number(m[1]);
      if (!/^\d+$/.test(m[1]) || !things.has(key)) return send(404, { message: 'none' });
      if (req.method === 'PUT') {
        if (kind === 'refuses-size' && 'size' in body) return send(400, { message: 'size cannot change' });
        if (kind === 'forbids-size' && 'size' in body) return send(403, { message: 'size cannot change' });
        things.set(key, body);
      }
      return send(200, things.get(key));
    });
  });
}

async function run(kind: Kind, unshown = false, withParent = false): Promise<RunResults> {
  const srv = server(kind, withParent);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const file = join(await tempDir(), 'things.json');
    writeFileSync(file, JSON.stringify(spec(unshown, withParent)));
    return requireResults(await runCli(['--spec', file, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v`, '--token', 'things-token', '--quiet', '--seed', '1']));
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const accepted = (results: RunResults) => allFindings(results).filter((f) => f.check === 'positive-data-accepted').map((f) => ({ operationId: f.operationId, severity: f.severity, message: f.message }));

describe.concurrent('a valid request refused', () => {
  test('a correct server: nothing flagged', async () => {
    const results = await run('correct');
    expect(summary(results)).toEqual([]);
    expect(accepted(results)).toEqual([]);
  });

  test('a valid update refused with a documented 400, in every phase: an error of putThing', async () => {
    const results = await run('refuses-size');
    expect(summary(results)).toEqual(['putThing: failed [positive-data-accepted]']);
    const errors = accepted(results).filter((f) => f.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((f) => f.operationId === 'putThing' && /^A valid request was rejected with 400/.test(f.message))).toBe(true);
  });

  test('a refusal of a body naming a record the run made up: a warning that names the field, never an error', async () => {
    const results = await run('owner-must-exist');
    // Nothing failed: the records made for the reads and the update leave the owner out (the run has none).
    expect(summary(results), JSON.stringify(accepted(results), null, 1)).toEqual([]);
    const warnings = accepted(results);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.every((f) => f.severity === 'warning' && /owner_id = \d+.*a record the run did not get from the service/.test(f.message))).toBe(true);
  });

  test('a 403 to a body naming a record the run made up: a warning (the record may not be the caller\'s); a 403 to a valid update of its own record: an error', async () => {
    const madeUp = await run('owner-forbidden');
    expect(summary(madeUp), JSON.stringify(accepted(madeUp), null, 1)).toEqual([]);
    expect(accepted(madeUp).length).toBeGreaterThan(0);
    expect(accepted(madeUp).every((f) => f.severity === 'warning' && /refused with 403.*owner_id = \d+.*a record the run did not get from the service/.test(f.message))).toBe(true);
    const own = await run('forbids-size');
    expect(summary(own)).toEqual(['putThing: failed [positive-data-accepted]']);
    expect(accepted(own).filter((f) => f.severity === 'error').every((f) => /^A valid request was rejected with 403/.test(f.message))).toBe(true);
  });

  test('a rule the contract says it does not show (x-required: not shown): a warning; the same refusal where it shows them: an error', async () => {
    const unshown = await run('requires-size', true);
    expect(summary(unshown)).toEqual([]);
    expect(accepted(unshown).length).toBeGreaterThan(0);
    expect(accepted(unshown).every((f) => f.severity === 'warning'), JSON.stringify(accepted(unshown), null, 1)).toBe(true);
    expect(accepted(unshown).some((f) => /which body fields are required is not shown \(.*size.*left out\): the refusal may be right/.test(f.message))).toBe(true);
    const shown = await run('requires-size', false);
    // Both writes refuse a body without size (the create's integer id now lets the PUT's chains run on its record).
    expect(summary(shown).filter((line) => line.includes('failed'))).toEqual(['createThing: failed [positive-data-accepted]', 'putThing: failed [positive-data-accepted]']);
  });

  test('a variation refused where the request without it, naming the same made-up record, was taken: an error, not a warning about that record', async () => {
    // Every body names a parent the run made up (nothing makes parents); the server ignores it and requires size.
    const results = await run('requires-size', false, true);
    expect(summary(results).filter((line) => line.includes('failed'))).toEqual(['createThing: failed [positive-data-accepted]', 'putThing: failed [positive-data-accepted]']);
    const sizeLeftOut = accepted(results).filter((f) => /body\.size left out/.test(f.message));
    expect(sizeLeftOut.map((f) => f.operationId).sort()).toEqual(['createThing', 'putThing']);
    expect(sizeLeftOut.every((f) => f.severity === 'error' && !/parent_id/.test(f.message)), JSON.stringify(sizeLeftOut, null, 1)).toBe(true);
  });
});
