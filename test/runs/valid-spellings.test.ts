/**
 * Another spelling of a valid value is judged by the contract's own validator (ajv with ajv-formats), not taken
 * for lenient input whatever it says: an upper-case uuid is a uuid (RFC 9562 reads UUIDs case-insensitively). The
 * default run against the embedded reference service lists no upper-case uuid as accepted leniently; a deployment
 * that refuses one is told it refused a valid value, on the operation; one that takes a uuid without hyphens
 * (which the validator refuses) still has it listed as accepted leniently.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { allFindings, jsonServer, listening, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const UPPER_UUID = /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/;
const HEX = /[0-9a-fA-F]/;

test('the default run (embedded reference service): no upper-case uuid is listed as accepted leniently', async () => {
  const run = await runCli([]);
  const results = requireResults(run);
  expect(run.code, `${summary(results).join('\n')}\n${run.stderr}`).toBe(0);
  expect(results.verdict).toBe('conformant');
  const lines = run.stdout.split('\n');
  const lenientLines = lines.filter((l) => /^\s+lenient\s/.test(l));
  // What the reference service does take leniently is still listed (an empty optional query value)...
  expect(lenientLines.length, run.stdout).toBeGreaterThan(0);
  // ...but no spelling the validator takes: an upper-case uuid is a valid value, not lenient input.
  expect(lenientLines.filter((l) => UPPER_UUID.test(l))).toEqual([]);
  expect(allFindings(results).filter((f) => f.lenient && f.inputClass === 'format-respelling')).toEqual([]);
  // Nor is it reported any other way: the reference service takes every valid spelling it is sent.
  expect(allFindings(results).filter((f) => UPPER_UUID.test(f.message))).toEqual([]);
}, 150_000);

const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = { description: 'refused', content: json({ type: 'object', properties: { message: { type: 'string' } } }) };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Spellings', version: '1' },
  paths: {
    '/things': {
      get: {
        operationId: 'findThings',
        parameters: [{ name: 'ref', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': { description: 'the things', content: json({ type: 'array', items: { type: 'string' } }) }, '400': error },
      },
    },
  },
};

test('a deployment that refuses an upper-case uuid refused a valid value; one it takes without hyphens is still lenient', async () => {
  const server = jsonServer((req, _body, reply) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/svc/things' || req.method !== 'GET') return reply(404, { message: 'Not Found' });
    const ref = url.searchParams.get('ref');
    if (ref === null) return reply(200, []);
    // Lower-case hex only (a pattern without the i flag), with or without its hyphens (a lenient parser).
    const lowerHex = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/.test(ref);
    return lowerHex ? reply(200, [ref]) : reply(400, { message: 'ref must be a uuid' });
  });
  const { url, close } = await listening(server);
  try {
    const file = join(await tempDir(), 'spellings.openapi.json');
    await writeFile(file, JSON.stringify(SPEC));
    const results = requireResults(await runCli(['--spec', file, '--base-url', url, '--quiet', '--seed', '1']));
    const findings = allFindings(results);
    // The upper-case uuid: a valid value refused, an error of the operation (not a lenient acceptance), the answer's
    // own words quoted.
    const refused = findings.filter((f) => f.check === 'positive-data-accepted' && f.severity === 'error');
    expect(refused.map((f) => f.operationId), findings.map((f) => `${f.check} ${f.severity}: ${f.message}`).join('\n')).toEqual(['findThings']);
    expect(refused[0]?.message).toMatch(new RegExp(`^A valid request was rejected with 400 \\(query\\.ref = "${UPPER_UUID.source}" \\(another spelling of a uuid, valid\\)\\)\\. The answer says: "ref must be a uuid"\\.$`));
    // The uuid without hyphens, which the validator refuses: taken, so accepted leniently (a warning).
    const lenient = findings.filter((f) => f.lenient);
    expect(lenient.map((f) => `${f.operationId} ${f.inputClass} ${f.severity}`)).toEqual(['findThings format-respelling warning']);
    expect(lenient[0]?.message).toMatch(new RegExp(`query\\.ref = "(${HEX.source}){32}"`));
    expect(results.verdict).toBe('not-conformant');
  } finally {
    await close();
  }
}, 150_000);

