/**
 * The per-request deadline of the HTTP client covers the whole exchange (a body that trickles in past it is
 * a timeout, not a slow success), each request has its own, and an interrupt aborts the requests in flight
 * while later requests go through as usual.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { HttpClient } from '../../src/runner/http/client.ts';

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

const client = (timeoutMs: number) => new HttpClient({ timeoutMs, bodyCapBytes: 1 << 20, connections: 4, secrets: [] });

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
