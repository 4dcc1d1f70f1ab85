/**
 * An operation whose valid calls may not be made (an irreversible side effect without --allow-irreversible, an
 * unsafe method under --read-only) still gets a coverage case: the variations a correct deployment must refuse
 * (must-reject classes), gated as its negative cases are, and nothing else (no request unvaried, no valid
 * variation, no re-send on a smaller valid body, no fuzzing). The server counts every valid call it receives: the
 * guarded runs make none, and still find what the must-refuse variations show.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, ROOT, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ERROR = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
const refused = { '400': { description: 'invalid', ...json(ERROR) }, '415': { description: 'not JSON', ...json(ERROR) } };
const CODE = {
  type: 'object',
  required: ['phone'],
  properties: {
    phone: { type: 'string', minLength: 5, maxLength: 20, pattern: '^\\+[0-9]+$' },
    channel: { type: 'string', enum: ['sms', 'voice'] },
    attempts: { type: 'integer', minimum: 1, maximum: 3 },
  },
};
const NOTE = { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1, maxLength: 10 } } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'codes', version: '1' },
  servers: [{ url: 'http://127.0.0.1/t' }],
  paths: {
    '/codes': {
      post: {
        operationId: 'sendCode',
        parameters: [{ name: 'priority', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 5 } }],
        requestBody: { required: true, ...json(CODE) },
        responses: { '202': { description: 'sent', ...json({ type: 'object', required: ['codeId'], properties: { codeId: { type: 'string' } } }) }, ...refused },
      },
    },
    '/notes': {
      post: {
        operationId: 'createNote',
        requestBody: { required: true, ...json(NOTE) },
        responses: { '201': { description: 'kept', ...json({ type: 'object', required: ['id'], properties: { id: { type: 'string' }, text: { type: 'string' } } }) }, ...refused },
      },
    },
  },
};

type Fault = 'array-body-500' | 'short-phone-accepted' | 'long-phone-accepted' | 'every-post-500';

/** What the server received: valid calls of each operation (whatever it answered) and invalid ones it acted on. */
interface Tally {
  validCodes: number;
  validNotes: number;
  actedOnInvalid: number;
  posts: number;
}

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** The correct server: strict validation, 400 with its envelope to what the contract does not describe as valid. */
function server(tally: Tally, ...faults: Fault[]): Server {
  let next = 1;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (!['/t/codes', '/t/notes'].includes(url.pathname)) return send(404, { error: 'no such route' });
      if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
      tally.posts++;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
      const jsonType = (req.headers['content-type'] ?? '').startsWith('application/json');
      if (url.pathname === '/t/notes') {
        const text = fields?.['text'];
        // Lengths in code points, as JSON Schema counts them.
        const valid = jsonType && typeof text === 'string' && [...text].length >= 1 && [...text].length <= 10;
        if (valid) tally.validNotes++;
        if (!jsonType) return send(415, { error: 'JSON only' });
        if (faults.includes('every-post-500')) return send(500, { error: 'boom' });
        if (!valid) return send(400, { error: 'text: 1 to 10 characters' });
        return send(201, { id: String(next++), text });
      }
      const phone = fields?.['phone'];
      const priority = url.searchParams.get('priority');
      const okPhone = (minLength: number, maxLength = 20) => typeof phone === 'string' && phone.length >= minLength && phone.length <= maxLength && /^\+[0-9]+$/.test(phone);
      const okRest =
        (fields?.['channel'] === undefined || ['sms', 'voice'].includes(fields['channel'] as string)) &&
        (fields?.['attempts'] === undefined || isInt(fields['attempts'], 1, 3)) &&
        (priority === null || (/^-?\d+$/.test(priority) && isInt(Number(priority), 1, 5)));
      const valid = jsonType && fields !== undefined && okPhone(5) && okRest;
      if (valid) tally.validCodes++;
      if (!jsonType) return send(415, { error: 'JSON only' });
      if (faults.includes('every-post-500')) return send(500, { error: 'boom' });
      if (faults.includes('array-body-500') && Array.isArray(body)) return send(500, { error: "Cannot read properties of undefined (reading 'phone')" });
      // The faulty server does not look at the phone's least length: it acts on one shorter than the contract allows.
      const accepted =
        valid ||
        (faults.includes('short-phone-accepted') && fields !== undefined && okPhone(2) && okRest) ||
        (faults.includes('long-phone-accepted') && fields !== undefined && okPhone(5, Infinity) && okRest);
      if (!accepted) return send(400, { error: 'phone: +digits, 5 to 20 characters; channel, attempts, priority as documented' });
      if (!valid) tally.actedOnInvalid++;
      return send(202, { codeId: String(next++) });
    });
  });
}

