import { expandResults, storedResults } from '../../src/runner/report/results-format.ts';
import { describe, expect, test } from 'vitest';
import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Finding, OperationResult, RunResults } from '../../src/runner/model.ts';
import { faultCodeOf } from '../../src/runner/checks/fault-codes.ts';
import { readBaseline } from '../../src/runner/report/baseline-file.ts';
import { mergeResults, readResultsDir, ResultsInputError } from '../../src/runner/report/merge.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { applyWaivers } from '../../src/runner/report/waivers.ts';
import { serialiseResults, writeReports } from '../../src/runner/report/write.ts';
import { validateResults } from '../../src/runner/report/results-schema.ts';
import { fixtureRun, rawOperations, rawRun, TODAY, WAIVERS } from './fixtures/run-results.ts';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** Results as they come back from results.json. */
const roundTrip = (r: RunResults): RunResults => expandResults(JSON.parse(serialiseResults(r)));

const withoutTiming = (r: RunResults): Omit<RunResults, 'startedAt' | 'finishedAt' | 'durationMs'> => {
  const { startedAt: _s, finishedAt: _f, durationMs: _d, ...rest } = r;
  return rest;
};

/** One shard of the fixture run, written the way the engine writes a shard. */
function shard(index: number, operations: OperationResult[], interactions: number[], timing: Pick<RunResults, 'startedAt' | 'finishedAt' | 'durationMs'>): RunResults {
  const raw = rawRun(operations);
  const pact = raw.pact ? { ...raw.pact, interactions: raw.pact.interactions.filter((_, i) => interactions.includes(i)) } : undefined;
  const { pact: _pact, ...rest } = raw;
  return applyWaivers(summarise({ ...rest, ...(pact && pact.interactions.length > 0 ? { pact } : {}), ...timing, shard: { index, count: 2 } }), WAIVERS, TODAY);
}

/** The fixture run cut in two: operations alternate, not-described ones are in both, one operation's cases are split. */
function shards(): [RunResults, RunResults] {
  const ops = rawOperations();
  const described = ops.filter((o) => o.outcome !== 'not-described');
  const notDescribed = ops.filter((o) => o.outcome === 'not-described');
  const create = described.find((o) => o.operationId === 'create-address-type');
  if (!create || create.cases.length !== 2) throw new Error('fixture changed');
  const [positive, auth] = create.cases as [OperationResult['cases'][number], OperationResult['cases'][number]];
  const others = described.filter((o) => o !== create);
  const first = [
    { ...create, cases: [positive], durationMs: positive.durationMs },
    ...others.filter((_, i) => i % 2 === 0),
    ...notDescribed,
  ];
  const second = [
    { ...create, cases: [auth], durationMs: auth.durationMs },
    ...others.filter((_, i) => i % 2 === 1),
    ...notDescribed,
  ];
  return [
    shard(1, first, [0], { startedAt: '2025-06-01T10:00:00.000Z', finishedAt: '2025-06-01T10:00:07.000Z', durationMs: 7000 }),
    shard(2, second, [1, 2], { startedAt: '2025-06-01T10:00:01.000Z', finishedAt: '2025-06-01T10:00:12.500Z', durationMs: 11500 }),
  ];
}

describe('mergeResults', () => {
  test('two shard halves merge to exactly the single-run results (timing aside)', () => {
    const [a, b] = shards();
    expect(a.operations.length).toBeLessThan(fixtureRun().operations.length);
    const merged = mergeResults([a, b]);
    expect(withoutTiming(merged)).toEqual(withoutTiming(fixtureRun()));
    expect(merged.shard).toBeUndefined();
    // Byte for byte too, once the duration (the longest shard, not the single run's) is set aside.
    expect(serialiseResults({ ...merged, durationMs: 0 })).toBe(serialiseResults({ ...fixtureRun(), durationMs: 0 }));
  });

  test('times: earliest start, latest finish, and the longest shard as duration', () => {
    const merged = mergeResults(shards());
    expect({ startedAt: merged.startedAt, finishedAt: merged.finishedAt, durationMs: merged.durationMs }).toEqual({
      startedAt: '2025-06-01T10:00:00.000Z',
      finishedAt: '2025-06-01T10:00:12.500Z',
      durationMs: 11500,
    });
  });

  test('the order of the shards given does not matter', () => {
    const [a, b] = shards();
    expect(mergeResults([b, a])).toEqual(mergeResults([a, b]));
  });

  test('not-described operations and expired waivers listed by every shard appear once', () => {
    const merged = mergeResults(shards());
    expect(merged.operations.filter((o) => o.outcome === 'not-described').map((o) => o.operationId)).toEqual(['get-customer-list', 'exchange-user-token']);
    expect(merged.expiredWaivers).toHaveLength(1);
    expect(merged.counts['not-described']).toBe(2);
  });

  test('coverage.tested is the union over the shards', () => {
    const [a, b] = shards();
    expect(a.coverage.tested + b.coverage.tested).toBeGreaterThan(6); // create-address-type is tested in both
    expect(mergeResults([a, b]).coverage).toEqual({ catalogTotal: 287, described: 15, tested: 6, notDescribed: 272 });
  });

  test('an interrupted shard makes the merged run interrupted', () => {
    const [a, b] = shards();
    expect(mergeResults([a, { ...b, interrupted: true }]).interrupted).toBe(true);
  });

  test('deployment differences are united without duplicates', () => {
    const [a, b] = shards();
    a.deploymentDiff = { extra: [{ method: 'GET', path: '/health' }], lacking: ['delete-address-type'] };
    b.deploymentDiff = { extra: [{ method: 'GET', path: '/health' }, { method: 'GET', path: '/metrics' }], lacking: ['delete-address-type'] };
    expect(mergeResults([a, b]).deploymentDiff).toEqual({
      extra: [{ method: 'GET', path: '/health' }, { method: 'GET', path: '/metrics' }],
      lacking: ['delete-address-type'],
    });
  });

  test.each([
    ['seed', (r: RunResults) => ({ ...r, seed: 1 }), 'cannot merge: shard 2/2 has seed 1 but shard 1/2 has 4242; merge only the shards of one run'],
    ['contract', (r: RunResults) => ({ ...r, contract: { ...r.contract, version: 'other' } }), 'cannot merge: shard 2/2 has contract "Customer other"'],
    ['failOn', (r: RunResults) => ({ ...r, failOn: 'warning' as const }), 'cannot merge: shard 2/2 has failOn "warning"'],
  ])('shards of different runs are refused (%s)', (_name, change, message) => {
    const [a, b] = shards();
    expect(() => mergeResults([a, change(b)])).toThrow(ResultsInputError);
    expect(() => mergeResults([a, change(b)])).toThrow(message);
  });

  test('nothing to merge is an error', () => {
    expect(() => mergeResults([])).toThrow('cannot merge: no results given');
  });
});

