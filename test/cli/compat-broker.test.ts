/**
 * `conformance compat` with a Pact Broker: the latest pact of each consumer of the revision's services is fetched
 * (through the Pact broker client, from a fake Broker on 127.0.0.1), checked against the revision as `pact check`
 * does, and used to name the consumers on each breaking change; the same in `run --base-contract` with the Broker
 * named by the environment. A Broker that cannot be reached: exit 2, one line.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { removeTemps, resultsSchemaErrors, ROOT, runCli, startVariant, tempDir } from '../support/runs.ts';
import { startFakeBroker, type BrokerPact, type FakeBroker } from '../pact/fake-broker.ts';
import type { Compatibility } from '../../src/runner/compat/types.ts';

const BASE = join(ROOT, 'contract/customer-service.openapi.yaml');
const BROKER_TOKEN = 'broker-token-7d1e4f';

let broker: FakeBroker;
let onboarding: Record<string, any>;

/** A pact of `consumer` with the onboarding portal's interactions this predicate keeps. */
function pactOf(consumer: string, version: string, keep: (i: any) => boolean): BrokerPact {
  const doc = structuredClone(onboarding);
  doc['consumer'] = { name: consumer };
  doc['interactions'] = (doc['interactions'] as any[]).filter(keep);
  return { consumer, provider: 'customer-service', version, pact: doc };
}

const createsAddressType = (i: any) => i.request.method === 'POST' && i.request.path === '/address-types';
const readsAField = (i: any) => i.request.method === 'GET' && /\/fields\/8a4e/.test(i.request.path);

beforeAll(async () => {
  onboarding = JSON.parse(await readFile(join(ROOT, 'contract/pacts/onboarding-portal-customer-service.json'), 'utf8'));
  broker = await startFakeBroker(
    [
      // address-book once created address types (version 1); its latest pact (version 2) only reads a field.
      pactOf('address-book', '1', (i) => createsAddressType(i) || readsAField(i)),
      pactOf('address-book', '2', readsAField),
      { ...pactOf('onboarding-portal', '7', () => true) },
    ],
    { token: BROKER_TOKEN },
  );
});

afterAll(async () => {
  await broker?.close();
  await removeTemps();
});

/** A revision of the create request: `country` made required (the onboarding portal sends it), or made a string (it sends 90). */
async function revision(change: 'required' | 'string' | 'removed'): Promise<string> {
  const doc = parse(await readFile(BASE, 'utf8'));
  const schema = doc.components.schemas.AddressTypeCreateRequest;
  if (change === 'required') schema.required.push('country');
  else if (change === 'string') schema.properties.country = { type: 'string' };
  else delete schema.properties.country;
  const file = join(await tempDir('compat-broker-'), 'customer-service.openapi.yaml');
  await writeFile(file, stringify(doc));
  return file;
}

async function compat(args: string[], env: Record<string, string> = {}) {
  const run = await runCli(['compat', ...args], { killAfterMs: 90_000, env });
  const text = await readFile(join(run.out, 'compatibility.json'), 'utf8').catch(() => undefined);
  return { run, compat: text ? (JSON.parse(text) as { compatibility: Compatibility }).compatibility : undefined };
}

