/**
 * Interoperability: the project's pacts verified by verifiers other than the tool's own (pact-js over the
 * Rust core), against the reference service, with provider states set up only through its state-change
 * endpoint (POST /__reference/pact-states) and ids injected from the states by `fromProviderState`:
 *
 *  - the JVM verifier (pact-jvm's Maven plugin from Maven Central: a separate implementation in Kotlin),
 *    on the V4 pacts as committed;
 *  - the Rust standalone verifier (`pact verifier` from @pact-foundation/pact-cli), on the V3 copies
 *    written by `conformance pact convert` (proving the V3 output is accepted by a verifier).
 *
 * Each must give every interaction the same verdict as `conformance pact verify`, on the correct service
 * and on a faulty one.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACT_STATES_ROUTE, startReferenceService, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';
import { pactCliPath } from '../../src/runner/pact/broker.ts';
import { verifyPacts } from '../../src/runner/pact/verify.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { COMMITTED_PACTS, CONTRACT_FILES, ONBOARDING_PACT, REPO_ROOT, TRADE_PACT, tempDir } from './support.ts';
import { runConformance } from './support-cli.ts';
import { customerPack } from '../../src/packs/customer/index.ts';

const TOKEN = `pact-interop-${Math.random().toString(36).slice(2)}-secret`;
const contract = await loadContract(CONTRACT_FILES);
const POM = path.join(REPO_ROOT, 'test', 'pact', 'jvm-verifier', 'pom.xml');
const PROVIDERS = { 'customer-service': ONBOARDING_PACT, 'foreign-trade-service': TRADE_PACT } as const;
type Provider = keyof typeof PROVIDERS;
type Verdicts = Record<string, 'passed' | 'failed'>;

const mvnAvailable = await promisify(execFile)('mvn', ['--version']).then(
  () => true,
  () => false,
);
if (!mvnAvailable) {
  if (process.env['CI']) throw new Error('mvn is not installed: .ci/run installs maven (the JVM Pact verifier runs through it)');
  console.warn('interop: skipping the JVM verifier: mvn is not installed (apt-get install maven)');
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 400_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function toolVerdicts(svc: ReferenceService): Promise<Verdicts> {
  const result = await verifyPacts({
    pacts: [COMMITTED_PACTS],
    baseUrls: { 'customer-service': svc.customerBaseUrl, 'foreign-trade-service': svc.foreignTradeBaseUrl },
    packs: [customerPack],
    token: TOKEN,
    contract,
    stateChangeUrl: (provider) => `${svc.url}${PACT_STATES_ROUTE}/${provider}`,
  });
  return Object.fromEntries(result.interactions.map((i) => [`${i.provider}: ${i.description}`, i.outcome === 'passed' ? 'passed' : 'failed']));
}

/** pact-jvm's Maven plugin, in a directory of its own (its reports go to <dir>/target/reports/pact). */
async function jvmVerdicts(svc: ReferenceService, providers: Provider[]): Promise<Verdicts> {
  const tmp = await tempDir('pact-jvm');
  try {
    const runs = providers.map(async (provider) => {
      const dir = path.join(tmp.dir, provider);
      await mkdir(path.join(dir, 'pacts'), { recursive: true });
      await copyFile(POM, path.join(dir, 'pom.xml'));
      await copyFile(PROVIDERS[provider], path.join(dir, 'pacts', path.basename(PROVIDERS[provider])));
      const port = new URL(svc.url).port;
      const { output } = await run(
        'mvn',
        [
          '-B',
          '-q',
          '-f',
          path.join(dir, 'pom.xml'),
          'pact:verify',
          `-Dpact.provider=${provider}`,
          `-Dpact.port=${port}`,
          `-Dpact.path=/${provider}`,
          `-Dpact.dir=${path.join(dir, 'pacts')}`,
          `-Dpact.stateChangeUrl=${svc.url}${PACT_STATES_ROUTE}/${provider}`,
        ],
        { ...process.env, CONFORMANCE_TOKEN: TOKEN },
        dir,
      );
      const report = await readFile(path.join(dir, 'target', 'reports', 'pact', `${provider}.json`), 'utf8').catch(() => {
        throw new Error(`the JVM verifier wrote no report for ${provider}:\n${output.slice(-3000)}`);
      });
      const json = JSON.parse(report) as { execution: Array<{ interactions: Array<{ interaction: { description: string }; verification: { result: string } }> }> };
      return json.execution.flatMap((e) =>
        e.interactions.map((i) => [`${provider}: ${i.interaction.description}`, i.verification.result === 'OK' ? 'passed' : 'failed'] as const),
      );
    });
    return Object.fromEntries((await Promise.all(runs)).flat());
  } finally {
    await tmp.remove();
  }
}

