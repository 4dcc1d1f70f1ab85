/**
 * The engine against real applications that someone else wrote: published example apps (Python, FastAPI)
 * installed from PyPI by test/real-apps/install.sh (run by .ci/run; run here when missing), started on
 * 127.0.0.1 with their own published OpenAPI description (/openapi.json). Each app's true findings were
 * verified by hand with curl; the run must report them and nothing else.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { ensureInstalled, found, lenient, RUN_TIMEOUT, startApp, VENVS, warned, type App } from '../support/real-apps.ts';
import { removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const unavailable = ensureInstalled(['items', 'calculator']);
if (unavailable) {
  if (process.env['CI']) throw new Error(`real applications: ${unavailable}`);
  console.warn(`skipping the real-application tests: ${unavailable}`);
}

/** Starts an app with uvicorn on 127.0.0.1 and saves the description it publishes (/openapi.json). */
async function startUvicorn(venv: string, module: string): Promise<App> {
  return startApp({
    name: venv,
    command: join(VENVS, venv, 'bin/python'),
    args: (port) => ['-m', 'uvicorn', module, '--host', '127.0.0.1', '--port', String(port)],
    cwd: await tempDir(),
    spec: { served: '/openapi.json' },
  });
}

async function runAgainst(app: App): Promise<RunResults> {
  // The descriptions have no servers entry: the service id is the title, "FastAPI".
  const run = await runCli(['--spec', app.spec, '--server', `FastAPI=${app.url}`, '--token', 'real-apps-token', '--quiet', '--seed', '1', '--keep-passed-exchanges', '--timeout', '60000'], { killAfterMs: RUN_TIMEOUT - 20_000 });
  return requireResults(run);
}

