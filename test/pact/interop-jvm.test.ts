/**
 * Interoperability with the JVM verifier (pact-jvm's Maven plugin from Maven Central: a separate
 * implementation in Kotlin), on the V4 pacts as committed, against the reference service with provider
 * states set up only through its state-change endpoint: it must give every interaction the same verdict as
 * `conformance pact verify`, on the correct service and on a faulty one. Maven fetches the plugin on first
 * use, so this file is part of `npm run test:apps`; .ci/run installs Maven and warms the plugin up.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACT_STATES_ROUTE, startReferenceService, type ReferenceService } from '../../src/reference-service/index.ts';
import { REPO_ROOT, tempDir } from './support.ts';
import { dropFieldKey, PROVIDERS, run, TOKEN, toolVerdicts, type Provider, type Verdicts } from './interop-support.ts';

const POM = path.join(REPO_ROOT, 'test', 'pact', 'jvm-verifier', 'pom.xml');
const mvnAvailable = await promisify(execFile)('mvn', ['--version']).then(
  () => true,
  () => false,
);
if (!mvnAvailable) {
  if (process.env['CI']) throw new Error('mvn is not installed: .ci/run installs maven (the JVM Pact verifier runs through it)');
  console.warn('interop: skipping the JVM verifier: mvn is not installed (apt-get install maven)');
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

describe.runIf(mvnAvailable)('the JVM verifier agrees with pact verify', () => {
  test('the JVM verifier (pact-jvm) gives every interaction the same verdict', { timeout: 600_000 }, async () => {
    const svc = await startReferenceService({ token: TOKEN, port: 0 });
    try {
      const tool = await toolVerdicts(svc);
      expect(Object.keys(tool)).toHaveLength(13);
      expect(await jvmVerdicts(svc, ['customer-service', 'foreign-trade-service'])).toEqual(tool);
    } finally {
      await svc.close();
    }
  });
});

describe.runIf(mvnAvailable)('on a faulty deployment the verifiers fail the same interaction', () => {
  let svc: ReferenceService;
  beforeAll(async () => {
    svc = await startReferenceService({ token: TOKEN, port: 0, variant: dropFieldKey });
  });
  afterAll(async () => svc.close());

  test('a field missing from one response: the tool and the JVM verifier fail it, and only it', { timeout: 600_000 }, async () => {
    const tool = await toolVerdicts(svc);
    const failed = Object.entries(tool).filter(([, v]) => v === 'failed').map(([k]) => k);
    expect(failed).toEqual(['customer-service: a request for one field of an address type']);
    const jvm = await jvmVerdicts(svc, ['customer-service']);
    const toolCustomer = Object.fromEntries(Object.entries(tool).filter(([k]) => k.startsWith('customer-service: ')));
    expect(jvm).toEqual(toolCustomer);
  });
});
