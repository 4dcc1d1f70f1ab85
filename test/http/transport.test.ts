/**
 * Requests sent on a worker thread (transport.ts): many at once each come back with their own answer, a thread
 * that dies ends its requests as errors (never a hang, never a result for what was not answered), the secrets stay
 * out of what is recorded, an idle thread keeps no process alive, and a run of many operations sends on the thread
 * while a small one does not.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HttpClient } from '../../src/runner/http/client.ts';
import { defaultClientOptions } from '../../src/runner/http/client-options.ts';
import { WorkerTransport } from '../../src/runner/http/transport.ts';
import { GatewayClient } from '../../src/runner/http/gateway-client.ts';
import { Session, WORKER_FROM_OPERATIONS } from '../../src/runner/execute/session.ts';
import type { RunConfig } from '../../src/runner/execute/config.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { syntheticContract } from '../../bench/synthetic-contract.ts';
import { removeTemps, ROOT, tempDir } from '../support/runs.ts';
import { json, startHttp, type TestServer } from './servers.ts';

let server: TestServer;
const held: Array<() => void> = [];

beforeAll(async () => {
  server = await startHttp((req, res, body) => {
    if (req.url === '/hold') return void held.push(() => json(res, 200, { held: true }));
    // Each answer names its request, so a mix-up between requests in flight would show.
    setTimeout(() => json(res, 200, { path: req.url, body }), Math.floor(Math.random() * 5));
  });
});

afterAll(async () => {
  for (const release of held.splice(0)) release();
  await server.close();
  await removeTemps();
});

function workerClient(secrets: string[] = []): { client: HttpClient; transport: WorkerTransport } {
  const transport = new WorkerTransport({ client: defaultClientOptions('', ''), pool: { timeoutMs: 10_000, connections: 8 } });
  return { client: new HttpClient({ timeoutMs: 10_000, bodyCapBytes: 1 << 20, connections: 8, secrets, transport }), transport };
}

describe('a worker thread', () => {
  test('500 requests at once: each answer comes back to its own request', async () => {
    const { client } = workerClient();
    try {
      const all = await Promise.all(
        Array.from({ length: 500 }, (_, i) => client.send({ method: 'POST', url: `${server.url}/r/${i}`, headers: { 'content-type': 'application/json' }, body: `{"n":${i}}` })),
      );
      all.forEach((e, i) => {
        expect(e.error).toBeUndefined();
        expect(e.response?.json).toEqual({ path: `/r/${i}`, body: `{"n":${i}}` });
      });
    } finally {
      await client.close();
    }
  });

  test('a thread that dies ends its requests in flight and every later one as errors naming it', async () => {
    const { client, transport } = workerClient();
    try {
      expect((await client.send({ method: 'GET', url: `${server.url}/first`, headers: {} })).response?.status).toBe(200);
      const pending = client.send({ method: 'GET', url: `${server.url}/hold`, headers: {} });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await (transport as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      const ended = await pending;
      expect(ended.response).toBeUndefined();
      expect(ended.error).toEqual({ kind: 'other', message: 'the request thread exited (code 1)' });
      const later = await client.send({ method: 'GET', url: `${server.url}/later`, headers: {} });
      expect(later.response).toBeUndefined();
      expect(later.error?.message).toBe('the request thread exited (code 1)');
    } finally {
      await client.close();
      for (const release of held.splice(0)) release();
    }
  });

  test('the token is sent, and is out of what is recorded (request and the answer that echoes it)', async () => {
    const token = 'thread-secret-token-0123456789';
    const { client } = workerClient([token]);
    try {
      const before = server.seen.length;
      const echoed = await client.send({ method: 'GET', url: `${server.url}/echo?t=${token}`, headers: { authorization: `Bearer ${token}` } });
      expect(server.seen.slice(before).map((h) => h.authorization)).toEqual([`Bearer ${token}`]);
      expect(echoed.response?.status).toBe(200);
      expect(echoed.response?.body).toContain('/echo?t=');
      expect(JSON.stringify(echoed)).not.toContain(token);
    } finally {
      await client.close();
    }
  });

  test('a client left open keeps no process alive once its requests are answered', async () => {
    const script = `
      import { WorkerTransport } from './src/runner/http/transport.ts';
      import { defaultClientOptions } from './src/runner/http/client-options.ts';
      const t = new WorkerTransport({ client: defaultClientOptions('', ''), pool: { timeoutMs: 5000, connections: 2 } });
      const r = await t.transfer({ method: 'GET', url: ${JSON.stringify(`${server.url}/alive`)}, headers: {} }, 1 << 20, 5000);
      console.log('status' in (r.response ?? {}) ? r.response.status : r.error.message);
    `;
    const started = Date.now();
    // Asynchronously: the server answering the child lives in this process.
    const child = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(child.stdout.trim()).toBe('200');
    // Exits on its own, well before the pool's keep-alive or the spawn timeout would end it.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('where a session sends', () => {
  async function sendsOn(operations: number): Promise<string> {
    const dir = await tempDir();
    const spec = join(dir, `synthetic-${operations}.openapi.yaml`);
    writeFileSync(spec, syntheticContract(operations));
    const contract = await loadContract([spec]);
    const config: RunConfig = {
      contractFiles: [spec],
      profileFile: join(ROOT, 'contract/profile.yaml'),
      examplesFile: join(ROOT, 'contract/examples.yaml'),
      baseUrls: { 'customer-service': `${server.url}/customer-service` },
      token: 't',
      timeoutMs: 5_000,
      concurrency: 4,
      bodyCapBytes: 1 << 20,
      readOnly: true,
      allowIrreversible: false,
      seed: 1,
      maxExamples: 0,
      fuzzExamples: 0,
      include: [],
      exclude: [],
      runId: 'where',
    };
    const session = await Session.forContract(config, contract);
    const client = (session as unknown as { client: GatewayClient }).client;
    try {
      const transport = (client as unknown as { http: { transport: unknown } }).http.transport;
      return transport instanceof WorkerTransport ? 'worker' : 'this-thread';
    } finally {
      await client.close();
    }
  }

  test(`from ${WORKER_FROM_OPERATIONS} selected operations on a worker thread, below on this one`, async () => {
    expect(await sendsOn(WORKER_FROM_OPERATIONS)).toBe('worker');
    expect(await sendsOn(WORKER_FROM_OPERATIONS - 10)).toBe('this-thread');
  });
});