async function run(faults: Fault[], seed: string, ...flags: string[]): Promise<{ results: RunResults; tally: Tally }> {
  const tally: Tally = { validCodes: 0, validNotes: 0, actedOnInvalid: 0, posts: 0 };
  const srv = server(tally, ...faults);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const dir = await tempDir();
    const spec = join(dir, 'codes.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    // The generic profile, with sendCode's side effect declared irreversible.
    const profile = join(dir, 'profile.yaml');
    const generic = readFileSync(join(ROOT, 'src/runner/schemas/generic-profile.yaml'), 'utf8');
    expect(generic).toMatch(/^sideEffects: \[\]$/m);
    writeFileSync(profile, generic.replace(/^sideEffects: \[\]$/m, 'sideEffects:\n  - { operation: sendCode, class: irreversible, effect: sends a code to a phone }'));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`;
    const results = requireResults(await runCli(['--spec', spec, '--base-url', base, '--profile', profile, '--quiet', '--seed', seed, ...flags]));
    return { results, tally };
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const caseOf = (results: RunResults, operationId: string, name: string) => results.operations.find((o) => o.operationId === operationId)?.cases.find((c) => c.name === name);
const everything = (results: RunResults) =>
  JSON.stringify(results.operations.flatMap((o) => o.cases.flatMap((c) => [...c.findings.map((f) => [o.operationId, c.name, f.check, f.severity, f.message]), ...(c.skipReason ? [[o.operationId, c.name, 'skipped', c.skipReason]] : [])])));
const errorsOf = (results: RunResults, operationId: string) =>
  (results.operations.find((o) => o.operationId === operationId)?.cases ?? []).flatMap((c) => c.findings.filter((f) => f.severity === 'error').map((f) => ({ case: c.name, check: f.check, message: f.message })));

describe.each(['1', '2'])('coverage of what must be refused where valid calls may not be made (seed %s)', (seed) => {
  test('the correct server, safe default: the irreversible operation gets its must-refuse coverage, nothing found, no valid call of it made', async () => {
    const { results, tally } = await run([], seed);
    expect(summary(results), everything(results)).toEqual(['sendCode: untested []']);
    expect(caseOf(results, 'sendCode', 'positive')?.skipKind).toBe('irreversible');
    expect(caseOf(results, 'sendCode', 'fuzzing')?.skipKind).toBe('irreversible');
    expect(caseOf(results, 'sendCode', 'coverage')?.outcome, everything(results)).toBe('passed');
    expect(tally.validCodes).toBe(0);
    expect(tally.actedOnInvalid).toBe(0);
    // The reversible create beside it is exercised in full.
    expect(tally.validNotes).toBeGreaterThan(0);
  }, 120_000);

  test('with --allow-irreversible the same operation gets its full coverage (valid calls among them)', async () => {
    const { results, tally } = await run([], seed, '--allow-irreversible');
    expect(summary(results), everything(results)).toEqual([]);
    expect(caseOf(results, 'sendCode', 'coverage')?.outcome).toBe('passed');
    expect(tally.validCodes).toBeGreaterThan(5);
  }, 120_000);

  test('--read-only: the unsafe create gets must-refuse coverage too, and no valid call of either operation is made', async () => {
    const { results, tally } = await run([], seed, '--read-only');
    expect(summary(results), everything(results)).toEqual(['sendCode: untested []', 'createNote: untested []']);
    expect(caseOf(results, 'createNote', 'coverage')?.outcome, everything(results)).toBe('passed');
    expect(caseOf(results, 'sendCode', 'coverage')?.skipKind).toBe('read-only');
    expect(tally.validNotes + tally.validCodes).toBe(0);
  }, 120_000);

  test('a server error to a non-object body, found on sendCode by not-a-server-error in the guarded coverage', async () => {
    const { results, tally } = await run(['array-body-500'], seed);
    expect(summary(results), everything(results)).toEqual(['sendCode: failed [not-a-server-error, status-code-conformance]']);
    const errors = errorsOf(results, 'sendCode');
    expect(errors.every((e) => e.case === 'coverage'), everything(results)).toBe(true);
    expect(errors.map((e) => e.message).join('\n')).toMatch(/an invalid request/);
    expect(tally.validCodes).toBe(0);
  }, 120_000);

  test('a phone shorter than the contract allows acted on: negative-data-rejected on sendCode, body.phone', async () => {
    const { results, tally } = await run(['short-phone-accepted'], seed);
    expect(summary(results), everything(results)).toEqual(['sendCode: failed [negative-data-rejected]']);
    expect(errorsOf(results, 'sendCode').map((e) => `${e.case}: ${e.message}`).join('\n')).toMatch(/^coverage: .*body\.phone/m);
    expect(tally.validCodes).toBe(0);
    expect(tally.actedOnInvalid).toBeGreaterThan(0);
  }, 120_000);

  test('a phone longer than the contract allows acted on (the pattern checked, not the length): negative-data-rejected on sendCode, body.phone', async () => {
    // The value just past maxLength matches the pattern: only the bound is broken.
    const { results, tally } = await run(['long-phone-accepted'], seed);
    expect(summary(results), everything(results)).toEqual(['sendCode: failed [negative-data-rejected]']);
    expect(errorsOf(results, 'sendCode').map((e) => `${e.case}: ${e.message}`).join('\n')).toMatch(/^coverage: .*body\.phone = "\+[0-9]{20}" \(above maxLength 20\)/m);
    expect(tally.validCodes).toBe(0);
    expect(tally.actedOnInvalid).toBeGreaterThan(0);
  }, 120_000);

  test('every write answered 500: found, and still no valid call of the irreversible operation (the request is never sent unvaried)', async () => {
    const { results, tally } = await run(['every-post-500'], seed);
    expect(errorsOf(results, 'sendCode').some((e) => e.case === 'coverage' && e.check === 'not-a-server-error'), everything(results)).toBe(true);
    expect(tally.validCodes).toBe(0);
    expect(tally.validNotes).toBeGreaterThan(0);
  }, 120_000);
});
