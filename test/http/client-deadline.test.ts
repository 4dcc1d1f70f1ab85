/**
 * The HTTP client's exchange: the per-request deadline covers the whole exchange (a body that trickles in past
 * it is a timeout, not a slow success), each request has its own, and an interrupt aborts the requests in
 * flight while later requests go through as usual. Bodies: content codings are decoded, the body cap cuts a
 * huge plain or compressed body, an unasked coding is an error, informational answers are passed over.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { HttpClient } from '../../src/runner/http/client.ts';
import { defaultClientOptions } from '../../src/runner/http/client-options.ts';
import { WorkerTransport } from '../../src/runner/http/transport.ts';

let server: Server;
let base = '';
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/trickle') {
      // Headers at once, then a byte every 100 ms for 3 s: no single wait is long, the whole answer is.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      let n = 0;
      const timer = setInterval(() => {
        if (++n >= 30 || res.destroyed) {
          clearInterval(timer);
          timers.delete(timer);
          if (!res.destroyed) res.end('0]');
          return;
        }
        res.write('0,');
      }, 100);
      timers.add(timer);
      return;
    }
    if (req.url === '/hang') return; // never answers
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":true}'));
      return;
    }
    if (req.url === '/bomb') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)));
      return;
    }
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(3 * 1024 * 1024, 0x61));
      return;
    }
    if (req.url === '/zstd') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' }).end('xx');
      return;
    }
    if (req.url === '/early') {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.writeHead(201, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] }).end('{"late":1}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of timers) clearInterval(t);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Every behaviour holds alike for requests sent on this thread and on a worker thread (transport.ts).
describe.each(['this-thread', 'worker'] as const)('sent on %s', (sendOn) => {
  const client = (timeoutMs: number, bodyCapBytes = 1 << 20) =>
    new HttpClient({
      timeoutMs,
      bodyCapBytes,
      connections: 4,
      secrets: [],
      ...(sendOn === 'worker' ? { transport: new WorkerTransport({ client: defaultClientOptions('', ''), pool: { timeoutMs, connections: 4 } }) } : {}),
    });

  test('a body that is still arriving at the deadline is a timeout', async () => {
    const c = client(700);
    try {
      const exchange = await c.send({ method: 'GET', url: `${base}/trickle`, headers: {} });
      expect(exchange.response).toBeUndefined();
      expect(exchange.error).toEqual({ kind: 'timeout', message: 'no response within 700 ms (--timeout)' });
    } finally {
      await c.close();
    }
  });

  test('each request has its own deadline: quick ones after a timed-out one succeed', async () => {
    const c = client(500);
    try {
      const [hung, ...quick] = await Promise.all([
        c.send({ method: 'GET', url: `${base}/hang`, headers: {} }),
        ...Array.from({ length: 5 }, () => c.send({ method: 'GET', url: `${base}/ok`, headers: {} })),
      ]);
      expect(hung?.error?.kind).toBe('timeout');
      for (const e of quick) expect(e.response?.json).toEqual({ ok: true });
      const after = await c.send({ method: 'GET', url: `${base}/ok`, headers: {} });
      expect(after.response?.status).toBe(200);
    } finally {
      await c.close();
    }
  });

  test('an interrupt aborts the requests in flight; requests sent afterwards are not affected', async () => {
    const c = client(60_000);
    try {
      const pending = [c.send({ method: 'GET', url: `${base}/hang`, headers: {} }), c.send({ method: 'GET', url: `${base}/hang`, headers: {} })];
      await new Promise((resolve) => setTimeout(resolve, 100));
      c.abortInFlight();
      const aborted = await Promise.all(pending);
      for (const e of aborted) {
        expect(e.response).toBeUndefined();
        expect(e.error?.message).toMatch(/interrupted/);
      }
      const after = await c.send({ method: 'GET', url: `${base}/ok`, headers: {} });
      expect(after.response?.json).toEqual({ ok: true });
    } finally {
      await c.close();
    }
  });

  test('bodies: decoded, capped, refused when in an unasked coding; informational answers passed over', async () => {
    const c = client(10_000, 256 * 1024);
    try {
      const zipped = await c.send({ method: 'GET', url: `${base}/gzip`, headers: {} });
      expect(zipped.response).toMatchObject({ status: 200, json: { zipped: true }, truncated: false, size: 15 });
      // A compression bomb is cut a few caps into its decoded bytes, a plain body past four caps likewise.
      const bomb = await c.send({ method: 'GET', url: `${base}/bomb`, headers: {} });
      expect(bomb.response?.truncated).toBe(true);
      expect(bomb.response?.body.length).toBe(256 * 1024);
      expect(bomb.response?.size).toBeGreaterThan(256 * 1024);
      expect(bomb.response?.size).toBeLessThan(8 * 1024 * 1024);
      expect(bomb.response?.json).toBeUndefined();
      const huge = await c.send({ method: 'GET', url: `${base}/huge`, headers: {} });
      expect(huge.response?.truncated).toBe(true);
      expect(huge.response?.body).toBe('a'.repeat(256 * 1024));
      expect(huge.response?.size).toBeGreaterThan(4 * 256 * 1024);
      const zstd = await c.send({ method: 'GET', url: `${base}/zstd`, headers: {} });
      expect(zstd.response).toBeUndefined();
      expect(zstd.error).toEqual({ kind: 'other', message: 'the response uses content-encoding zstd, which was not asked for (accept-encoding: gzip, deflate, br)' });
      const early = await c.send({ method: 'GET', url: `${base}/early`, headers: {} });
      expect(early.response).toMatchObject({ status: 201, json: { late: 1 } });
      expect(early.response?.headers['x-twice']).toBe('a, b');
      // The connections are still good after the cut-offs.
      expect((await c.send({ method: 'GET', url: `${base}/ok`, headers: {} })).response?.json).toEqual({ ok: true });
    } finally {
      await c.close();
    }
  });
});
