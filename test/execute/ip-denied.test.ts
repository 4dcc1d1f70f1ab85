/**
 * The profile's `auth.ipDeniedCode`: a deployment that refuses the caller's IP address says where the run comes
 * from is not allowed, not that the operation is wrong. The credentials preflight stops the run with that reason
 * (not "check the bearer token"); a case that meets it later is errored with it and no finding blames the
 * operation. The same refusal with any other code is judged as usual.
 */
import { afterAll, expect, test } from 'vitest';
import type { Variant } from '../../src/reference-service/types.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, startVariant } from '../support/runs.ts';

afterAll(removeTemps);

const refusing = (op: string, code: string): Variant => ({
  handlers: { [op]: () => ({ status: 403, body: { error: { code, message: 'access is denied to the caller IP' } } }) },
});

async function runAgainst(variant: Variant, include: string) {
  const started = await startVariant(variant);
  try {
    const { args, env } = started.target('env');
    return await runCli([...args, '--include', include], { env });
  } finally {
    await started.close();
  }
}

test('the preflight stops on the IP-denied code and says so, not "check the bearer token"', async () => {
  const run = await runAgainst(refusing('customer-get-cache-key-list', 'ERR_BNPL_1'), 'customer-get-cache-key-list');
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/refused the caller's IP address \(ERR_BNPL_1, status 403\)/);
  expect(run.stderr + run.stdout).not.toMatch(/bearer token/);
  expect(allFindings(requireResults(run))).toEqual([]);
});

test('a case that meets the IP-denied code later is errored with that reason; nothing blames the operation', async () => {
  const run = await runAgainst(refusing('create-address-type', 'ERR_BNPL_1'), 'create-address-type');
  const results = requireResults(run);
  const op = operation(results, 'create-address-type');
  expect(op.outcome).toBe('errored');
  expect(allFindings(results).filter((f) => f.severity === 'error' && f.operationId === 'create-address-type')).toEqual([]);
  const reasons = op.cases.filter((c) => c.outcome === 'errored').map((c) => c.errorMessage ?? '');
  expect(reasons.length).toBeGreaterThan(0);
  expect(reasons.every((r) => /refused the caller's IP address \(ERR_BNPL_1, status 403\)/.test(r))).toBe(true);
  expect(run.code).toBe(2);
});

test('the same refusal with another code is the operation refusing valid calls: failed', async () => {
  const run = await runAgainst(refusing('create-address-type', 'ERR_PLAT_3'), 'create-address-type');
  const results = requireResults(run);
  expect(operation(results, 'create-address-type').outcome).toBe('failed');
  expect(allFindings(results).some((f) => f.severity === 'error' && f.operationId === 'create-address-type')).toBe(true);
  expect(run.code).toBe(1);
});
