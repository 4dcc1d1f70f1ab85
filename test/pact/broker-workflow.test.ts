/**
 * The Pact Broker workflow against a fake broker that answers the Broker's HAL resources (fake-broker.ts):
 * consumer pacts published → provider verification from the broker with selectors, results published →
 * can-i-deploy says yes; a failing verification makes can-i-deploy say no (exit 1); each broker failure
 * gives its own one-line message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceService } from '../../src/reference-service/index.ts';
import { BrokerError, canIDeploy, publishPacts, recordDeployment } from '../../src/runner/pact/broker.ts';
import { verifyPacts } from '../../src/runner/pact/verify.ts';
import { startFakeBroker, type FakeBroker } from './fake-broker.ts';
import { COMMITTED_PACTS, committedInteraction, ONBOARDING_PACT, readPact, tempDir, TRADE_PACT, writePact } from './support.ts';
import { cleanEnv, runConformance } from './support-cli.ts';
import { customerPack } from '../../src/packs/customer/index.ts';

const BROKER_TOKEN = `broker-${Math.random().toString(36).slice(2)}-secret`;

describe('publish → verify from the broker → can-i-deploy (the CLI, as a pipeline runs it)', () => {
  let broker: FakeBroker;
  const env = () => cleanEnv({ PACT_BROKER_BASE_URL: broker.url, PACT_BROKER_TOKEN: BROKER_TOKEN });
  beforeAll(async () => {
    broker = await startFakeBroker([], { token: BROKER_TOKEN });
  });
  afterAll(async () => broker.close());

  test('a consumer version whose pacts the deployed provider verified can be deployed', { timeout: 300_000 }, async () => {
    const publish = await runConformance(['pact', 'publish', COMMITTED_PACTS, '--consumer-app-version', 'c1', '--branch', 'main', '--tag', 'dev'], env());
    expect(publish.stderr).toBe('');
    expect(publish.code).toBe(0);
    expect(publish.stdout).toContain('Published 2 pact(s)');
    expect(broker.pacts.map((p) => [p.consumer, p.provider, p.version, p.branch, p.tags]).sort()).toEqual([
      ['onboarding-portal', 'customer-service', 'c1', 'main', ['dev']],
      ['trade-finance-back-office', 'foreign-trade-service', 'c1', 'main', ['dev']],
    ]);
    // The client adds its own version to the metadata; the interactions are published as written.
    expect(broker.pacts.find((p) => p.consumer === 'onboarding-portal')?.pact['interactions']).toEqual((await readPact(ONBOARDING_PACT)).interactions);
    const published = broker.requests.find((r) => r.url === '/contracts/publish');
    expect(published?.authorization).toBe(`Bearer ${BROKER_TOKEN}`);
    expect(published?.body).toMatchObject({ pacticipantVersionNumber: 'c1', branch: 'main', tags: ['dev'] });

    const reports = await tempDir('pact-broker-report');
    const verify = await runConformance(
      ['pact', 'verify', '--broker-url', broker.url, '--consumer-version-selectors', '[{"mainBranch":true}]', '--publish-verification-results',
        '--provider-version', 'p1', '--provider-branch', 'main', '--quiet', '--out', reports.dir],
      env(),
    ).finally(() => reports.remove());
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toContain('Pact verify: 13 interactions, 13 passed, 0 failed');
    expect(broker.verifications).toHaveLength(2);
    expect(broker.verifications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ consumer: 'onboarding-portal', consumerVersion: 'c1', provider: 'customer-service', providerVersion: 'p1', success: true }),
        expect.objectContaining({ consumer: 'trade-finance-back-office', consumerVersion: 'c1', provider: 'foreign-trade-service', providerVersion: 'p1', success: true }),
      ]),
    );

    for (const provider of ['customer-service', 'foreign-trade-service']) {
      const recorded = await runConformance(['pact', 'record-deployment', '--pacticipant', provider, '--pacticipant-version', 'p1', '--environment', 'production'], env());
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(recorded.stdout).toBe(`Recorded the deployment of ${provider} p1 to production\n`);
    }
    expect(broker.deployments).toEqual([
      { pacticipant: 'customer-service', version: 'p1', environment: 'production' },
      { pacticipant: 'foreign-trade-service', version: 'p1', environment: 'production' },
    ]);

    const can = await runConformance(['pact', 'can-i-deploy', '--pacticipant', 'onboarding-portal', '--pacticipant-version', 'c1', '--to-environment', 'production'], env());
    expect(can.code, can.stderr).toBe(0);
    expect(can.stdout).toMatch(/^can-i-deploy onboarding-portal c1 to production: yes: /);
    expect(can.stdout).toContain('verified   onboarding-portal c1 → customer-service p1');
    expect(`${publish.stdout}${verify.stdout}${can.stdout}`).not.toContain(BROKER_TOKEN);
  });

  test('a consumer version whose pact the deployed provider fails cannot be deployed (exit 1)', { timeout: 300_000 }, async () => {
    const tmp = await tempDir('pact-broker-c2');
    try {
      const create = await committedInteraction(ONBOARDING_PACT, 'a request to create an address type');
      (create['response'] as Record<string, unknown>)['status'] = 201; // the provider answers 200
      await writePact(tmp.dir, 'onboarding-portal-customer-service', 'onboarding-portal', 'customer-service', [create]);
      const connection = { url: broker.url, token: BROKER_TOKEN };
      await publishPacts({ broker: connection, files: [`${tmp.dir}/onboarding-portal-customer-service.json`], consumerVersion: 'c2', branch: 'feature-201' });

      const svc = await startReferenceService({ token: 'reference-token', port: 0 });
      try {
        const result = await verifyPacts({
          baseUrls: { 'customer-service': svc.customerBaseUrl, 'foreign-trade-service': svc.foreignTradeBaseUrl },
          packs: [customerPack],
          token: 'reference-token',
          broker: {
            url: broker.url,
            token: BROKER_TOKEN,
            consumerVersionSelectors: [{ branch: 'feature-201' }],
            publishVerificationResult: true,
            providerVersion: 'p1',
          },
        });
        expect(result.interactions.map((i) => [i.description, i.outcome])).toEqual([['a request to create an address type', 'failed']]);
      } finally {
        await svc.close();
      }
      expect(broker.verifications.at(-1)).toMatchObject({ consumer: 'onboarding-portal', consumerVersion: 'c2', providerVersion: 'p1', success: false });
      // The provider version that failed is the one in production.
      await recordDeployment({ broker: connection, pacticipant: 'customer-service', version: 'p1', environment: 'production' });

      const can = await runConformance(['pact', 'can-i-deploy', '--pacticipant', 'onboarding-portal', '--pacticipant-version', 'c2', '--to-environment', 'production'], env());
      expect(can.code).toBe(1);
      expect(can.stderr).toBe('');
      expect(can.stdout).toMatch(/^can-i-deploy onboarding-portal c2 to production: no: /);
      expect(can.stdout).toContain('FAILED     onboarding-portal c2 → customer-service p1');
    } finally {
      await tmp.remove();
    }
  });
});

describe('broker failures: one line naming the cause', () => {
  let tokenBroker: FakeBroker;
  let forbidden: FakeBroker;
  let notABroker: FakeBroker;
  let refusedUrl: string;
  beforeAll(async () => {
    tokenBroker = await startFakeBroker(
      [{ consumer: 'trade-finance-back-office', provider: 'foreign-trade-service', version: '2.0.1', branch: 'main', pact: await readPact(TRADE_PACT) }],
      { token: BROKER_TOKEN },
    );
    forbidden = await startFakeBroker([], { status: 403 });
    notABroker = await startFakeBroker([], { status: 404 });
    // A port nothing listens on: bind one, note it, close it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    refusedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  afterAll(async () => {
    await Promise.all([tokenBroker.close(), forbidden.close(), notABroker.close()]);
  });

  const ask = (url: string, token?: string) =>
    canIDeploy({ broker: { url, ...(token ? { token } : {}) }, pacticipant: 'trade-finance-back-office', version: '2.0.1' }).then(
      () => 'no error',
      (e: unknown) => (e instanceof BrokerError ? e.message : `not a BrokerError: ${String(e)}`),
    );

  test('unreachable, 401, 403, TLS and not found each say so', async () => {
    const messages = {
      unreachable: await ask(refusedUrl),
      unauthorized: await ask(tokenBroker.url, 'wrong-token'),
      forbidden: await ask(forbidden.url),
      tls: await ask(tokenBroker.url.replace('http:', 'https:'), BROKER_TOKEN),
      notFound: await ask(notABroker.url),
    };
    expect(messages).toEqual({
      unreachable: `can-i-deploy: the Pact Broker at ${refusedUrl} is unreachable (ECONNREFUSED)`,
      unauthorized: `can-i-deploy: the Pact Broker at ${tokenBroker.url} refused the credentials (401 Unauthorized): check --broker-token or --broker-username/--broker-password`,
      forbidden: `can-i-deploy: the Pact Broker at ${forbidden.url} denied access (403 Forbidden): the credentials lack permission`,
      tls: expect.stringMatching(/^can-i-deploy: TLS with the Pact Broker at https:\/\/127\.0\.0\.1:\d+ failed \(\S+\)$/) as unknown as string,
      notFound: `can-i-deploy: the Pact Broker at ${notABroker.url} was not found (404): the URL is not a Pact Broker's base URL`,
    });
    for (const message of Object.values(messages)) expect(message).not.toContain('\n');
    expect(JSON.stringify(messages)).not.toContain(BROKER_TOKEN);
  });

  test('a version the broker does not know is named as not found', async () => {
    const error = await recordDeployment({
      broker: { url: tokenBroker.url, token: BROKER_TOKEN },
      pacticipant: 'trade-finance-back-office',
      version: '9.9.9',
      environment: 'production',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as Error).message).toBe('record-deployment: /pacticipants/trade-finance-back-office/versions/9.9.9 not found at the Pact Broker (404)');
  });

  test('pact verify: an unreachable broker and a 401 are not "no pacts found"', async () => {
    const svc = await startReferenceService({ token: 'reference-token', port: 0 });
    try {
      const verify = (url: string, token?: string) =>
        verifyPacts({
          baseUrls: { 'customer-service': svc.customerBaseUrl, 'foreign-trade-service': svc.foreignTradeBaseUrl },
          packs: [customerPack],
          token: 'reference-token',
          broker: { url, ...(token ? { token } : {}) },
        }).then(
          () => 'no error',
          (e: unknown) => (e instanceof BrokerError ? e.message : `not a BrokerError: ${String(e)}`),
        );
      expect(await verify(refusedUrl)).toBe(`pact verify: the Pact Broker at ${refusedUrl} is unreachable (ECONNREFUSED)`);
      expect(await verify(tokenBroker.url, 'wrong-token')).toMatch(/^pact verify: the Pact Broker at \S+ refused the credentials \(401 Unauthorized\)/);
    } finally {
      await svc.close();
    }
  });

  test('the CLI prints the one line and exits 2; publish needs a broker and a consumer version', async () => {
    const publish = await runConformance(['pact', 'publish', '--broker-url', refusedUrl, '--consumer-app-version', 'c1']);
    expect(publish.code).toBe(2);
    expect(publish.stderr).toBe(`conformance: publish: the Pact Broker at ${refusedUrl} is unreachable (ECONNREFUSED)\n`);
    const noBroker = await runConformance(['pact', 'can-i-deploy', '--pacticipant', 'x', '--pacticipant-version', '1']);
    expect(noBroker.code).toBe(2);
    expect(noBroker.stderr).toBe('conformance: no Pact Broker: pass --broker-url or set PACT_BROKER_BASE_URL\n');
  });
});
