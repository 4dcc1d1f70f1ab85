/**
 * Requests by the location of the input each varies (plan/input-location.ts): counted per case, summed per
 * operation by assembleOperations and per run by summarise (results.json's `requestsByLocation`, stored for the
 * run only), kept through the stored form and a merge of shards, valid by results.schema.json; and how a coverage item names its location.
 */
import { describe, expect, test } from 'vitest';
import type { CaseResult, Operation } from '../../src/runner/model.ts';
import { assembleOperations } from '../../src/runner/report/assemble.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { expandResults, storedResults } from '../../src/runner/report/results-format.ts';
import { validateResults } from '../../src/runner/report/results-schema.ts';
import { mergeResults } from '../../src/runner/report/merge.ts';
import { caseLocation, fuzzLocation, locationOf, shareLine, summed } from '../../src/runner/plan/input-location.ts';
import { rawRun } from './fixtures/run-results.ts';

const op = (operationId: string, over: Partial<Operation> = {}): Operation => ({
  operationId, method: 'GET', path: `/${operationId}`, group: '/', service: 'customer-service', specFile: 's', pointer: '', parameters: [], responses: [], secured: false, extensions: {}, ...over,
});
const kase = (name: string, requests: number, requestsByLocation: CaseResult['requestsByLocation']): CaseResult => ({
  name, kind: 'coverage', outcome: 'passed', durationMs: 1, checks: [], findings: [], exchanges: [], requests, ...(requestsByLocation ? { requestsByLocation } : {}),
});

describe('requests by input location', () => {
  test('summed per operation and for the run, each request once; stored and read back; valid by the schema', () => {
    const operations = [op('a'), op('b')];
    const cases = new Map([
      ['a', [kase('coverage', 9, { path: 7, none: 2 }), kase('fuzzing', 100, { path: 100 })]],
      ['b', [kase('coverage', 5, { query: 3, header: 1, none: 1 }), kase('positive', 1, { none: 1 })]],
    ]);
    const assembled = assembleOperations({ operations, allOperations: operations, cases, interrupted: false });
    expect(assembled.map((o) => [o.requests, o.requestsByLocation])).toEqual([
      [109, { path: 107, none: 2 }],
      [6, { query: 3, header: 1, none: 2 }],
    ]);
    const results = summarise(rawRun(assembled));
    expect(results.requestsByLocation).toEqual({ path: 107, query: 3, header: 1, none: 4 });
    const total = Object.values(results.requestsByLocation ?? {}).reduce((n, v) => n + v, 0);
    expect(total).toBe(results.operations.reduce((n, o) => n + (o.requests ?? 0), 0));
    // Stored for the run only (no bytes per operation); the same after a round trip, and again summarised.
    const stored = storedResults(results);
    expect(stored.operations.some((o) => 'requestsByLocation' in o)).toBe(false);
    const back = expandResults(JSON.parse(JSON.stringify(stored)));
    expect(back.requestsByLocation).toEqual(results.requestsByLocation);
    expect(summarise(back).requestsByLocation).toEqual(results.requestsByLocation);
    // Shards read back add up.
    const [one, two] = [summarise(rawRun([assembled[0]!])), summarise(rawRun([assembled[1]!]))].map((r) => expandResults(JSON.parse(JSON.stringify(storedResults(r)))));
    expect(mergeResults([{ ...one!, shard: { index: 1, count: 2 } }, { ...two!, shard: { index: 2, count: 2 } }]).requestsByLocation).toEqual(results.requestsByLocation);
    expect(validateResults(storedResults(results))).toEqual([]);
    expect(validateResults({ ...storedResults(results), requestsByLocation: { elsewhere: 1 } }).map((e) => `${e.instancePath} ${e.message}`).join('\n')).toMatch(/requestsByLocation.*elsewhere/);
  });

  test('no counted request: no field', () => {
    const operations = [op('a')];
    const assembled = assembleOperations({ operations, allOperations: operations, cases: new Map([['a', [kase('coverage', 0, undefined)]]]), interrupted: false });
    expect(assembled[0]?.requestsByLocation).toBeUndefined();
    expect(summarise(rawRun(assembled)).requestsByLocation).toBeUndefined();
  });

  test('a coverage item is counted where its override is; a method, several or nothing: none', () => {
    expect(locationOf({ rawPathParams: { id: '%ZZ' } })).toBe('path');
    expect(locationOf({ pathParams: { id: '1' }, body: { id: '1' } })).toBe('path');
    expect(locationOf({ query: { q: 1 } })).toBe('query');
    expect(locationOf({ headers: { 'x-a': '1' } })).toBe('header');
    expect(locationOf({ cookies: { s: '1' } })).toBe('cookie');
    expect(locationOf({ rawBody: '{"' })).toBe('body');
    expect(locationOf({ noBody: true })).toBe('body');
    expect(locationOf({ class: 'malformed-content-type', rawBody: '{}' })).toBe('header');
    expect(locationOf({ class: 'accept-declared', headers: { accept: 'text/csv' } })).toBe('header');
    expect(locationOf({ method: 'TRACE', query: {} })).toBe('none');
    expect(locationOf({})).toBe('none');
    expect(locationOf({ location: 'cookie', query: {} })).toBe('cookie');
  });

  test('a fuzzing draw: its one location, else none; a negative case: its input', () => {
    const path = { name: 'id', in: 'path' as const, required: true, schema: { type: 'integer' }, pointer: '' };
    const query = { name: 'q', in: 'query' as const, required: false, schema: { type: 'string' }, pointer: '' };
    const body = { requestBody: { required: true, contentType: 'application/json', schema: { type: 'object' }, pointer: '' } };
    expect(fuzzLocation(op('r', { parameters: [path] }), new Set(['id']))).toBe('path');
    expect(fuzzLocation(op('r', { parameters: [path, query] }), new Set())).toBe('query');
    expect(fuzzLocation(op('w', { method: 'POST', parameters: [path], ...body }), new Set())).toBe('body');
    expect(fuzzLocation(op('w', { method: 'POST', parameters: [path, query], ...body }), new Set())).toBe('none');
    expect(caseLocation({ kind: 'negative', omits: { in: 'header' } })).toBe('header');
    expect(caseLocation({ kind: 'negative', location: 'body' })).toBe('body');
    expect(caseLocation({ kind: 'positive' })).toBe('none');
  });

  test('the share line names every location, in order', () => {
    expect(shareLine(summed([{ path: 1, body: 2 }, { body: 1, none: 96 }])!)).toBe('path 1 (1%) · query 0 (0%) · header 0 (0%) · cookie 0 (0%) · body 3 (3%) · none 96 (96%)');
    expect(shareLine({ path: 1, none: 999 })).toMatch(/^path 1 \(<1%\)/);
  });
});
