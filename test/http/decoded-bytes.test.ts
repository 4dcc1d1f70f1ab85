/**
 * Memory under a compressed body far larger than the body cap: the decoder is stopped as soon as its output
 * passes the cap (it is not run on to a multiple of it), no more than the cap is held per body, and what the
 * run caches of the answer to an unknown route keeps a body only where deciding "missing" compares it. Bounds
 * on bytes, not on time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { HttpClient } from '../../src/runner/http/client.ts';
import { defaultClientOptions } from '../../src/runner/http/client-options.ts';
import { WorkerTransport } from '../../src/runner/http/transport.ts';
import { CappedBody } from '../../src/runner/http/exchange.ts';
import { routeUnknown } from '../../src/runner/checks/operation-present.ts';
import { unknownRouteAnswer } from '../../src/runner/execute/unknown-route.ts';
import type { RecordedResponse } from '../../src/runner/model.ts';
import type { Profile } from '../../src/runner/description/profile.ts';

const CAP = 1024 * 1024;
/** What one read of the decoder may add past the cap: zlib hands out its output 16 KiB at a time. */
const DECODER_CHUNK = 16 * 1024;

let server: Server;
let base = '';
let answered = 0;

beforeAll(async () => {
  // 2 GiB of zeros as about 2 MB of gzip: one member of 64 MiB repeated (gzip members concatenate).
  const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 32 }, () => member));
  server = createServer((req, res) => {
    req.resume();
    answered++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A client sending on this thread or on a worker thread (transport.ts): the bounds hold alike. */
function httpClient(sendOn: 'this-thread' | 'worker', connections: number): HttpClient {
  const options = { timeoutMs: 30_000, bodyCapBytes: CAP, connections, secrets: [] };
  if (sendOn === 'this-thread') return new HttpClient(options);
  return new HttpClient({ ...options, transport: new WorkerTransport({ client: defaultClientOptions('', ''), pool: { timeoutMs: 30_000, connections } }) });
}

describe.each(['this-thread', 'worker'] as const)('a 2 GiB gzip body, sent on %s', (sendOn) => {
  test('is decoded only up to the cap, then the decoder and the transfer stop', async () => {
    const c = httpClient(sendOn, 4);
    try {
      for (let i = 0; i < 3; i++) {
        const e = await c.send({ method: 'GET', url: `${base}/any`, headers: {} });
        expect(e.error).toBeUndefined();
        expect(e.response?.truncated).toBe(true);
        expect(e.response?.body.length).toBe(CAP);
        expect(e.response?.json).toBeUndefined();
        // size counts the decoded bytes read: past the cap by at most one decoder chunk (formerly four caps).
        expect(e.response?.size).toBeGreaterThan(CAP);
        expect(e.response?.size).toBeLessThanOrEqual(CAP + DECODER_CHUNK);
      }
      expect(answered).toBeGreaterThanOrEqual(3);
    } finally {
      await c.close();
    }
  });

  test('several at once each stop at the cap', async () => {
    const c = httpClient(sendOn, 8);
    try {
      const all = await Promise.all(Array.from({ length: 8 }, () => c.send({ method: 'GET', url: `${base}/many`, headers: {} })));
      for (const e of all) expect(e.response?.size).toBeLessThanOrEqual(CAP + DECODER_CHUNK);
    } finally {
      await c.close();
    }
  });
});

describe('a capped body', () => {
  test('holds no more than the cap, copying the chunk the cap falls in', () => {
    const body = new CappedBody(100_000, 100_000);
    const big = Buffer.alloc(64 * 1024, 0x61);
    expect(body.add(big)).toBe(true);
    expect(body.add(Buffer.alloc(64 * 1024, 0x62))).toBe(false); // past the read limit: stop reading
    expect(body.held).toBe(100_000);
    expect(body.received).toBe(128 * 1024);
    const text = body.text();
    expect(text).toMatchObject({ size: 128 * 1024, truncated: true });
    expect(text.text.length).toBe(100_000);
    expect(text.text.endsWith('b')).toBe(true);
  });

  test('a plain body is read on to four caps by default', () => {
    const body = new CappedBody(10);
    expect(body.add(Buffer.alloc(40))).toBe(true);
    expect(body.add(Buffer.alloc(1))).toBe(false);
    expect(body.held).toBe(10);
  });
});

describe('the cached answer to an unknown route', () => {
  const profile = { missing: { gatewayStatuses: [404, 405, 501, 502] }, errorEnvelope: { codePointer: '/error/code' } } as unknown as Profile;
  const response = (status: number, body: string, json?: unknown): RecordedResponse => ({
    status,
    headers: { 'content-type': 'application/json' },
    body,
    truncated: false,
    size: body.length,
    ...(json !== undefined ? { json } : {}),
  });

  test('keeps its body only for a status whose body is compared', () => {
    const large = 'x'.repeat(CAP);
    expect(unknownRouteAnswer(response(200, large), profile)).toEqual({ status: 200, body: '' });
    expect(unknownRouteAnswer(response(405, large), profile)).toEqual({ status: 405, body: '' });
    expect(unknownRouteAnswer(response(501, large), profile)).toEqual({ status: 501, body: '' });
    expect(unknownRouteAnswer(response(404, 'no route /x'), profile)).toEqual({ status: 404, body: 'no route /x' });
  });

  test('decides "missing" exactly as the whole answer does', () => {
    const answers = [response(200, '{}', {}), response(404, 'Not Found /u'), response(404, 'other'), response(405, ''), response(502, 'bad'), response(401, 'no')];
    const probes = [
      response(404, 'Not Found /p'),
      response(404, 'Not Found /other'),
      response(404, '{"error":{"code":"NOT_FOUND"}}', { error: { code: 'NOT_FOUND' } }),
      response(405, ''),
      response(502, 'bad'),
      response(200, '{}', {}),
      response(401, 'no'),
    ];
    const paths = ['/p', '/u'];
    let compared = 0;
    for (const answer of answers) {
      for (const probe of probes) {
        for (const method of ['GET', 'POST']) {
          const whole = routeUnknown(probe, method, profile, answer, paths);
          expect(routeUnknown(probe, method, profile, unknownRouteAnswer(answer, profile), paths), `${probe.status} ${probe.body} vs ${answer.status} ${answer.body}`).toBe(whole);
          compared++;
        }
      }
    }
    expect(compared).toBe(answers.length * probes.length * 2);
  });
});