describe('writeReports and readResultsDir', () => {
  test('writes results.json, junit.xml and index.html into a new directory and reads results back', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'conformance-report-')), 'nested', 'out');
    const files = await writeReports(fixtureRun(), dir);
    expect(files).toEqual({ resultsJson: join(dir, 'results.json'), junitXml: join(dir, 'junit.xml'), html: join(dir, 'index.html') });
    const json = await readFile(files.resultsJson, 'utf8');
    expect(json).toBe(serialiseResults(fixtureRun()));
    expect(JSON.parse(json)).toEqual(storedResults(fixtureRun()));
    expect(await readFile(files.junitXml, 'utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(await readFile(files.html, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    const back = await readResultsDir(dir);
    expect(back).toEqual(roundTrip(fixtureRun()));
    // Reading and writing again loses nothing more: the same text.
    expect(serialiseResults(back)).toBe(json);
  });

  test('shard directories read back and merge', async () => {
    const root = await mkdtemp(join(tmpdir(), 'conformance-shards-'));
    const [a, b] = shards();
    await writeReports(a, join(root, '1'));
    await writeReports(b, join(root, '2'));
    const merged = mergeResults([await readResultsDir(join(root, '1')), await readResultsDir(join(root, '2'))]);
    expect(withoutTiming(merged)).toEqual(withoutTiming(roundTrip(fixtureRun())));
  });

  test('a results.json of schemaVersion 1 (pretty JSON, every case in full) still reads, as it was', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-v1-'));
    await writeFile(join(dir, 'results.json'), `${JSON.stringify(fixtureRun(), null, 2)}\n`);
    await expect(readResultsDir(dir)).resolves.toEqual(fixtureRun());
  });

  const bad: Array<[string, string | undefined, string]> = [
    ['no results.json', undefined, 'no results.json here; point at the output directory of a conformance run'],
    ['not JSON', '{"schemaVersion": 1,', 'results.json: not valid JSON ('],
    ['another schemaVersion', '{"schemaVersion": 3}', 'results.json: schemaVersion 3 is not supported (this tool reads schemaVersion 1 and 2)'],
    ['the wrong shape', '{"schemaVersion": 1, "operations": []}', "results.json: does not match results.schema.json at /: must have required property 'tool'"],
  ];
  test.each(bad)('%s is a one-line error', async (_name, content, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-bad-'));
    await mkdir(dir, { recursive: true });
    if (content !== undefined) await writeFile(join(dir, 'results.json'), content);
    const error = await readResultsDir(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsInputError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('src/runner/schemas/results.schema.json', () => {
  const schemaUrl = new URL('../../src/runner/schemas/results.schema.json', import.meta.url);

  test('is a valid JSON Schema 2020-12 that the written results.json satisfies', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(schemaUrl, 'utf8')) as object);
    const dir = await mkdtemp(join(tmpdir(), 'conformance-schema-'));
    const files = await writeReports(fixtureRun(), dir);
    const written: unknown = JSON.parse(await readFile(files.resultsJson, 'utf8'));
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
  });

  test('accepts every optional field the model has', () => {
    const full = fixtureRun();
    full.shard = { index: 1, count: 2 };
    full.deploymentDiff = { extra: [{ method: 'GET', path: '/health', operationId: 'health' }], lacking: ['x'] };
    const exchange = full.operations[0]?.cases[0]?.exchanges[0];
    if (exchange?.response) exchange.response.json = { id: 'x' };
    expect(validateResults(full)).toEqual([]);
    expect(validateResults(storedResults(full))).toEqual([]);
    // Fields schemaVersion 1 never had: only in the stored form (schemaVersion 2).
    full.requestsByLocation = { path: 3, query: 2, header: 1, cookie: 1, body: 5, none: 4 };
    expect(validateResults(storedResults(full))).toEqual([]);
  });

  test('a repeated failure whose evidence was left out is stored once per operation (sameAs) and comes back with its checks and findings', () => {
    const results = fixtureRun();
    const op = results.operations.find((o) => o.cases.some((c) => c.outcome === 'failed' && c.findings.length > 0))!;
    const failing = op.cases.find((c) => c.outcome === 'failed' && c.findings.length > 0)!;
    const omitted = (name: string, message?: string) => ({
      ...failing,
      name,
      exchanges: [],
      omittedExchanges: 1,
      curl: `curl ${name}`,
      findings: failing.findings.map((f, i) => (i === 0 && message ? { ...f, message } : f)),
    });
    op.cases = [...op.cases, omitted('repeat one'), omitted('repeat two'), omitted('repeat three'), omitted('other', 'a different failure')];
    const stored = storedResults(results);
    expect(validateResults(stored)).toEqual([]);
    const storedCases = stored.operations.find((o) => o.operationId === op.operationId)!.cases!;
    const byName = (name: string) => storedCases.find((c) => c.name === name)!;
    expect(byName('repeat one').curl).toBe('curl repeat one');
    expect(byName('repeat two')).toEqual({ name: 'repeat two', kind: failing.kind, outcome: 'failed', durationMs: failing.durationMs, omittedExchanges: 1, sameAs: 'repeat one' });
    expect(byName('repeat three').sameAs).toBe('repeat one');
    expect(byName('other').sameAs).toBeUndefined();
    const back = expandResults(JSON.parse(JSON.stringify(stored))).operations.find((o) => o.operationId === op.operationId)!;
    // Passed checks are counted per operation in schemaVersion 2, never per case.
    const notPassed = <C extends { checks: Array<{ status: string }> }>(c: C): C => ({ ...c, checks: c.checks.filter((k) => k.status !== 'passed') });
    // results.json gives each error its WFC fault code (checks/fault-codes.ts): it comes back with it.
    const coded = <C extends { findings: Finding[] }>(c: C): C => ({ ...c, findings: c.findings.map((f) => (faultCodeOf(f) !== undefined ? { ...f, faultCode: faultCodeOf(f) } : f)) });
    const original = (name: string) => coded(notPassed(op.cases.find((c) => c.name === name)!));
    const withoutCurl = (name: string) => {
      const { curl: _curl, ...rest } = original(name);
      return rest;
    };
    const got = (name: string) => back.cases.find((c) => c.name === name)!;
    expect(got('repeat two')).toEqual(withoutCurl('repeat two'));
    expect(got('repeat three')).toEqual(withoutCurl('repeat three'));
    expect(got('repeat one')).toEqual(original('repeat one'));
    expect(got('other')).toEqual(original('other'));
  });

  test('schemaVersion 2 rejects what it does not store: empty arrays, passed checks in a case', () => {
    const stored = storedResults(fixtureRun());
    const op = stored.operations[0]!;
    expect(validateResults({ ...stored, operations: [{ ...op, ran: [] }] }).map((e) => e.instancePath)).toEqual(['/operations/0/ran']);
    const c = op.cases![0]!;
    const withPassed = { ...stored, operations: [{ ...op, cases: [{ ...c, checks: { 'auth-enforced': 'passed' } }] }] };
    expect(validateResults(withPassed).map((e) => e.instancePath)).toContain('/operations/0/cases/0/checks/auth-enforced');
  });

  test('rejects fields the model does not have, and wrong values', () => {
    const extra = { ...fixtureRun(), colour: 'red' };
    expect(validateResults(extra)).toEqual([{ instancePath: '/', message: 'must NOT have additional properties "colour"' }]);
    const wrong = fixtureRun();
    (wrong.operations[0] as { outcome: string }).outcome = 'green';
    expect(validateResults(wrong).map((e) => e.instancePath)).toContain('/operations/0/outcome');
  });
});

describe('--baseline files', () => {
  test('a baseline of schemaVersion 1 under another name loads as it was; one of schemaVersion 2 loads expanded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-baseline-'));
    const v1 = join(dir, 'baseline.json');
    await writeFile(v1, `${JSON.stringify(fixtureRun(), null, 2)}\n`);
    await expect(readBaseline(v1)).resolves.toEqual(fixtureRun());
    const v2 = join(dir, 'baseline-v2.json');
    await writeFile(v2, serialiseResults(fixtureRun()));
    await expect(readBaseline(v2)).resolves.toEqual(roundTrip(fixtureRun()));
    await writeFile(v2, '{"schemaVersion": 3, "operations": []}');
    await expect(readBaseline(v2)).rejects.toThrow('not a results.json of schemaVersion 1 or 2');
  });
});