/** The Rust standalone verifier on the V3 copies of the pacts. */
async function rustV3Verdicts(svc: ReferenceService): Promise<Verdicts> {
  const tmp = await tempDir('pact-rust-v3');
  try {
    const converted = await runConformance(['pact', 'convert', '--out', tmp.dir]);
    expect(converted.code, converted.stderr).toBe(0);
    const port = new URL(svc.url).port;
    const out: Verdicts = {};
    for (const provider of Object.keys(PROVIDERS) as Provider[]) {
      const file = path.join(tmp.dir, path.basename(PROVIDERS[provider]));
      expect((JSON.parse(await readFile(file, 'utf8')) as { metadata: { pactSpecification: { version: string } } }).metadata.pactSpecification.version).toBe('3.0.0');
      const report = path.join(tmp.dir, `${provider}.report.json`);
      await run(
        pactCliPath(),
        ['verifier', '-f', file, '-h', '127.0.0.1', '-p', port, '--base-path', `/${provider}`, '-n', provider,
          '--state-change-url', `${svc.url}${PACT_STATES_ROUTE}/${provider}`, '--state-change-teardown',
          '-H', `Authorization=Bearer ${TOKEN}`, '--no-colour', '-j', report],
        { ...process.env, PACT_DO_NOT_TRACK: 'true' },
        tmp.dir,
      );
      const json = JSON.parse(await readFile(report, 'utf8')) as { interactionResults: Array<{ description: string; result: string }> };
      for (const r of json.interactionResults) out[`${provider}: ${r.description}`] = r.result === 'OK' ? 'passed' : 'failed';
    }
    return out;
  } finally {
    await tmp.remove();
  }
}

const dropFieldKey: Variant = {
  handlers: {
    'get-address-type-field-by-id': async (_req, next) => {
      const reply = await next();
      if (reply.status !== 200) return reply;
      const { fieldKey: _dropped, ...rest } = reply.body as Record<string, unknown>;
      return { ...reply, body: rest };
    },
  },
};

describe('independent verifiers agree with pact verify', () => {
  let svc: ReferenceService;
  let tool: Verdicts;
  beforeAll(async () => {
    svc = await startReferenceService({ token: TOKEN, port: 0 });
    tool = await toolVerdicts(svc);
  });
  afterAll(async () => svc.close());

  test('the tool passes all 13 interactions through the state-change endpoint', () => {
    expect(Object.keys(tool)).toHaveLength(13);
    expect(Object.entries(tool).filter(([, v]) => v !== 'passed')).toEqual([]);
  });

  test.runIf(mvnAvailable)('the JVM verifier (pact-jvm) gives every interaction the same verdict', { timeout: 600_000 }, async () => {
    expect(await jvmVerdicts(svc, ['customer-service', 'foreign-trade-service'])).toEqual(tool);
  });

  test('the Rust standalone verifier on the V3 pacts gives every interaction the same verdict', { timeout: 300_000 }, async () => {
    expect(await rustV3Verdicts(svc)).toEqual(tool);
  });
});

describe('on a faulty deployment the verifiers fail the same interaction', () => {
  let svc: ReferenceService;
  beforeAll(async () => {
    svc = await startReferenceService({ token: TOKEN, port: 0, variant: dropFieldKey });
  });
  afterAll(async () => svc.close());

  test.runIf(mvnAvailable)('a field missing from one response: the tool and the JVM verifier fail it, and only it', { timeout: 600_000 }, async () => {
    const tool = await toolVerdicts(svc);
    const failed = Object.entries(tool).filter(([, v]) => v === 'failed').map(([k]) => k);
    expect(failed).toEqual(['customer-service: a request for one field of an address type']);
    const jvm = await jvmVerdicts(svc, ['customer-service']);
    const toolCustomer = Object.fromEntries(Object.entries(tool).filter(([k]) => k.startsWith('customer-service: ')));
    expect(jvm).toEqual(toolCustomer);
  });
});
