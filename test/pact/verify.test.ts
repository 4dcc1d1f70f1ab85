/**
 * Provider verification of pacts against the embedded reference service (and faulty variants of it).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceService, type Handler, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';
import type { PactInteractionResult } from '../../src/runner/model.ts';
import { PactInputError } from '../../src/runner/pact/errors.ts';
import { verifyPacts, type VerifyPactsOptions } from '../../src/runner/pact/verify.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { startFakeBroker } from './fake-broker.ts';
import {
  COMMITTED_PACTS,
  committedInteraction,
  CONTRACT_FILES,
  ONBOARDING_PACT,
  readPact,
  TRADE_PACT,
  tempDir,
  writePact,
} from './support.ts';
import { customerPack } from '../../src/packs/customer/index.ts';

const TOKEN = `pact-verify-${Math.random().toString(36).slice(2)}-secret`;
const contract = await loadContract(CONTRACT_FILES);

async function withService<T>(variant: Variant | undefined, fn: (svc: ReferenceService) => Promise<T>): Promise<T> {
  const svc = await startReferenceService({ token: TOKEN, port: 0, ...(variant ? { variant } : {}) });
  try {
    return await fn(svc);
  } finally {
    await svc.close();
  }
}

function options(svc: ReferenceService, extra: Partial<VerifyPactsOptions> = {}): VerifyPactsOptions {
  return { baseUrls: { 'customer-service': svc.customerBaseUrl, 'foreign-trade-service': svc.foreignTradeBaseUrl }, packs: [customerPack], token: TOKEN, contract, ...extra };
}

const byOutcome = (results: PactInteractionResult[], outcome: PactInteractionResult['outcome']) =>
  results.filter((r) => r.outcome === outcome).map((r) => r.description);

describe('verifyPacts: the committed pacts against the reference service', () => {
  let svc: ReferenceService;
  let result: Awaited<ReturnType<typeof verifyPacts>>;
  let elapsedMs = 0;
  const counts: Record<string, number> = {};
  const counting = (operationId: string): Handler => async (_req, next) => {
    const reply = await next();
    if (reply.status === 200) counts[operationId] = (counts[operationId] ?? 0) + 1;
    return reply;
  };

  beforeAll(async () => {
    const ops = ['create-address-type', 'delete-address-type', 'create-address-type-field', 'delete-address-type-field'];
    svc = await startReferenceService({
      token: TOKEN,
      port: 0,
      variant: { handlers: Object.fromEntries(ops.map((op) => [op, counting(op)])) },
    });
    const started = performance.now();
    result = await verifyPacts(options(svc, { pacts: [COMMITTED_PACTS] }));
    elapsedMs = performance.now() - started;
  });
  afterAll(async () => svc.close());

  test('every interaction passes', () => {
    expect(result.mode).toBe('verify');
    expect(result.interactions).toHaveLength(13);
    expect(result.interactions.filter((i) => i.outcome !== 'passed'), result.output).toEqual([]);
  });

  test('each result names its consumer, provider, pact file, states and operation', async () => {
    const onboarding = await readPact(ONBOARDING_PACT);
    const results = result.interactions.filter((i) => i.consumer === 'onboarding-portal');
    expect(results.map((r) => r.description).sort()).toEqual(onboarding.interactions.map((i) => String(i['description'])).sort());
    const read = results.find((r) => r.description === 'a request for one field of an address type');
    expect(read).toMatchObject({
      provider: 'customer-service',
      pactFile: ONBOARDING_PACT,
      providerStates: ['an address type with a field exists'],
      operationId: 'get-address-type-field-by-id',
      mismatches: [],
    });
    const validate = result.interactions.find((r) => r.description === 'a request to validate a generated reference number');
    expect(validate).toMatchObject({
      consumer: 'trade-finance-back-office',
      provider: 'foreign-trade-service',
      pactFile: TRADE_PACT,
      operationId: 'validate-reference-number',
      providerStates: ['a reference number was generated'],
    });
    expect(result.interactions.every((i) => i.durationMs > 0)).toBe(true);
  });

  test('everything the verification created is deleted again', () => {
    expect(counts['create-address-type']).toBeGreaterThan(0);
    expect(counts['delete-address-type']).toBe(counts['create-address-type']);
    expect(counts['delete-address-type-field']).toBe(counts['create-address-type-field']);
    expect(result.warnings).toEqual([]);
  });

  test('the token is not in the verifier output', () => {
    expect(result.output).toContain('Verifying a pact between onboarding-portal and customer-service');
    expect(result.output).not.toContain(TOKEN);
  });

  test('verification time of the committed pacts is measured', () => {
    // Two child processes (one per provider) in parallel; each loads tsx and the native verifier.
    console.info(`pact verification of the committed pacts (13 interactions): ${Math.round(elapsedMs)} ms`);
    expect(elapsedMs).toBeLessThan(60_000);
  });
});

describe('verifyPacts: failures are attributed to the interaction that broke', () => {
  test('a field missing from get-address-type-field-by-id fails that interaction only', async () => {
    const variant: Variant = {
      handlers: {
        'get-address-type-field-by-id': async (_req, next) => {
          const reply = await next();
          if (reply.status !== 200) return reply;
          const { fieldKey: _dropped, ...rest } = reply.body as Record<string, unknown>;
          return { ...reply, body: rest };
        },
      },
    };
    const result = await withService(variant, (svc) => verifyPacts(options(svc, { pacts: [COMMITTED_PACTS] })));
    expect(byOutcome(result.interactions, 'failed')).toEqual(['a request for one field of an address type']);
    const failed = result.interactions.find((i) => i.outcome === 'failed');
    expect(failed?.operationId).toBe('get-address-type-field-by-id');
    expect(failed?.mismatches.map((m) => m.message).join('\n')).toMatch(/fieldKey/);
    expect(failed?.mismatches[0]?.location).toMatch(/onboarding-portal-customer-service\.json#\/interactions\/\d+\/response\/body$/);
    expect(byOutcome(result.interactions, 'passed')).toHaveLength(12);
  });

  test('a wrong type (sequenceNumber as a string) fails that interaction only', async () => {
    const variant: Variant = {
      handlers: {
        'get-address-type-field-by-id': async (_req, next) => {
          const reply = await next();
          if (reply.status !== 200) return reply;
          const body = reply.body as Record<string, unknown>;
          return { ...reply, body: { ...body, sequenceNumber: String(body['sequenceNumber']) } };
        },
      },
    };
    const result = await withService(variant, (svc) => verifyPacts(options(svc, { pacts: [ONBOARDING_PACT] })));
    expect(byOutcome(result.interactions, 'failed')).toEqual(['a request for one field of an address type']);
    const failed = result.interactions.find((i) => i.outcome === 'failed');
    expect(failed?.mismatches.map((m) => m.message).join('\n')).toMatch(/sequenceNumber/);
  });

  test('an undocumented status fails only the interaction it answers', async () => {
    const variant: Variant = { handlers: { 'update-address-type': () => ({ status: 204 }) } };
    const result = await withService(variant, (svc) => verifyPacts(options(svc, { pacts: [ONBOARDING_PACT] })));
    expect(byOutcome(result.interactions, 'failed')).toEqual(['a request to update an address type']);
    const failed = result.interactions.find((i) => i.outcome === 'failed');
    expect(failed?.mismatches).toContainEqual({
      message: 'status: expected 200 but was 204',
      location: expect.stringMatching(/\/response\/status$/) as unknown as string,
    });
  });
});

describe('verifyPacts: provider states', () => {
  test('an unknown provider state fails that interaction and says which state', async () => {
    const tmp = await tempDir('pact-unknown-state');
    try {
      const known = await committedInteraction(ONBOARDING_PACT, 'a request to create an address type');
      const unknown = await committedInteraction(ONBOARDING_PACT, 'a request to update an address type');
      unknown['providerStates'] = [{ name: 'an archived address type exists' }];
      await writePact(tmp.dir, 'states', 'onboarding-portal', 'customer-service', [known, unknown]);
      const result = await withService(undefined, (svc) => verifyPacts(options(svc, { pacts: [tmp.dir] })));
      expect(byOutcome(result.interactions, 'passed')).toEqual(['a request to create an address type']);
      const failed = result.interactions.find((i) => i.description === 'a request to update an address type');
      expect(failed?.outcome).toBe('failed');
      expect(failed?.providerStates).toEqual(['an archived address type exists']);
      const message = failed?.mismatches[0]?.message ?? '';
      expect(message).toContain('no provider state "an archived address type exists" for customer-service');
      expect(message).toContain('"an address type exists"');
      expect(failed?.mismatches[0]?.location).toMatch(/states\.json#\/interactions\/1\/providerStates$/);
    } finally {
      await tmp.remove();
    }
  });

  test('a state whose setup fails through the API fails its interactions with the reason', async () => {
    const tmp = await tempDir('pact-state-setup');
    try {
      const read = await committedInteraction(ONBOARDING_PACT, 'a request for one field of an address type');
      const otp = await committedInteraction(ONBOARDING_PACT, 'a request to send a forgotten-password one-time password');
      await writePact(tmp.dir, 'setup', 'onboarding-portal', 'customer-service', [read, otp]);
      const variant: Variant = {
        handlers: { 'create-address-type': () => ({ status: 500, body: { error: { code: 'ERROR', message: 'down' } } }) },
      };
      const result = await withService(variant, (svc) => verifyPacts(options(svc, { pacts: [tmp.dir] })));
      const failed = result.interactions.find((i) => i.description === 'a request for one field of an address type');
      expect(failed?.outcome).toBe('failed');
      expect(failed?.mismatches[0]?.message).toBe(
        'provider state "an address type with a field exists" setup: could not create an address type: POST /address-types answered 500 ERROR',
      );
      expect(byOutcome(result.interactions, 'passed')).toEqual(['a request to send a forgotten-password one-time password']);
    } finally {
      await tmp.remove();
    }
  });
});

describe('verifyPacts: input', () => {
  test('no pacts is a PactInputError unless allowNoPacts', async () => {
    const tmp = await tempDir('pact-empty');
    try {
      const opts = { baseUrls: { 'customer-service': 'http://127.0.0.1:9', 'foreign-trade-service': 'http://127.0.0.1:9' }, packs: [customerPack], token: TOKEN, contract };
      const error = await verifyPacts({ ...opts, pacts: [tmp.dir] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PactInputError);
      expect((error as Error).message).toMatch(/^no pacts found in .*pact-empty/);
      expect((error as Error).message).not.toContain('\n');
      await expect(verifyPacts({ ...opts, pacts: [tmp.dir], allowNoPacts: true })).resolves.toMatchObject({ mode: 'verify', interactions: [] });
      await expect(verifyPacts({ ...opts, pacts: [`${tmp.dir}/missing.json`] })).rejects.toThrow(PactInputError);
    } finally {
      await tmp.remove();
    }
  });

  test('a file that is not a pact is a PactInputError naming it', async () => {
    const tmp = await tempDir('pact-bad');
    try {
      const file = `${tmp.dir}/notes.json`;
      await import('node:fs/promises').then((fs) => fs.writeFile(file, '{"hello": "world"}'));
      const error = await verifyPacts({ baseUrls: { 'customer-service': 'http://127.0.0.1:9', 'foreign-trade-service': 'http://127.0.0.1:9' }, packs: [customerPack], token: TOKEN, pacts: [file] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PactInputError);
      expect((error as Error).message).toBe(`${file}: not a pact file (consumer.name and provider.name are required)`);
    } finally {
      await tmp.remove();
    }
  });

  test('a pact for a provider without a base URL is errored, the others still run', async () => {
    const tmp = await tempDir('pact-provider');
    try {
      const interaction = await committedInteraction(TRADE_PACT, 'a request to generate a reference number');
      await writePact(tmp.dir, 'other', 'trade-finance-back-office', 'payments-service', [interaction]);
      await writePact(tmp.dir, 'trade', 'trade-finance-back-office', 'foreign-trade-service', [interaction]);
      const result = await withService(undefined, (svc) => verifyPacts(options(svc, { pacts: [tmp.dir] })));
      expect(result.interactions.map((i) => [i.provider, i.outcome])).toEqual([
        ['payments-service', 'errored'],
        ['foreign-trade-service', 'passed'],
      ]);
      expect(result.interactions[0]?.mismatches[0]?.message).toMatch(/no base URL for provider "payments-service"/);
    } finally {
      await tmp.remove();
    }
  });

  test('a provider that cannot be reached is errored, not failed', async () => {
    const tmp = await tempDir('pact-unreachable');
    const generate = await committedInteraction(TRADE_PACT, 'a request to generate a reference number');
    const file = await writePact(tmp.dir, 'trade', 'trade-finance-back-office', 'foreign-trade-service', [generate]);
    const result = await verifyPacts({
      pacts: [file],
      baseUrls: { 'customer-service': 'http://127.0.0.1:9/customer-service', 'foreign-trade-service': 'http://127.0.0.1:9/foreign-trade-service' },
      packs: [customerPack],
      token: TOKEN,
      contract,
      timeoutMs: 2_000,
    });
    await tmp.remove();
    expect(result.interactions).toHaveLength(1);
    expect(result.interactions[0]?.outcome, JSON.stringify(result.interactions[0]?.mismatches)).toBe('errored');
    expect(result.output).not.toContain(TOKEN);
  });
});

describe('verifyPacts: secrets', () => {
  test('the token is not in the output, even at log level debug', async () => {
    const result = await withService(undefined, (svc) => verifyPacts(options(svc, { pacts: [TRADE_PACT], logLevel: 'debug' })));
    expect(result.interactions.every((i) => i.outcome === 'passed')).toBe(true);
    expect(result.output).toMatch(/DEBUG/);
    expect(result.output).not.toContain(TOKEN);
  });
});

describe('verifyPacts: Pact Broker', () => {
  test('pacts come from the broker; options pass through; results are published', async () => {
    const brokerToken = `broker-${Math.random().toString(36).slice(2)}`;
    const broker = await startFakeBroker(
      [
        { consumer: 'onboarding-portal', provider: 'customer-service', version: '1.4.0', branch: 'main', pact: await readPact(ONBOARDING_PACT) },
        { consumer: 'trade-finance-back-office', provider: 'foreign-trade-service', version: '2.0.1', branch: 'main', pact: await readPact(TRADE_PACT) },
      ],
      { token: brokerToken },
    );
    try {
      const result = await withService(undefined, (svc) =>
        verifyPacts(
          options(svc, {
            broker: {
              url: broker.url,
              token: brokerToken,
              consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }],
              enablePending: true,
              includeWipPactsSince: '2026-01-01',
              publishVerificationResult: true,
              providerVersion: '3.1.4',
              providerVersionBranch: 'main',
            },
          }),
        ),
      );
      expect(result.interactions).toHaveLength(13);
      expect(result.interactions.filter((i) => i.outcome !== 'passed'), result.output).toEqual([]);
      expect(result.interactions.find((i) => i.description === 'a request to update an address type')).toMatchObject({
        consumer: 'onboarding-portal',
        provider: 'customer-service',
        providerStates: ['an address type exists'],
      });
      const forVerification = broker.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/for-verification'));
      expect(forVerification).toHaveLength(2);
      expect(forVerification[0]?.body).toMatchObject({
        consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }],
        includePendingStatus: true,
        includeWipPactsSince: '2026-01-01',
        providerVersionBranch: 'main',
      });
      expect(broker.requests.every((r) => r.authorization === `Bearer ${brokerToken}`)).toBe(true);
      const published = broker.requests.filter((r) => r.url.endsWith('/verification-results'));
      expect(published.map((r) => (r.body as { success?: boolean; providerApplicationVersion?: string }).providerApplicationVersion)).toEqual([
        '3.1.4',
        '3.1.4',
      ]);
      expect(result.output).not.toContain(TOKEN);
      expect(result.output).not.toContain(brokerToken);
    } finally {
      await broker.close();
    }
  });

  test('a pact given by URL is fetched (with the broker credentials) and verified', async () => {
    const brokerToken = `broker-${Math.random().toString(36).slice(2)}`;
    const broker = await startFakeBroker(
      [{ consumer: 'trade-finance-back-office', provider: 'foreign-trade-service', version: '2.0.1', pact: await readPact(TRADE_PACT) }],
      { token: brokerToken },
    );
    try {
      const url = `${broker.url}/pacts/provider/foreign-trade-service/consumer/trade-finance-back-office/version/2.0.1`;
      const result = await withService(undefined, (svc) => verifyPacts(options(svc, { pacts: [url], broker: { url: broker.url, token: brokerToken } })));
      const fromUrl = result.interactions.filter((i) => i.pactFile === url);
      expect(fromUrl.map((i) => [i.description, i.outcome, i.operationId])).toEqual([
        ['a request to generate a reference number', 'passed', 'get-foreign-trade-reference-number'],
        ['a request to validate a generated reference number', 'passed', 'validate-reference-number'],
        ['a request to validate a reference number that was never issued', 'passed', 'validate-reference-number'],
      ]);
      expect(broker.requests.filter((r) => r.method === 'GET' && r.url.endsWith('/version/2.0.1')).length).toBeGreaterThanOrEqual(2);
    } finally {
      await broker.close();
    }
  });

  test('a broker without pacts for either provider is a PactInputError unless allowNoPacts', async () => {
    const broker = await startFakeBroker([]);
    try {
      await withService(undefined, async (svc) => {
        const error = await verifyPacts(options(svc, { broker: { url: broker.url } })).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PactInputError);
        await expect(verifyPacts(options(svc, { broker: { url: broker.url }, allowNoPacts: true }))).resolves.toMatchObject({
          interactions: [],
        });
      });
    } finally {
      await broker.close();
    }
  });
});

// The committed pacts are JSON; make sure the reader used by the tests agrees with them.
test('committed pacts are V4 pact files', async () => {
  const raw = JSON.parse(await readFile(ONBOARDING_PACT, 'utf8')) as { metadata: { pactSpecification: { version: string } } };
  expect(raw.metadata.pactSpecification.version).toBe('4.0');
});
