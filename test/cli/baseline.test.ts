/**
 * --baseline against faulty deployments: a known failure does not fail the gate, a new one does, a fixed one
 * is reported as fixed; results.json, the console and the HTML say which is which.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Handler, Reply, Variant } from '../../src/reference-service/index.ts';
import { objectBody, removeTemps, requireResults, resultsSchemaErrors, runCli, startVariant, tokenLeaks, type CliRun } from '../support/runs.ts';

function onSuccess(change: (reply: Reply) => Reply): Handler {
  return async (_req, next) => {
    const reply = await next();
    return reply.status === 200 ? change(reply) : reply;
  };
}

const SELECTION = ['--include', 'get-address-type-field-by-id,customer-get-cache-key-list'];
const wrongType: Variant['handlers'] = {
  'get-address-type-field-by-id': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), sequenceNumber: 'one' } })),
};
const serverError: Variant['handlers'] = {
  'customer-get-cache-key-list': () => ({ status: 500, body: { error: { code: 'ERROR', message: 'broken' } } }),
};

async function runAgainst(handlers: Variant['handlers'], extra: string[] = []): Promise<CliRun> {
  const started = await startVariant({ handlers: handlers ?? {} });
  try {
    const { args, env } = started.target('env');
    return await runCli([...args, '--quiet', ...SELECTION, ...extra], { env });
  } finally {
    await started.close();
  }
}

describe('--baseline', () => {
  let baseline: CliRun;
  beforeAll(async () => {
    baseline = await runAgainst(wrongType);
  }, 120_000);
  afterAll(removeTemps);

  test('the baseline run itself fails (the known fault)', () => {
    expect(baseline.code).toBe(1);
  });

  test('the same faults again: nothing new, exit 0, the run is still reported not conformant', async () => {
    const run = await runAgainst(wrongType, ['--baseline', join(baseline.out, 'results.json')]);
    const results = requireResults(run);
    expect(run.code, run.stderr).toBe(0);
    expect(results.verdict).toBe('not-conformant');
    expect(results.baseline?.new).toEqual([]);
    expect(results.baseline?.unchanged.map((e) => `${e.operationId} › ${e.caseName} › ${e.check}`)).toContain('get-address-type-field-by-id › positive › response-schema-conformance');
    expect(run.stderr).toMatch(/not conformant, but nothing new: Against the baseline \(.*\): 0 new · 0 fixed · \d+ unchanged/);
    expect(resultsSchemaErrors(results)).toEqual([]);
    expect(await tokenLeaks(run)).toEqual([]);
  }, 120_000);

  test('a new fault fails the gate and is marked new; the known one is not', async () => {
    const run = await runAgainst({ ...wrongType, ...serverError }, ['--baseline', baseline.out]);
    const results = requireResults(run);
    expect(run.code).toBe(1);
    const news = results.baseline?.new.map((e) => `${e.operationId} › ${e.check}`) ?? [];
    expect(news).toContain('customer-get-cache-key-list › not-a-server-error');
    expect(news.filter((k) => k.startsWith('get-address-type-field-by-id'))).toEqual([]);
    expect(run.stdout).toMatch(/Against the baseline \(.*\): \d+ new · 0 fixed · \d+ unchanged/);
    expect(run.stdout).toMatch(/ {2}new {4}customer-get-cache-key-list › positive › not-a-server-error/);
    const html = await readFile(join(run.out, 'index.html'), 'utf8');
    expect(html).toContain('<section id="baseline" class="alert alert-bad"');
    expect(html).toMatch(/<td>positive <span class="tag new">new<\/span><\/td>/);
  }, 120_000);

  test('a fixed fault is reported fixed; with nothing failing the run is simply conformant', async () => {
    const run = await runAgainst({}, ['--baseline', baseline.out]);
    const results = requireResults(run);
    expect(run.code).toBe(0);
    expect(results.verdict).toBe('conformant');
    expect(results.baseline?.fixed.map((e) => `${e.operationId} › ${e.check}`)).toContain('get-address-type-field-by-id › response-schema-conformance');
    expect(run.stdout).toMatch(/ {2}fixed {2}get-address-type-field-by-id › positive › response-schema-conformance/);
  }, 120_000);

  test('a baseline that is not a results file: one line, exit 2', async () => {
    const run = await runCli(['--baseline', join(baseline.out, 'index.html'), '--quiet']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^conformance: --baseline .*index\.html: not valid JSON/);
  });
});