describe.skipIf(unavailable !== undefined)('real applications', () => {
  describe('calculator (calculadora-fastapi-paulo-lopes 0.1.6)', () => {
    let results: RunResults;
    beforeAll(async () => {
      const app = await startUvicorn('calculator', 'app.main:app');
      try {
        results = await runAgainst(app);
      } finally {
        await app.stop();
      }
    }, RUN_TIMEOUT);

    test('the server errors are found, each with a small schema-valid reproduction', () => {
      const findings = found(results);
      // curl -d '{"a":1.7976931348623157e+308,"b":1.7976931348623157e+308}' /add and /multiply: 500 (inf is
      // not JSON); /power with {"a":1000,"b":1000} (OverflowError) or {"a":-1,"b":0.5} (complex result): 500.
      for (const op of ['sum_endpoint_add_post', 'multiply_endpoint_multiply_post', 'power_endpoint_power_post']) {
        const outcomes = results.operations.find((o) => o.operationId === op)?.cases.map((c) => `${c.name}: ${c.outcome}${c.errorMessage ? ` (${c.errorMessage})` : ''}`);
        expect(findings, JSON.stringify(outcomes)).toContain(`${op} not-a-server-error`);
      }
      const coverage = results.operations
        .find((o) => o.operationId === 'multiply_endpoint_multiply_post')
        ?.cases.find((c) => c.kind === 'coverage');
      expect(coverage?.outcome).toBe('failed');
      const sent = JSON.parse(coverage?.exchanges.at(-1)?.request.body ?? '{}') as Record<string, unknown>;
      expect(Object.keys(sent).sort()).toEqual(['a', 'b']);
    });

    test('the fuzzing phase finds the server error of /divide that the boundaries miss', () => {
      // curl -d '{"a":1e308,"b":1e-10}' /divide: 500 (the quotient is inf, which the JSON encoder refuses).
      const divide = results.operations.find((o) => o.operationId === 'divide_endpoint_divide_post');
      const fuzzing = divide?.cases.find((c) => c.name === 'fuzzing');
      expect(fuzzing?.outcome).toBe('failed');
      expect(fuzzing?.findings.map((f) => f.check)).toContain('not-a-server-error');
      const sent = JSON.parse(fuzzing?.exchanges.at(-1)?.request.body ?? '{}') as { a: number; b: number };
      expect(Math.abs(sent.a / sent.b)).toBe(Infinity);
      // The coverage phase's boundaries give no overflowing pair (its only finding there is the undocumented 400).
      const coverage = divide?.cases.find((c) => c.kind === 'coverage' && c.name === 'coverage');
      expect(coverage?.findings.map((f) => f.check)).not.toContain('not-a-server-error');
    });

    test('nothing else: no missing operation, no valid request called rejected, no error on the correct operations', () => {
      const ops = ['sum_endpoint_add_post', 'subtraction_endpoint_subtract_post', 'multiply_endpoint_multiply_post', 'divide_endpoint_divide_post', 'power_endpoint_power_post', 'square_root_endpoint_square_root_post'];
      const allowed = new Set([
        ...ops.filter((op) => !op.startsWith('square_root')).map((op) => `${op} not-a-server-error`),
        // The 500s are not documented; nor is the 400 of a body that is not UTF-8 (printf '\x80' | curl
        // --data-binary @- /add -> 400 "There was an error parsing the body"), of /divide by 0 or of the square
        // root of a negative number (documented: 200 and 422).
        ...ops.map((op) => `${op} status-code-conformance`),
        // The same 400s refuse schema-valid requests (b = 0, a negative base of a square root): the contract
        // does not exclude those values.
        'divide_endpoint_divide_post positive-data-accepted',
        'square_root_endpoint_square_root_post positive-data-accepted',
      ]);
      const findings = found(results);
      expect(findings.filter((f) => !allowed.has(f))).toEqual([]);
      for (const op of ops) {
        expect(findings).toContain(`${op} status-code-conformance`);
        // curl -d '{"a":true,"b":1}' /add -> 200 {"result":2.0}: pydantic 1 reads a boolean (and "1") as a number,
        // as lax parsers do: accepted leniently (a warning counted apart), not a broken contract.
        expect(lenient(results)).toContain(`${op} coercible-type`);
      }
      // curl -d '{"a":1.7976931348623157e+308,"b":-1.7976931348623157e+308}' /subtract -> 500: numbers at opposite
      // ends of their range together.
      expect(findings).toContain('subtraction_endpoint_subtract_post not-a-server-error');
      const subtract = results.operations.find((o) => o.operationId === 'subtraction_endpoint_subtract_post')?.cases.flatMap((c) => c.findings);
      expect(subtract?.find((f) => f.check === 'not-a-server-error')?.message).toContain('at opposite ends');
      // The positive request of /power, {"a":925.44,"b":397.53}, already answers 500 (OverflowError); its coverage
      // variants that keep those numbers and vary only the Accept header, the Content-Type or an extra property answer
      // 500 too (with {"a":2,"b":3} all three answer 200). The coverage phase does not blame a varied part for a 500
      // the unvaried request gives: one finding "to the operation's valid request, with or without a variation".
      const power = results.operations.find((o) => o.operationId === 'power_endpoint_power_post')?.cases.flatMap((c) => c.findings);
      const powerErrors = power?.filter((f) => f.check === 'not-a-server-error') ?? [];
      const powerPositive = results.operations.find((o) => o.operationId === 'power_endpoint_power_post')?.cases.find((c) => c.kind === 'positive');
      expect(powerPositive?.exchanges.at(-1)?.response?.status).toBe(500);
      expect(powerErrors.map((f) => f.varied).filter((v) => v !== undefined && v !== 'fuzzing')).toEqual([]);
      const unvaried = powerErrors.filter((f) => f.message.includes("to the operation's valid request, with or without a variation"));
      expect(unvaried).toHaveLength(1);
      expect(unvaried[0]?.varied).toBeUndefined();
    });
  });

  describe('item store (fastapi-example-server 0.1.1)', () => {
    let results: RunResults;
    beforeAll(async () => {
      const app = await startUvicorn('items', 'fastapi_example_server.main:app');
      try {
        results = await runAgainst(app);
      } finally {
        await app.stop();
      }
    }, RUN_TIMEOUT);

    test('a "not found" for an unknown id is the service\'s own answer: no operation is missing', () => {
      // curl /items/123456 -> 404 {"message":"Item with ID [123456] not found or invalid"}; an unknown route
      // answers 404 {"detail":"Not Found"}.
      expect(results.operations.filter((o) => o.outcome === 'missing').map((o) => o.operationId)).toEqual([]);
      const get = results.operations.find((o) => o.operationId === 'get_item_items__id__get');
      expect(get?.cases.find((c) => c.kind === 'positive')?.outcome).toBe('passed');
    });

    test('the record operations use the ids POST /items/ creates (integer ids, trailing slash)', () => {
      const patch = results.operations.find((o) => o.operationId === 'patch_item_items__id__patch');
      const positive = patch?.cases.find((c) => c.kind === 'positive');
      expect(positive?.outcome).toBe('passed');
      expect(positive?.exchanges.some((e) => e.request.method === 'POST' && /\/items\/$/.test(e.request.url))).toBe(true);
    });

    test('the true findings and nothing else', () => {
      // curl -d '{"name":12345,"price":1}' /items/ -> 200 (a number accepted for a string: pydantic coerces: lenient);
      // records created without description or tax are served with null where the schema says string/number.
      const allowed = new Set([
        // curl -X PATCH -H 'content-type: application/json' -d '[]' /items/1 -> 200 (pydantic 1 reads an empty array
        // as an empty dict: the patch body schema is an object, all of its fields optional).
        'patch_item_items__id__patch negative-data-rejected',
        'get_items_items__get response-schema-conformance',
        'get_item_items__id__get response-schema-conformance',
        'post_item_items__post response-schema-conformance',
        'patch_item_items__id__patch response-schema-conformance',
        // curl /items/123456 -> 404 {"message":"Item with ID [123456] not found or invalid"}: 404 is not documented.
        'get_item_items__id__get status-code-conformance',
        // printf '\x80' | curl -X POST -H 'content-type: application/json' --data-binary @- /items/ -> 400 (the
        // documented refusal is 422).
        'post_item_items__post status-code-conformance',
        // curl -X PATCH -H 'content-type: application/json' -d '{"name":null,"price":1}' /items/1 -> 500, and
        // -d '{"price":null}' -> 500 (the coverage phase's null for a field that is not nullable); the 500 is not
        // documented either, nor are the 404 of curl -X PATCH … /items/99999 and the 400 of a body not UTF-8.
        'patch_item_items__id__patch not-a-server-error',
        'patch_item_items__id__patch status-code-conformance',
        // curl -si -X OPTIONS /items/ -> 405 "Allow: GET" (POST is served there too); the same for TRACE and for
        // /items/{id} (PATCH left out): a 405 must list the resource's methods.
        'get_items_items__get unsupported-method',
        'get_item_items__id__get unsupported-method',
      ]);
      const findings = found(results);
      expect(findings.filter((f) => !allowed.has(f))).toEqual([]);
      // A number taken for a string is what lax parsers do: accepted leniently (a warning counted apart).
      expect(lenient(results)).toEqual(expect.arrayContaining(['post_item_items__post coercible-type', 'patch_item_items__id__patch coercible-type']));
      expect(findings).toContain('get_item_items__id__get status-code-conformance');
      expect(findings).toContain('patch_item_items__id__patch negative-data-rejected');
      const arrayTaken = results.operations.find((o) => o.operationId === 'patch_item_items__id__patch')?.cases.flatMap((c) => c.findings).find((f) => f.check === 'negative-data-rejected' && f.severity === 'error');
      expect(arrayTaken).toMatchObject({ inputClass: 'non-object-body', message: expect.stringContaining('body = [] (not an object: an array)') });
      expect(findings).toContain('patch_item_items__id__patch not-a-server-error');
      expect(findings).toContain('post_item_items__post status-code-conformance');
      expect(findings).toEqual(expect.arrayContaining(['get_items_items__get unsupported-method', 'get_item_items__id__get unsupported-method']));
    });
  });
});
