/**
 * Reports that grow with the distinct failures: a failure shown with its evidence often enough is listed
 * afterwards with its findings and curl line only, in canonical order; the case results go to an NDJSON
 * spool as they arrive and memory keeps their summary.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import v8 from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CaseResult, Finding, OperationResult } from '../../src/runner/model.ts';
import { CaseSpool, operationWithTexts, readSpool, spoolFileName, withTexts } from '../../src/runner/report/case-spool.ts';
import { EVIDENCE_PER_FAILURE, failureSignature, limitEvidence, type EvidenceOptions } from '../../src/runner/report/evidence-limit.ts';
import { renderHtml } from '../../src/runner/report/html.ts';
import { renderJunit } from '../../src/runner/report/junit.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { validateResults } from '../../src/runner/report/results-schema.ts';
import { applyWaivers } from '../../src/runner/report/waivers.ts';
import { serialiseResults } from '../../src/runner/report/write.ts';
import { rawOperations, rawRun, TODAY, WAIVERS } from './fixtures/run-results.ts';

function finding(operationId: string, message = 'Response 200 does not match the schema: (root) must have required property \'id\'.'): Finding {
  return {
    check: 'response-schema-conformance',
    severity: 'error',
    operationId,
    method: 'GET',
    path: `/${operationId}`,
    message,
    expected: { type: 'object', required: ['id'] },
    actual: {},
    schemaErrors: [{ instancePath: '', schemaPath: '#/required', message: "(root) must have required property 'id'" }],
  };
}

function failingCase(operationId: string, message?: string): CaseResult {
  return {
    name: 'positive',
    kind: 'positive',
    outcome: 'failed',
    durationMs: 3,
    checks: [{ id: 'response-schema-conformance', status: 'failed' }],
    findings: [finding(operationId, message)],
    exchanges: [
      {
        request: { method: 'GET', url: `http://127.0.0.1:9/${operationId}`, headers: { accept: 'application/json' } },
        response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{}', truncated: false, size: 2, json: {} },
        durationMs: 2,
      },
    ],
    curl: `curl -g -X GET 'http://127.0.0.1:9/${operationId}'`,
  };
}

function passedCase(): CaseResult {
  return { name: 'presence', kind: 'presence', outcome: 'passed', durationMs: 1, checks: [{ id: 'operation-present', status: 'passed' }], findings: [], exchanges: [] };
}

function operation(id: string, cases: CaseResult[]): OperationResult {
  return { operationId: id, method: 'GET', path: `/${id}`, group: '/g', service: 'customer-service', outcome: 'failed', durationMs: 4, cases };
}

const ops = (n: number, message?: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => operation(`op-${String(i).padStart(2, '0')}`, [passedCase(), failingCase(`op-${String(i).padStart(2, '0')}`, message?.(i))]));

describe('limitEvidence', () => {
  test(`the same failure keeps its evidence ${EVIDENCE_PER_FAILURE} times, in canonical order; later ones keep findings and curl and count what was left out`, () => {
    const limited = limitEvidence(ops(EVIDENCE_PER_FAILURE + 3));
    const failing = limited.map((o) => o.cases[1]!);
    for (const c of failing.slice(0, EVIDENCE_PER_FAILURE)) {
      expect(c.exchanges).toHaveLength(1);
      expect(c.findings[0]?.schemaErrors).toHaveLength(1);
      expect(c.omittedExchanges).toBeUndefined();
    }
    for (const c of failing.slice(EVIDENCE_PER_FAILURE)) {
      expect(c.exchanges).toEqual([]);
      expect(c.omittedExchanges).toBe(1);
      expect(c.curl).toMatch(/^curl /);
      expect(c.findings).toHaveLength(1);
      expect(c.findings[0]).toMatchObject({ check: 'response-schema-conformance', severity: 'error', message: expect.stringContaining('does not match') });
      expect(c.findings[0]).not.toHaveProperty('schemaErrors');
      expect(c.findings[0]).not.toHaveProperty('expected');
      expect(c.outcome).toBe('failed');
    }
    // Passed cases are left as they are.
    expect(limited.map((o) => o.cases[0])).toEqual(ops(EVIDENCE_PER_FAILURE + 3).map((o) => o.cases[0]));
  });

  test('different failures are counted apart; the total is capped too', () => {
    const distinct = limitEvidence(ops(14, (i) => `message ${i}`));
    expect(distinct.every((o) => o.cases[1]!.exchanges.length === 1)).toBe(true);
    const capped = limitEvidence(ops(14, (i) => `message ${i}`), { cases: 5 });
    expect(capped.map((o) => o.cases[1]!.exchanges.length)).toEqual([...Array(5).fill(1), ...Array(9).fill(0)]);
    expect(failureSignature(failingCase('a', 'x'))).not.toBe(failureSignature(failingCase('a', 'y')));
  });

  test('--keep-passed-exchanges keeps every case whole', () => {
    const all = limitEvidence(ops(EVIDENCE_PER_FAILURE + 3), { unlimited: true });
    expect(all).toEqual(ops(EVIDENCE_PER_FAILURE + 3));
  });

  test('the failing cases left without evidence share their hidden classes (V8): no map of its own per case', () => {
    v8.setFlagsFromString('--allow-natives-syntax');
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;
    // Cases of two shapes (with and without a reproduction), as the run keeps them: copies made by spreads.
    const cases = Array.from({ length: 40 }, (_, i) => {
      const c = { ...failingCase(`op-${i}`), name: `negative ${i % 3}` };
      return i % 2 === 0 ? { ...c, reproduction: '#!/usr/bin/env bash' } : { ...c };
    });
    const limited = limitEvidence([operation('op', cases)], { perFailure: 0 })[0]!.cases;
    expect(limited.every((c) => c.omittedExchanges === 1)).toBe(true);
    const byKeys = new Map<string, unknown>();
    let pairs = 0;
    for (const c of limited) {
      const keys = Object.keys(c).join();
      const first = byKeys.get(keys);
      if (first === undefined) byKeys.set(keys, c);
      else {
        pairs++;
        expect(sameMap(first, c), keys).toBe(true);
      }
    }
    expect(pairs).toBe(38);
  });

  test('a limited run still validates against the results schema', () => {
    const operations = limitEvidence(ops(EVIDENCE_PER_FAILURE + 2));
    const results = summarise(rawRun(operations));
    expect(validateResults(JSON.parse(serialiseResults(results)))).toEqual([]);
    expect(results.verdict).toBe('not-conformant');
  });
});

describe('CaseSpool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-spool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('each case is one JSON line on disk within a tenth of a second; memory keeps it without bodies and schema detail; the whole case reads back', async () => {
    const spool = new CaseSpool(dir);
    expect(spool.file).toBe(join(dir, spoolFileName()));
    const failing = failingCase('op-a');
    const keptFailing = spool.add('op-a', 1, failing);
    const passed = passedCase();
    expect(spool.add('op-a', 0, passed)).toBe(passed);
    // Written in one batch, without anything asking for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = [...readSpool(readFileSync(spool.file, 'utf8'))];
    expect(lines).toEqual([
      { operationId: 'op-a', index: 1, case: failing },
      { operationId: 'op-a', index: 0, case: passed },
    ]);
    // In memory: the request line and status (what the run's diagnosis reads), no bodies, no schema errors.
    expect(keptFailing.exchanges).toEqual([
      { request: { method: 'GET', url: 'http://127.0.0.1:9/op-a', headers: {} }, response: { status: 200, headers: {}, body: '', truncated: false, size: 2 }, durationMs: 2 },
    ]);
    expect(keptFailing.findings[0]).not.toHaveProperty('schemaErrors');
    expect(keptFailing.findings[0]?.message).toBe(failing.findings[0]?.message);
    // Nor its curl line: the reporters read it back.
    expect(keptFailing).not.toHaveProperty('curl');
    expect(withTexts(keptFailing).curl).toBe(failing.curl);
    expect(spool.recorded(keptFailing)).toBe(1);
    expect(spool.full(keptFailing)).toEqual(failing);
    expect(spool.full(passed)).toBe(passed);
    // Through limitEvidence, the shown failure comes back whole from the file.
    const [limited] = limitEvidence([operation('op-a', [keptFailing])], { full: (c) => spool.full(c) });
    expect(limited?.cases[0]).toEqual(failing);
    spool.close(true);
    expect(existsSync(spool.file)).toBe(false);
  });

  test('a case other than a positive one or a presence probe keeps none of its exchanges in memory: how many it recorded is counted from the spool', () => {
    const spool = new CaseSpool(dir);
    const negative = { ...failingCase('op-n'), name: 'negative: missing body', kind: 'negative' as const };
    const kept = spool.add('op-n', 0, negative);
    expect(kept.exchanges).toEqual([]);
    expect(spool.recorded(kept)).toBe(1);
    // Its failure shown with evidence: the whole case; left out: the exchange counted, the curl line read back.
    const [shown] = limitEvidence([operation('op-n', [kept])], { full: (c) => spool.full(c), recorded: (c) => spool.recorded(c) });
    expect(shown?.cases[0]).toEqual(negative);
    const [omitted] = limitEvidence([operation('op-n', [kept])], { full: (c) => spool.full(c), recorded: (c) => spool.recorded(c), perFailure: 0 });
    expect(omitted?.cases[0]).toMatchObject({ exchanges: [], omittedExchanges: 1 });
    expect(omitted?.cases[0]).not.toHaveProperty('curl');
    expect(operationWithTexts(omitted!).cases[0]?.curl).toBe(negative.curl);
    spool.close(true);
    // Once the spool is gone, nothing is read.
    expect(withTexts(kept)).toBe(kept);
  });

  test("a finding's own curl line is a text too: memory keeps none, the reporters and the whole case read it back", () => {
    const spool = new CaseSpool(dir);
    const whole = failingCase('op-f');
    const own = `curl -g 'http://127.0.0.1:9/op-f?variation=1'`;
    const second = { ...finding('op-f', 'Response 200 does not match the schema: /id must be string.'), curl: own };
    const failing: CaseResult = { ...whole, findings: [{ ...whole.findings[0]!, curl: whole.curl! }, second] };
    const kept = spool.add('op-f', 0, failing);
    expect(kept.findings.map((f) => f.curl)).toEqual([undefined, undefined]);
    expect(withTexts(kept).findings.map((f) => f.curl)).toEqual([whole.curl, own]);
    expect(spool.full(kept)).toEqual(failing);
    // Left out of the evidence shown: the finding's line still comes back with the operation's texts.
    const [omitted] = limitEvidence([operation('op-f', [kept])], { full: (c) => spool.full(c), recorded: (c) => spool.recorded(c), perFailure: 0 });
    expect(operationWithTexts(omitted!).cases[0]?.findings.map((f) => f.curl)).toEqual([whole.curl, own]);
    spool.close(true);
  });

  test('cases of operations written interleaved, near and far apart, each read back with their own curl line and reproduction script', () => {
    const spool = new CaseSpool(dir);
    // Three operations' cases arrive in turn; some carry a body of 40 KB, some 300 KB, so their texts lines are at
    // every distance from each other (one read for nearby ones, separate reads for far ones).
    const ids = ['op-x', 'op-y', 'op-z'];
    const kept = new Map<string, CaseResult[]>(ids.map((id) => [id, []]));
    const whole = new Map<string, CaseResult[]>(ids.map((id) => [id, []]));
    for (let i = 0; i < 60; i++) {
      for (const id of ids) {
        const base = failingCase(id);
        const body = 'x'.repeat(i % 7 === 0 ? 300_000 : i % 3 === 0 ? 40_000 : 10);
        const c: CaseResult = {
          ...base,
          name: `negative: case ${i}`,
          exchanges: [{ ...base.exchanges[0]!, response: { ...base.exchanges[0]!.response!, body } }],
          curl: `curl -g 'http://127.0.0.1:9/${id}?i=${i}'`,
          ...(i % 2 === 0 ? { reproduction: `#!/usr/bin/env bash\n# ${id} › ${i} ü\n` } : {}),
        };
        whole.get(id)!.push(c);
        kept.get(id)!.push(spool.add(id, i, c));
      }
    }
    // Read while lines are still waiting to be written: they are written first.
    for (const id of ids) {
      const read = operationWithTexts(operation(id, kept.get(id)!)).cases;
      expect(read.map((c) => [c.curl, c.reproduction])).toEqual(whole.get(id)!.map((c) => [c.curl, c.reproduction]));
    }
    // The whole case of each, read alone, is the case as it was recorded, texts included.
    expect(spool.full(kept.get('op-y')![7]!)).toEqual(whole.get('op-y')![7]);
    spool.close(true);
  });

  test('the reports read the curl lines and reproduction scripts back from the spool: the same results.json, JUnit and HTML as from the cases kept whole', () => {
    // The fixture's operations and one with failing cases beyond the evidence limit, each with its curl line and reproduction.
    const ops = (): OperationResult[] => {
      const repeated = Array.from({ length: 4 }, (_, i) => ({
        ...failingCase('op-r'),
        name: `negative: wrong type ${i}`,
        kind: 'negative' as const,
        curl: `curl -g -X GET 'http://127.0.0.1:9/op-r?i=${i}'`,
        reproduction: `#!/usr/bin/env bash\n# op-r › negative: wrong type ${i}\ncurl -sS 'http://127.0.0.1:9/op-r?i=${i}'\n`,
      }));
      const passedWithCurl = { ...passedCase(), name: 'coverage: shortest name', kind: 'coverage' as const, curl: `curl -g 'http://127.0.0.1:9/op-r?short'` };
      const warned = {
        ...passedWithCurl,
        name: 'coverage: longest name',
        findings: [{ ...finding('op-r', 'a warning'), severity: 'warning' as const }],
        curl: `curl -g 'http://127.0.0.1:9/op-r?long'`,
      };
      return [...rawOperations(), operation('op-r', [passedCase(), ...repeated, passedWithCurl, warned])];
    };
    const render = (operations: OperationResult[], limit: EvidenceOptions): string[] => {
      const results = applyWaivers(summarise(rawRun(limitEvidence(operations, { ...limit, perFailure: 2 }))), WAIVERS, TODAY);
      return [serialiseResults(results), renderJunit(results), renderHtml(results, { lazy: false }), renderHtml(results, { lazy: true })];
    };
    const whole = render(ops(), {});
    const spool = new CaseSpool(dir);
    const kept = ops().map((op) => ({ ...op, cases: op.cases.map((c, i) => spool.add(op.operationId, i, c)) }));
    // Memory holds no curl line and no reproduction script of a generated case.
    expect(kept.flatMap((o) => o.cases).filter((c) => c.curl !== undefined || c.reproduction !== undefined)).toEqual([]);
    const spooled = render(kept, { full: (c) => spool.full(c), recorded: (c) => spool.recorded(c) });
    spool.close(true);
    expect(spooled[0]).toBe(whole[0]);
    expect(spooled[1]).toBe(whole[1]);
    expect(spooled[2]).toBe(whole[2]);
    expect(spooled[3]).toBe(whole[3]);
    // The texts are in the reports: the curl lines of the failures shown without evidence, the passed case's with its warning.
    const stored = JSON.parse(whole[0]!) as { operations: Array<{ operationId: string; cases?: Array<{ name: string; curl?: string; reproduction?: string; omittedExchanges?: number }> }> };
    const cases = stored.operations.find((o) => o.operationId === 'op-r')?.cases ?? [];
    expect(cases.filter((c) => c.omittedExchanges !== undefined).map((c) => [c.name, c.curl?.slice(0, 4), c.reproduction?.slice(0, 11)])).toEqual([
      ['negative: wrong type 2', 'curl', '#!/usr/bin/'],
      ['negative: wrong type 3', 'curl', '#!/usr/bin/'],
    ]);
    expect(whole[2]).toContain('op-r?long');
  });

  test('closed without removing, the file stays with every case written', () => {
    const spool = new CaseSpool(dir);
    spool.add('op-b', 0, failingCase('op-b'));
    spool.close(false);
    expect([...readSpool(readFileSync(spool.file, 'utf8'))].map((l) => l.operationId)).toEqual(['op-b']);
  });
});
