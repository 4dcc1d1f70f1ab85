/**
 * What memory keeps of the cases holds equal values once, and exactly the values given (a copy of a text cut
 * from a body must not change it, lone surrogates included).
 */
import { expect, test } from 'vitest';
import type { CaseResult } from '../../src/runner/model.ts';
import { SharedValues } from '../../src/runner/report/case-memory.ts';

const aCase = (name: string, message: string): CaseResult => ({
  name,
  kind: 'negative',
  outcome: 'failed',
  durationMs: 1,
  checks: [
    { id: 'not-a-server-error', status: 'passed' },
    { id: 'negative-data-rejected', status: 'failed' },
  ],
  findings: [{ check: 'negative-data-rejected', severity: 'error', operationId: 'op', method: 'POST', path: '/x', message }],
  exchanges: [],
});

test('equal texts and check lists are one value; every value reads back unchanged', () => {
  const shared = new SharedValues();
  const body = `${'x'.repeat(1 << 20)}lone \ud800 surrogate and "quotes" and \u0000`;
  const cut = body.slice(body.length - 40);
  const a = shared.caseResult(aCase('negative: wrong type', `Invalid input was accepted: ${cut}`));
  const b = shared.caseResult(aCase('negative: wrong type', `Invalid input was accepted: ${cut}`));
  expect(a).toEqual(aCase('negative: wrong type', `Invalid input was accepted: ${cut}`));
  expect(a.findings[0]!.message).toBe(`Invalid input was accepted: ${cut}`);
  expect(a.checks).toBe(b.checks);
  expect(shared.text(cut)).toBe(cut);
  expect(shared.text(cut).length).toBe(40);
});
