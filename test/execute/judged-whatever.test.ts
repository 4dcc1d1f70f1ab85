/**
 * What an answer is judged by does not depend on what the request was: an undocumented status is reported
 * whatever the request (a platform may list statuses every operation answers); an operation whose security lets a
 * caller without credentials through is not expected to refuse one; a finding names the request that showed it,
 * so it still says which request when its exchanges are left out of the reports; and a body never contradicts the
 * record its path names.
 */
import { describe, expect, test } from 'vitest';
import { runChecks } from '../../src/runner/checks/registry.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import { describe as describeContract } from '../../src/runner/description/load.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { Evidence, judge } from '../../src/runner/execute/judge.ts';
import { alignBodyToPath } from '../../src/runner/execute/records/references.ts';
import type { Exchange, Operation } from '../../src/runner/model.ts';
import { planOperation } from '../../src/runner/plan/cases.ts';
import { storedOperation } from '../../src/runner/report/results-format.ts';

const generic = await loadProfile(GENERIC_PROFILE);
const SPEC = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
  security: [{ key: [] }],
  paths: {
    '/things/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getThing', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } },
      put: {
        operationId: 'putThing',
        security: [{}, { key: [] }],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
};
const operations = describeContract(SPEC as never, 'things.json').operations;
const get = operations.find((o) => o.operationId === 'getThing') as Operation;
const put = operations.find((o) => o.operationId === 'putThing') as Operation;

const answered = (status: number, url = 'http://127.0.0.1/things/5'): Exchange => ({
  request: { method: 'GET', url, headers: {} },
  response: { status, headers: { 'content-type': 'application/json' }, body: '{}', json: {}, truncated: false, size: 2 },
  durationMs: 1,
});

describe('an undocumented status is reported whatever the request was', () => {
  test('a 400 refusing a request left without a required parameter, under the generic profile: status-code-conformance', () => {
    const { findings } = runChecks({ exchange: answered(400) as never, operation: get, profile: generic, validator: new SchemaValidator(), expectation: 'rejected', anyClientError: true });
    // The refusal is right (any 4xx refuses it), its status is not documented.
    expect(findings.map((f) => `${f.check}:${f.severity}`)).toEqual(['status-code-conformance:error']);
  });

  test('a profile listing a status every operation may answer (a gateway\'s 429 and 502) allows it', () => {
    const profile = { ...generic, commonStatuses: [429, 502] };
    for (const status of [429, 502]) expect(runChecks({ exchange: answered(status) as never, operation: get, profile, validator: new SchemaValidator() }).findings.filter((f) => f.check === 'status-code-conformance')).toEqual([]);
    expect(runChecks({ exchange: answered(503) as never, operation: get, profile, validator: new SchemaValidator() }).findings.map((f) => f.check)).toContain('status-code-conformance');
  });
});

describe('security that lets a caller without credentials through', () => {
  test('`security: [{}, {key: []}]`: not secured, no auth case planned; the GET beside it keeps its matrix', () => {
    expect(put.secured).toBe(false);
    expect(get.secured).toBe(true);
    const cases = (op: Operation) => planOperation({ services: [], operations }, op, generic, { operations: {} } as never, { seed: 1, readOnly: false, allowIrreversible: true, otpSource: false }).cases;
    expect(cases(put).filter((c) => c.kind === 'auth')).toEqual([]);
    expect(cases(get).filter((c) => c.kind === 'auth').length).toBe(7);
  });
});

describe('a finding names the request that showed it', () => {
  test('the smallest request of a defect seen on many, with its status; left out of results.json where the case keeps its exchanges', () => {
    const evidence = new Evidence();
    for (const url of ['http://127.0.0.1/things/123456?verbose=true', 'http://127.0.0.1/things/5']) {
      const exchange = answered(418, url);
      evidence.add(exchange, judge({ operation: get, profile: generic, validator: new SchemaValidator(), exchange }));
    }
    const [f] = evidence.findings();
    expect(f).toMatchObject({ check: 'status-code-conformance', count: 2, request: { method: 'GET', url: 'http://127.0.0.1/things/5', status: 418 } });
    const kase = { name: 'coverage', kind: 'coverage' as const, outcome: 'failed' as const, durationMs: 1, checks: [], findings: [f!], exchanges: [] as Exchange[] };
    const stored = (exchanges: Exchange[]) => storedOperation({ operationId: 'getThing', method: 'GET', path: '/things/{id}', group: '/things', service: 's', outcome: 'failed', durationMs: 1, cases: [{ ...kase, exchanges }] }).cases?.[0]?.findings?.[0];
    expect(stored([])?.request).toEqual({ method: 'GET', url: 'http://127.0.0.1/things/5', status: 418 });
    expect(stored([answered(418)])?.request).toBeUndefined();
  });
});

describe('each finding carries the curl line of its own exchange', () => {
  test('results.json keeps a finding\'s line only where it is not its case\'s; a case with one is never stored as another\'s repeat', () => {
    const finding = (message: string, curl: string) => ({ check: 'status-code-conformance' as const, severity: 'error' as const, operationId: 'getThing', method: 'GET' as const, path: '/things/{id}', message, curl });
    const kase = (name: string, findings: ReturnType<typeof finding>[]) => ({ name, kind: 'coverage' as const, outcome: 'failed' as const, durationMs: 1, checks: [], findings, exchanges: [], omittedExchanges: 2, curl: 'curl -g A' });
    const op = (cases: ReturnType<typeof kase>[]) => storedOperation({ operationId: 'getThing', method: 'GET', path: '/things/{id}', group: '/things', service: 's', outcome: 'failed', durationMs: 1, cases });
    const stored = op([kase('coverage', [finding('Status 500 is not documented for getThing.', 'curl -g A'), finding('Status 418 is not documented for getThing.', 'curl -g B')])]).cases?.[0];
    expect(stored?.curl).toBe('curl -g A');
    expect(stored?.findings?.map((f) => f.curl)).toEqual([undefined, 'curl -g B']);
    // Two cases alike but for the finding's own line: each is stored whole (a repeat would read the first's line).
    const two = op([kase('coverage', [finding('Status 418 is not documented for getThing.', 'curl -g B')]), kase('fuzzing', [finding('Status 418 is not documented for getThing.', 'curl -g B')])]).cases;
    expect(two?.map((c) => c.sameAs)).toEqual([undefined, undefined]);
    const alike = op([kase('coverage', [finding('Status 500 is not documented for getThing.', 'curl -g A')]), kase('fuzzing', [finding('Status 500 is not documented for getThing.', 'curl -g A')])]).cases;
    expect(alike?.map((c) => c.sameAs)).toEqual([undefined, 'coverage']);
  });
});

describe('a body never contradicts its path', () => {
  test('a body field named like the path parameter takes the path\'s value, typed as the field', () => {
    expect(alignBodyToPath(put, { id: 1, name: 'a' }, { id: '124' })).toEqual({ id: 124, name: 'a' });
  });
});
