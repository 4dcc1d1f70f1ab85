/**
 * Memory that does not grow with the contract: the scheduler plans an operation only when it reaches it and
 * lets its plan go once its cases have started, and the session lets go of an operation's presence probe and
 * shared fixture once its cases are done. Proven on a synthetic contract of a few hundred operations (the
 * address-type operations repeated) against an in-process server whose every answer is a large JSON body:
 * whatever the run kept per operation would show as hundreds of those bodies on the heap.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunConfig } from '../../src/runner/execute/config.ts';
import type { CaseResult } from '../../src/runner/model.ts';
import { schedule } from '../../src/runner/execute/scheduler.ts';
import { Session } from '../../src/runner/execute/session.ts';
import { planOperation, type OperationPlan } from '../../src/runner/plan/cases.ts';
import { loadExamples } from '../../src/runner/description/examples.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfiles, profileFor } from '../../src/runner/description/profiles.ts';
import { syntheticContract } from '../../bench/synthetic-contract.ts';
import { removeTemps, ROOT, tempDir } from '../support/runs.ts';

const OPERATIONS = 240;
const CONCURRENCY = 8;
/** Every answer: a JSON object of about this many bytes (recorded as text and as parsed JSON). */
const BODY_BYTES = 256 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: Server;
/** The session stays referenced until the heap is measured after the run. */
let kept: unknown;
let baseUrl = '';
let specFile = '';


beforeAll(async () => {
  const body = JSON.stringify({ padding: 'x'.repeat(BODY_BYTES) });
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/customer-service`;
  specFile = join(await tempDir(), 'synthetic.openapi.yaml');
  writeFileSync(specFile, syntheticContract(OPERATIONS));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await removeTemps();
});

/** The run configuration of these tests: generated cases only (no examples or fuzzing beyond the classes). */
function runConfig(spec: string, baseUrl: string, runId: string): RunConfig {
  return {
    contractFiles: [spec],
    profileFile: join(ROOT, 'contract/profile.yaml'),
    examplesFile: join(ROOT, 'contract/examples.yaml'),
    baseUrls: { 'customer-service': baseUrl },
    token: 'memory-bound-token',
    timeoutMs: 10_000,
    concurrency: CONCURRENCY,
    bodyCapBytes: 1024 * 1024,
    readOnly: false,
    allowIrreversible: true,
    seed: 1,
    maxExamples: 0,
    fuzzExamples: 0,
    include: [],
    exclude: [],
    runId,
  };
}

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

describe('memory of a run does not grow with its operations', () => {
  test(
    `${OPERATIONS} operations answering ${BODY_BYTES / 1024} KiB each: operations are planned as they are reached, and nothing of a finished operation stays on the heap`,
    async () => {
      const contract = await loadContract([specFile]);
      expect(contract.operations).toHaveLength(OPERATIONS);
      const profiles = await loadProfiles(join(ROOT, 'contract/profile.yaml'), contract);
      const examples = await loadExamples(join(ROOT, 'contract/examples.yaml'));
      const config = runConfig(specFile, baseUrl, 'memory-bound');
      const session = Session.from(config, contract, profiles, examples);
      kept = session;
      const options = { seed: 1, readOnly: false, allowIrreversible: true, otpSource: false, maxExamples: 0, fuzzExamples: 0 };
      let planned = 0;
      let done = 0;
      let mostAhead = 0;
      const plans = (function* (): Generator<OperationPlan> {
        for (const op of contract.operations) {
          planned++;
          yield planOperation(contract, op, profileFor(profiles, op.service), examples, options);
        }
      })();

      const before = heapMiB();
      let cases = 0;
      let answered = 0;
      const outcome = await schedule(session, plans, CONCURRENCY, {
        onCase: (_operationId, _index, result) => {
          cases++;
          if (result.exchanges.some((e) => (e.response?.size ?? 0) >= BODY_BYTES)) answered++;
          // Operations planned but not finished: never more than those whose cases are in flight.
          mostAhead = Math.max(mostAhead, planned - done);
        },
        onOperationDone: () => void done++,
      }).done;
      // The session is still referenced here: whatever it kept of the finished operations is counted.
      const grown = heapMiB() - before;
      expect(kept).toBe(session);

      expect(outcome.interrupted).toBe(false);
      expect(done).toBe(OPERATIONS);
      expect(answered).toBeGreaterThan(OPERATIONS);
      expect(mostAhead).toBeLessThanOrEqual(CONCURRENCY + 1);
      // One presence probe kept per operation would alone be OPERATIONS x (body text + parsed JSON) = 120 MiB.
      const perOperationBodies = (OPERATIONS * 2 * BODY_BYTES) / 1024 / 1024;
      expect(grown).toBeLessThan(perOperationBodies / 4);
      expect(cases).toBeGreaterThan(OPERATIONS * 3);
    },
    180_000,
  );
});

describe('what a case keeps of a megabyte answer is what a report shows of it', () => {
  test('cases kept from answers of a megabyte that break their schema hold their 64 KiB of evidence, not the answers', async () => {
    // Every answer: a megabyte of JSON (under the body cap) whose fields have the wrong type, so every case keeps findings and evidence.
    const big = JSON.stringify({ id: 12345, name: 67890, padding: 'y'.repeat(1000 * 1000) });
    const bigServer = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(big));
    });
    await new Promise<void>((resolve) => bigServer.listen(0, '127.0.0.1', resolve));
    try {
      const spec = join(await tempDir(), 'synthetic-8.openapi.yaml');
      writeFileSync(spec, syntheticContract(8));
      const contract = await loadContract([spec]);
      const profiles = await loadProfiles(join(ROOT, 'contract/profile.yaml'), contract);
      const examples = await loadExamples(join(ROOT, 'contract/examples.yaml'));
      const config = runConfig(spec, `http://127.0.0.1:${(bigServer.address() as AddressInfo).port}/customer-service`, 'memory-bound-large');
      const options = { seed: 1, readOnly: false, allowIrreversible: true, otpSource: false, maxExamples: 0, fuzzExamples: 0 };
      const plans = contract.operations.map((op) => planOperation(contract, op, profileFor(profiles, op.service), examples, options));
      const before = heapMiB();
      const results: CaseResult[] = [];
      await schedule(Session.from(config, contract, profiles, examples), plans, CONCURRENCY, { onCase: (_id, _index, result) => void results.push(result) }).done;
      const grown = heapMiB() - before;
      const withEvidence = results.filter((r) => r.exchanges.some((e) => e.response?.truncated && e.response.size > 1000 * 1000));
      const withFindings = results.filter((r) => r.findings.some((f) => f.check === 'response-schema-conformance'));
      expect(withEvidence.length).toBeGreaterThan(20);
      expect(withFindings.length).toBeGreaterThan(5);
      // The evidence is there, cut: the body's start, its real size, and the finding's value bounded.
      const shown = withEvidence[0]!.exchanges.find((e) => e.response?.truncated)!.response!;
      expect(shown.body.startsWith('{"id":12345')).toBe(true);
      expect(shown.body.length).toBeLessThanOrEqual(64 * 1024);
      for (const r of withFindings) for (const f of r.findings) expect(JSON.stringify(f.actual ?? null).length).toBeLessThan(20 * 1024);
      // Each kept case holding its answer (text, a slice's parent, parsed JSON) would be megabytes per case.
      expect(grown).toBeLessThan((withEvidence.length * 1) / 4 + 16);
    } finally {
      bigServer.closeAllConnections();
      await new Promise<void>((resolve) => bigServer.close(() => resolve()));
    }
  }, 120_000);
});

