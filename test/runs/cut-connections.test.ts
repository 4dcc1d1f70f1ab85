/**
 * The Customer contract on a deployment whose DELETE of an address type crashes on an id that is not a uuid (the
 * handler fails before it answers, and the connection is cut: what Go's net/http or Rust's hyper do when a handler
 * panics). The deployment is the reference service behind a proxy that cuts those requests. The crash is found on
 * delete-address-type by connection-dropped (cut again when sent alone), naming path.id, and nothing else is
 * blamed; the same proxy passing
 * every request leaves the run CONFORMANT.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { DESCRIBED, operation, removeTemps, requireResults, runCli, startVariant, summary, TOKEN } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const RUN_TIMEOUT = 240_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A proxy to `target`; with `crash`, a DELETE of /address-types/{id} whose id is not a uuid has its connection cut. */
async function proxy(target: string, crash: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new Pool(target, { connections: 16 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const id = /^\/customer-service\/address-types\/([^/]+)$/.exec(path)?.[1];
      if (crash && req.method === 'DELETE' && id !== undefined && !UUID.test(decodeLeniently(id))) {
        req.socket.destroy();
        return;
      }
      const headers = { ...req.headers };
      delete headers['host'];
      delete headers['connection'];
      upstream
        .request({ path: req.url ?? '/', method: req.method as 'GET', headers, body: chunks.length > 0 ? Buffer.concat(chunks) : null })
        .then(async (answer) => {
          const body = Buffer.from(await answer.body.arrayBuffer());
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding'].includes(k)) out[k] = v;
          res.writeHead(answer.statusCode, out).end(body);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
    },
  };
}

async function run(crash: boolean): Promise<RunResults> {
  const started = await startVariant();
  const front = await proxy(started.svc.url, crash);
  try {
    const r = await runCli([
      '--base-url', `${front.url}/customer-service`,
      '--foreign-trade-base-url', `${front.url}/foreign-trade-service`,
      '--allow-irreversible',
      '--otp-source-url', `${started.svc.url}/__reference/otp/{transactionId}`,
      '--token', TOKEN, '--seed', '1', '--quiet',
    ]);
    return requireResults(r);
  } finally {
    await front.close();
    await started.close();
  }
}

describe('a deployment that cuts the connection of the requests its handler crashes on', () => {
  test(
    'found on delete-address-type as connection-dropped naming path.id; every other operation passes',
    async () => {
      const results = await run(true);
      const op = operation(results, 'delete-address-type');
      expect(op.outcome, summary(results).join('\n')).toBe('failed');
      const cut = op.cases.flatMap((c) => c.findings).filter((f) => f.check === 'connection-dropped' && f.severity === 'error');
      expect(cut.length).toBeGreaterThan(0);
      expect(op.cases.flatMap((c) => c.findings).filter((f) => f.check === 'not-a-server-error')).toEqual([]);
      expect(cut.every((f) => /closed the connection without an answer/.test(f.message))).toBe(true);
      expect(cut.map((f) => f.varied)).toContain('path.id');
      for (const id of DESCRIBED.filter((d) => d !== 'delete-address-type')) expect(operation(results, id).outcome, `${id}\n${summary(results).join('\n')}`).toBe('passed');
    },
    RUN_TIMEOUT,
  );

  test(
    'the same proxy passing every request: CONFORMANT, no server error',
    async () => {
      const results = await run(false);
      expect(results.verdict, summary(results).join('\n')).toBe('conformant');
      for (const id of DESCRIBED) expect(operation(results, id).outcome, id).toBe('passed');
    },
    RUN_TIMEOUT,
  );
});
