/**
 * Scenario: the forgot-password flow. Sending an OTP cannot be undone, so the scenario runs only where
 * irreversible calls are allowed (the embedded reference service, or --allow-irreversible). The right OTP is
 * used only when an OTP source is configured (--otp-source-url).
 */
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { conformanceClient, runConfig, unmetOperations, type ConformanceClient } from '../../src/runner/testing/index.ts';

const config = runConfig();
const unmetPassword = await unmetOperations('send-forget-password-otp', 'verify-forget-password-otp');
const unmetReference = await unmetOperations('get-foreign-trade-reference-number', 'validate-reference-number');
let api: ConformanceClient;

// A contract without these operations reports the suite skipped with that reason (beforeEach), whatever the flags.
describe.skipIf(!unmetPassword && (config.readOnly || !config.allowIrreversible))('forgot password', () => {
  let transactionId = '';
  let username = '';

  beforeAll(async () => {
    api = await conformanceClient();
  });

  beforeEach(({ skip }) => {
    if (unmetPassword) skip(unmetPassword);
  });

  test('sending an OTP answers a transaction id and the user name', async () => {
    const res = await api.call('send-forget-password-otp', { body: { userIdentifier: 'qa.user' } });
    expect(res).toConformTo('send-forget-password-otp');
    const body = res.body as { TransactionId: string; Username: string };
    transactionId = body.TransactionId;
    username = body.Username;
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/i);
  });

  test('a wrong OTP is rejected', async () => {
    const res = await api.call('verify-forget-password-otp', { body: { transactionId, username, oneTimePassword: '000000-wrong' } });
    expect(res.status).toBe(400);
    expect(res).toConformTo('verify-forget-password-otp', 'rejected');
  });

  test('the right OTP resets the password, once', async ({ skip }) => {
    if (!api.otpSourceConfigured) skip('no OTP source configured (--otp-source-url)');
    const otp = await api.otp(transactionId);
    expect(otp).toBeTypeOf('string');
    const res = await api.call('verify-forget-password-otp', { body: { transactionId, username, oneTimePassword: otp } });
    expect(res).toConformTo('verify-forget-password-otp');
    const again = await api.call('verify-forget-password-otp', { body: { transactionId, username, oneTimePassword: otp } });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again).toConformTo('verify-forget-password-otp', 'rejected');
  });
});

describe.skipIf(!unmetReference && (config.readOnly || !config.allowIrreversible))('foreign-trade reference numbers', () => {
  beforeAll(async () => {
    api = await conformanceClient();
  });

  beforeEach(({ skip }) => {
    if (unmetReference) skip(unmetReference);
  });

  test('a generated reference validates, and the counter advances', async () => {
    const body = { direction: 'Import', isDomestic: true, transactionType: 'Collection' };
    const first = await api.call('get-foreign-trade-reference-number', { body });
    expect(first).toConformTo('get-foreign-trade-reference-number');
    const second = await api.call('get-foreign-trade-reference-number', { body });
    expect(second).toConformTo('get-foreign-trade-reference-number');
    const a = first.body as { Counter: number; LastReference: string };
    const b = second.body as { Counter: number; LastReference: string };
    expect(b.Counter).toBeGreaterThan(a.Counter);
    const valid = await api.call('validate-reference-number', { body: { referenceNumber: b.LastReference } });
    expect(valid).toConformTo('validate-reference-number');
    expect(valid.body).toEqual(expect.objectContaining({ IsValid: true }));
  });
});
