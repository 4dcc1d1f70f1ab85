/**
 * Reports grow by a bounded number of bytes per operation. The CLI runs a synthetic contract (the address-type
 * operations repeated under /s<k>/, as the benchmark makes them) of two sizes against an in-process server that
 * answers 200 `{}` to everything (failed creates, untested reads: setup finds no id) and one that answers 404
 * (every operation missing); the difference between the two sizes, per added operation, is pinned for each
 * report file. Bytes, not time.
 */
import { statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { syntheticContract } from '../../bench/synthetic-contract.ts';
import { removeTemps, runCli, tempDir, TOKEN } from '../support/runs.ts';

const FILES = ['results.json', 'junit.xml', 'index.html'] as const;
type File = (typeof FILES)[number];


function stub(status: number, body: string, type: string): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': type }).end(body));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await removeTemps();
});

async function sizes(server: Server, n: number, extra: string[]): Promise<Record<File, number>> {
  const spec = join(await tempDir(), `syn-${n}.yaml`);
  writeFileSync(spec, syntheticContract(n));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/customer-service`;
  const run = await runCli(['--spec', spec, '--include', 'customer-service', '--base-url', base, '--token', TOKEN, '--quiet', '--seed', '1', ...extra]);
  // Every operation missing: the run stops on "the base URL is probably wrong" (exit 2), with its reports.
  expect(run.code, run.stderr).toBe(extra.includes('--allow-irreversible') ? 1 : 2);
  expect(run.results?.operations.filter((o) => o.outcome !== 'not-described')).toHaveLength(n);
  return Object.fromEntries(FILES.map((f) => [f, statSync(join(run.out, f)).size])) as Record<File, number>;
}

/**
 * Bytes per added operation, per file, at most. The runs behind them: against 200 `{}` every operation fails
 * (no auth enforced, invalid input accepted, answers without the documented fields: each failing case keeps its
 * own findings and curl line; a response defect many cases saw is shown once, with its count); against 404
 * every operation is missing or answers like an unknown route (its cases skipped with a short reason). Against
 * 200 `{}` each path also serves TRACE (a warning, with its exchange as evidence: about 1.7 KB more per operation
 * in results.json and in junit.xml, 250 bytes in the compressed HTML), and takes input of each kind of the
 * lenient tier (a warning per kind with its evidence, counted apart as accepted leniently: about 4.9 KB more in
 * results.json, 3.9 KB in junit.xml, 1 KB in the HTML). A finding whose case's exchanges were left out names the
 * request that showed it (method, URL, status: about 3.2 KB more in results.json). A DELETE has a coverage case
 * of its own, each request asks for the declared media types and once for an undeclared one, and a malformed
 * Content-Type is sent (about 0.7 KB more in results.json and in junit.xml).
 */
const BOUNDS: Record<'ok' | 'missing', Record<File, number>> = {
  ok: { 'results.json': 19000, 'junit.xml': 14000, 'index.html': 3700 },
  missing: { 'results.json': 1950, 'junit.xml': 1250, 'index.html': 700 },
};

/** 10 MB of reports at 2,770 operations: the three files together, per operation (held by the all-missing run). */
const TEN_MB_AT_2770 = Math.floor(10_000_000 / 2770);

describe('bytes per operation of each report', () => {
  test.each([
    ['ok', 200, '{}', 'application/json', ['--allow-irreversible']],
    ['missing', 404, 'Not Found', 'text/plain', []],
  ] as const)(
    'against a server answering %s: each report grows by a bounded number of bytes per operation',
    async (name, status, body, type, extra) => {
      const server = await stub(status, body, type);
      servers.push(server);
      // Both sizes are large runs (over 200 operations): the HTML renders details in the browser. They differ by
      // ten whole copies of the 8-operation group, so the difference per added operation is that of whole copies.
      const [small, large] = [201, 281];
      const a = await sizes(server, small, [...extra]);
      const b = await sizes(server, large, [...extra]);
      const perOperation = Object.fromEntries(FILES.map((f) => [f, Math.round((b[f] - a[f]) / (large - small))])) as Record<File, number>;
      console.log(`${name}: bytes per operation ${JSON.stringify(perOperation)}; at ${large} operations ${JSON.stringify(b)}`);
      for (const f of FILES) expect(perOperation[f], f).toBeLessThanOrEqual(BOUNDS[name][f]);
      if (name === 'missing') expect(FILES.reduce((n, f) => n + perOperation[f], 0)).toBeLessThanOrEqual(TEN_MB_AT_2770);
    },
    300_000,
  );
});
