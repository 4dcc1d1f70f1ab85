/**
 * An integer written with a fraction of zero (`3.0`) against real HTTP servers, judged by the description's
 * dialect: under OpenAPI 3.1 (JSON Schema 2020-12) it is an integer, so a deployment that refuses it (as the
 * decoders of .NET and Go do) gets a warning naming it, and one that takes it nothing; under OpenAPI 3.0 an integer
 * has no fraction part, so the refusal is right and taking it is accepted leniently (a warning listed apart).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { bearerContract, jsonServer, listening, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';
import { expectNothingFlagged } from '../support/nothing-flagged.ts';

afterAll(removeTemps);

const spec = (openapi: string) =>
  bearerContract(openapi, 'Reviews', {
    '/reviews': {
      post: {
        operationId: 'postReview',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', additionalProperties: false, required: ['author', 'rating'], properties: { author: { type: 'string', maxLength: 10 }, rating: { type: 'integer', minimum: 1, maximum: 5 } } } } },
        },
        responses: { '201': { description: 'created' }, '422': { description: 'refused', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  });

/** `decoder: 'go'` refuses a number written with a fraction for the integer (encoding/json does); 'js' takes it. */
async function startServer(decoder: 'go' | 'js'): Promise<{ url: string; close: () => Promise<void> }> {
  const server = jsonServer((req, body, reply) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, {});
    if (req.method !== 'POST' || req.url !== '/svc/reviews') return reply(404, {});
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return reply(422, { message: 'media type' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return reply(422, { message: 'not JSON' });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reply(422, { message: 'not an object' });
    const { author, rating, ...rest } = parsed as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || typeof author !== 'string' || [...author].length > 10) return reply(422, { message: 'author' });
    if (!Number.isInteger(rating) || (rating as number) < 1 || (rating as number) > 5) return reply(422, { message: 'rating' });
    if (decoder === 'go' && /"rating"\s*:\s*-?\d+\.\d/.test(body)) return reply(422, { message: 'cannot unmarshal number 3.0 into Go struct field .rating of type int' });
    reply(201);
  });
  return listening(server);
}

/** A run of the reviews contract; every deployment here is correct: nothing flagged, every operation passed. */
async function run(openapi: string, decoder: 'go' | 'js'): Promise<RunResults> {
  const server = await startServer(decoder);
  try {
    const file = join(await tempDir(), `reviews-${openapi}.json`);
    await writeFile(file, JSON.stringify(spec(openapi)));
    return expectNothingFlagged(await runCli(['--spec', file, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1']), `OpenAPI ${openapi}, ${decoder}`);
  } finally {
    await server.close();
  }
}

const findings = (r: RunResults) => r.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.map((f) => ({ ...f, caseName: c.name }))));
const aboutFraction = (r: RunResults) => findings(r).filter((f) => /rating = \d\.0 \(an integer written with a fraction\)/.test(f.message));

describe('an integer written with a fraction of zero', () => {
  test('OpenAPI 3.1, a deployment that refuses it: a warning that names the spelling, no error', async () => {
    const results = await run('3.1.0', 'go');
    expect(findings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(aboutFraction(results).map((f) => [f.caseName, f.check, f.severity])).toEqual([['coverage', 'positive-data-accepted', 'warning']]);
    expect(aboutFraction(results)[0]?.message).toMatch(/refused with 422 .*JSON Schema 2020-12 \(OpenAPI 3\.1\)/);
    expect(results.verdict).toBe('conformant');
  }, 120_000);

  test('OpenAPI 3.1, a deployment that takes it: nothing about it', async () => {
    const results = await run('3.1.0', 'js');
    expect(findings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(aboutFraction(results)).toEqual([]);
  }, 120_000);

  test('OpenAPI 3.0, a deployment that refuses it: nothing about it', async () => {
    const results = await run('3.0.3', 'go');
    expect(findings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(aboutFraction(results)).toEqual([]);
  }, 120_000);

  test('OpenAPI 3.0, a deployment that takes it: accepted leniently (a warning listed apart)', async () => {
    const results = await run('3.0.3', 'js');
    expect(findings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(aboutFraction(results).map((f) => [f.check, f.severity, f.lenient, f.inputClass])).toEqual([['negative-data-rejected', 'warning', true, 'integer-as-decimal']]);
  }, 120_000);
});
