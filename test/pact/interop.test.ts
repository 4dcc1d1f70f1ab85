/**
 * Interoperability: the project's pacts verified by the Rust standalone verifier (`pact verifier` from
 * @pact-foundation/pact-cli, which npm ci brings) on the V3 copies written by `conformance pact convert`
 * (proving the V3 output is accepted by a verifier), against the reference service, with provider states set
 * up only through its state-change endpoint (POST /__reference/pact-states) and ids injected from the states
 * by `fromProviderState`. It must give every interaction the same verdict as `conformance pact verify`.
 * The JVM verifier (pact-jvm, from Maven Central) is interop-jvm.test.ts, in `npm run test:apps`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACT_STATES_ROUTE, startReferenceService, type ReferenceService } from '../../src/reference-service/index.ts';
import { pactCliPath } from '../../src/runner/pact/broker.ts';
import { tempDir } from './support.ts';
import { runConformance } from './support-cli.ts';
import { PROVIDERS, run, TOKEN, toolVerdicts, type Provider, type Verdicts } from './interop-support.ts';

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

describe('an independent verifier agrees with pact verify', () => {
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

  test('the Rust standalone verifier on the V3 pacts gives every interaction the same verdict', { timeout: 300_000 }, async () => {
    expect(await rustV3Verdicts(svc)).toEqual(tool);
  });
});