describe('conformance compat with a Pact Broker', { timeout: 120_000 }, () => {
  test("the latest pact of each consumer: the breaking change names the consumer it breaks, the interaction check reports it", async () => {
    const rev = await revision('string');
    const { run, compat: c } = await compat(['--base', BASE, '--spec', rev, '--broker-url', broker.url, '--broker-token', BROKER_TOKEN]);
    expect(run.code, run.stderr).toBe(1);
    const breaking = c!.changes.filter((x) => x.level === 'breaking');
    // address-book's version 1 also created address types: its latest pact does not, so it is not named.
    expect(breaking.length).toBeGreaterThan(0);
    expect(breaking.map((x) => [x.operation, x.consumers])).toEqual(breaking.map(() => ['POST /address-types', ['onboarding-portal']]));
    expect(c!.pacts).toMatchObject({ consumers: ['address-book', 'onboarding-portal'], checked: onboarding['interactions'].length + 1, broken: 1 });
    expect(c!.pacts!.failures).toHaveLength(1);
    const failure = c!.pacts!.failures[0]!;
    expect(failure).toMatchObject({ consumer: 'onboarding-portal', provider: 'customer-service', interaction: 'a request to create an address type', request: 'POST /address-types', alreadyFailing: false });
    expect(failure.pact).toBe(`${broker.url}/pacts/provider/customer-service/consumer/onboarding-portal/version/7`);
    expect(failure.mismatches.map((m) => m.message).join('\n')).toMatch(/request body: .*country.*string/);
    expect(run.stdout).toMatch(/BROKEN +onboarding-portal: "a request to create an address type" \(POST \/address-types\) no longer holds: request body: .*country/);
    expect(run.stdout).toMatch(/Consumers address-book, onboarding-portal: 11 interaction\(s\) checked against the revision, 1 no longer hold/);
    const junit = await readFile(join(run.out, 'compatibility-junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="compatibility.pact.onboarding-portal" name="a request to create an address type \(POST \/address-types\)"><failure type="pact-interaction-broken"/);
    // The token went to the Broker, never into a report or the console.
    expect(broker.requests.some((r) => r.authorization === `Bearer ${BROKER_TOKEN}`)).toBe(true);
    expect(`${run.stdout}${run.stderr}${JSON.stringify(c)}${junit}`).not.toContain(BROKER_TOKEN);
  });

  test('the Broker from the environment: a change on an operation a consumer calls names it, while its interaction still holds', async () => {
    const rev = await revision('required');
    const { run, compat: c } = await compat(['--base', BASE, '--spec', rev], { PACT_BROKER_BASE_URL: broker.url, PACT_BROKER_TOKEN: BROKER_TOKEN });
    expect(run.code, run.stderr).toBe(1);
    const breaking = c!.changes.filter((x) => x.level === 'breaking');
    expect(breaking.map((x) => [x.rule, x.operation, x.consumers])).toEqual([['request-property-became-required', 'POST /address-types', ['onboarding-portal']]]);
    // The portal sends `country` already: its interaction holds against the revision.
    expect(c!.pacts).toMatchObject({ consumers: ['address-book', 'onboarding-portal'], broken: 0, failures: [] });
    expect(c!.pacts!.checked).toBe(onboarding['interactions'].length + 1);
  });

  test('a change rated a warning that breaks a consumer interaction: breaking, exit 1', async () => {
    const rev = await revision('removed');
    const { run, compat: c } = await compat(['--base', BASE, '--spec', rev, '--broker-url', broker.url, '--broker-token', BROKER_TOKEN]);
    expect(run.code, run.stderr).toBe(1);
    expect(c!.counts.breaking).toBe(0);
    expect(c!.breaking).toBe(true);
    expect(c!.pacts!.failures.map((f) => [f.consumer, f.interaction, f.alreadyFailing])).toEqual([['onboarding-portal', 'a request to create an address type', false]]);
    expect(c!.pacts!.failures[0]!.mismatches.map((m) => m.message).join('\n')).toMatch(/\/country is not declared/);
    expect(run.stdout).toMatch(/BREAKING +0 breaking, 1 warning\(s\), .*1 consumer interaction\(s\) broken/);
  });

  test('the revision equal to the base: every latest interaction holds, exit 0', async () => {
    const { run, compat: c } = await compat(['--base', BASE, '--spec', BASE, '--broker-url', broker.url, '--broker-token', BROKER_TOKEN]);
    expect(run.code, run.stderr).toBe(0);
    expect(c!.pacts).toMatchObject({ broken: 0, failures: [] });
    expect(run.stdout).toMatch(/COMPATIBLE/);
  });

  test('a local pact and the Broker together; a Broker that cannot be reached is a one-line exit 2', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { run } = await compat(['--base', BASE, '--spec', BASE, '--pact', join(ROOT, 'contract/pacts'), '--broker-url', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/the Pact Broker at http:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\)/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // A password written into the URL is not repeated.
    const withPassword = await compat(['--base', BASE, '--spec', BASE, '--broker-url', `http://reader:s3cret-pw@127.0.0.1:${port}`]);
    expect(withPassword.run.code).toBe(2);
    expect(withPassword.run.stderr).toMatch(/the Pact Broker at http:\/\/127\.0\.0\.1:\d+\/? is unreachable/);
    expect(withPassword.run.stderr).not.toContain('s3cret-pw');
  });

  test('credentials the Broker refuses: exit 2, the cause named', async () => {
    const { run } = await compat(['--base', BASE, '--spec', BASE, '--broker-url', broker.url, '--broker-token', 'wrong-token']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/refused the credentials \(401 Unauthorized\)/);
    expect(run.stderr).not.toContain('wrong-token');
  });

  test('run --base-contract with PACT_BROKER_BASE_URL: the latest pacts join the pack\'s own, the broken interaction in results.json', async () => {
    const rev = await revision('string');
    const started = await startVariant({});
    try {
      const { args } = started.target('flag');
      const run = await runCli(
        ['run', '--spec', rev, '--spec', join(ROOT, 'contract/foreign-trade-service.openapi.yaml'), '--base-contract', BASE, '--include', '/caches/refresh', '--quiet', ...args],
        { env: { PACT_BROKER_BASE_URL: broker.url, PACT_BROKER_TOKEN: BROKER_TOKEN }, killAfterMs: 200_000 },
      );
      const c = run.results?.compatibility;
      expect(c, run.stderr).toBeDefined();
      expect(resultsSchemaErrors(run.results)).toEqual([]);
      expect(run.code).toBe(1);
      // The pack's pacts (onboarding-portal, trade-finance-back-office) and the Broker's latest (address-book, onboarding-portal).
      expect(c!.pacts!.consumers).toEqual(['address-book', 'onboarding-portal', 'trade-finance-back-office']);
      expect(c!.pacts!.sources.at(-1)).toBe(`${broker.url} (latest pact of each consumer)`);
      const broken = c!.pacts!.failures.filter((f) => !f.alreadyFailing);
      expect(broken.map((f) => [f.consumer, f.interaction])).toEqual([
        ['onboarding-portal', 'a request to create an address type'],
        ['onboarding-portal', 'a request to create an address type'],
      ]);
      expect(broken.map((f) => f.pact).sort()).toEqual([join(ROOT, 'contract/pacts/onboarding-portal-customer-service.json'), `${broker.url}/pacts/provider/customer-service/consumer/onboarding-portal/version/7`]);
      expect(c!.changes.filter((x) => x.level === 'breaking').every((x) => x.consumers?.join() === 'onboarding-portal')).toBe(true);
      expect(await readFile(join(run.out, 'junit.xml'), 'utf8')).toMatch(/<testcase classname="compatibility.pact.onboarding-portal" name="a request to create an address type \(POST \/address-types\)"[^>]*>\s*<failure[^>]*type="pact-interaction-broken"/);
      const html = await readFile(join(run.out, 'index.html'), 'utf8');
      expect(html).toContain('2 consumer interaction(s) broken');
      expect(html).toMatch(/<td>onboarding-portal<\/td><td>a request to create an address type <span class="sub">POST \/address-types · [^<]*<\/span><\/td><td>no longer holds: request body: \/country must be string/);
      expect(run.stdout).not.toContain(BROKER_TOKEN);
    } finally {
      await started.close();
    }
  }, 240_000);
});
