/**
 * The client options against real servers on 127.0.0.1: a CONNECT proxy, a TLS server that requires a client
 * certificate, a gateway answering 429 with Retry-After, a service whose token expires, a flaky socket.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultClientOptions, parseHeader, parseRate, type ClientOptions } from '../../src/runner/http/client-options.ts';
import { proxySettings } from '../../src/runner/http/dispatcher.ts';
import { GatewayClient } from '../../src/runner/http/gateway-client.ts';
import { retryAfterMs } from '../../src/runner/http/rate-limit.ts';
import { parseIssued } from '../../src/runner/http/token-command.ts';
import { json, makePki, startHttp, startMutualTls, startProxy, type Pki, type TestProxy, type TestServer } from './servers.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

/** Where the clients of the tests running now send (each block below runs once per place, one after the other). */
let sendOn: 'this-thread' | 'worker' = 'this-thread';

function client(over: Partial<ClientOptions> = {}, token = 'initial-token-123456', timeoutMs = 5_000): GatewayClient {
  return new GatewayClient({
    sendOn,
    timeoutMs,
    bodyCapBytes: 1 << 20,
    connections: 4,
    client: { ...defaultClientOptions('run-abc123', TRACE), ...over },
    authHeader: 'Authorization',
    token: { token },
  });
}

const opened: Array<{ close(): Promise<void> }> = [];
function track<T extends { close(): Promise<void> }>(x: T): T {
  opened.push(x);
  return x;
}
afterAll(async () => {
  await Promise.all(opened.splice(0).map((x) => x.close()));
});

const ok = (_req: unknown, res: Parameters<typeof json>[0]) => json(res, 200, { ok: true });

// Every behaviour holds alike for requests sent on this thread and on a worker thread (transport.ts).
describe.each(['this-thread', 'worker'] as const)('sent on %s', (where) => {
  beforeAll(() => {
    sendOn = where;
  });

  describe('proxy', () => {
    let proxy: TestProxy;
    let target: TestServer;
    beforeAll(async () => {
      proxy = track(await startProxy());
      target = track(await startHttp(ok));
    });

    test('--proxy: the request goes through the proxy and is answered', async () => {
      const c = track(client({ httpProxy: proxy.url, httpsProxy: proxy.url }));
      const before = proxy.targets.length;
      const ex = await c.send({ method: 'GET', url: `${target.url}/x`, headers: {} });
      expect(ex.response?.status).toBe(200);
      expect(proxy.targets.slice(before)).toEqual([new URL(target.url).host]);
    });

    test('HTTP_PROXY from the environment is honoured; NO_PROXY sends matching hosts directly', async () => {
      const viaEnv = proxySettings({ HTTP_PROXY: proxy.url }, undefined);
      expect(viaEnv).toEqual({ httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: '' });
      let before = proxy.targets.length;
      const c1 = track(client(viaEnv));
      expect((await c1.send({ method: 'GET', url: target.url, headers: {} })).response?.status).toBe(200);
      expect(proxy.targets.length).toBe(before + 1);

      const direct = proxySettings({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' }, undefined);
      before = proxy.targets.length;
      const c2 = track(client(direct));
      expect((await c2.send({ method: 'GET', url: target.url, headers: {} })).response?.status).toBe(200);
      expect(proxy.targets.length).toBe(before);
    });

    test('HTTP_PROXY and a plain http:// target: the request goes to the proxy in absolute form, not through CONNECT (a proxy that refuses CONNECT to ports other than 443 answers it)', async () => {
      const strict = track(await startProxy({ connectPorts: [443] }));
      const c = track(client(proxySettings({ HTTP_PROXY: strict.url }, undefined)));
      for (const method of ['GET', 'POST'] as const) {
        const ex = await c.send({ method, url: `${target.url}/customer-service/things?page=2`, headers: {}, ...(method === 'POST' ? { body: '{"a":1}' } : {}) });
        expect(ex.error, ex.error?.message).toBeUndefined();
        expect(ex.response?.status).toBe(200);
      }
      expect(strict.requests).toEqual([
        { form: 'absolute', target: `${target.url}/customer-service/things?page=2`, refused: false },
        { form: 'absolute', target: `${target.url}/customer-service/things?page=2`, refused: false },
      ]);
    });

    test('an https:// target still goes through a CONNECT tunnel, never in absolute form', async () => {
      const pki = makePki();
      try {
        const tls = track(await startMutualTls(pki, ok));
        const tunnels = track(await startProxy());
        const c = track(client({ ...proxySettings({ HTTP_PROXY: tunnels.url }, undefined), clientCert: pki.clientCert, clientKey: pki.clientKey, caCert: pki.caCert }));
        const ex = await c.send({ method: 'GET', url: `${tls.url}/secure`, headers: {} });
        expect(ex.response?.status).toBe(200);
        expect(tunnels.requests).toEqual([{ form: 'connect', target: new URL(tls.url).host, refused: false }]);
      } finally {
        pki.remove();
      }
    });

    test('--proxy wins over HTTPS_PROXY', () => {
      expect(proxySettings({ HTTPS_PROXY: 'http://127.0.0.1:1' }, 'http://127.0.0.1:2').httpsProxy).toBe('http://127.0.0.1:2');
    });
  });

  describe('TLS with a client certificate', () => {
    let pki: Pki;
    let server: TestServer;
    let proxy: TestProxy;
    beforeAll(async () => {
      pki = makePki();
      server = track(await startMutualTls(pki, ok));
      proxy = track(await startProxy());
    });
    afterAll(() => pki.remove());

    test('with the client certificate and the CA bundle the call is answered', async () => {
      const c = track(client({ clientCert: pki.clientCert, clientKey: pki.clientKey, caCert: pki.caCert }));
      const ex = await c.send({ method: 'GET', url: `${server.url}/secure`, headers: {} });
      expect(ex.error).toBeUndefined();
      expect(ex.response?.status).toBe(200);
    });

    test('through the CONNECT proxy as well (the target TLS inside the tunnel)', async () => {
      const c = track(client({ clientCert: pki.clientCert, clientKey: pki.clientKey, caCert: pki.caCert, httpsProxy: proxy.url }));
      const ex = await c.send({ method: 'GET', url: `${server.url}/secure`, headers: {} });
      expect(ex.response?.status).toBe(200);
      expect(proxy.targets).toContain(new URL(server.url).host);
    });

    test('without a client certificate, or with one from another CA, the server refuses: a connection error', async () => {
      const none = track(client({ caCert: pki.caCert }));
      const stranger = track(client({ caCert: pki.caCert, clientCert: pki.strangerCert, clientKey: pki.strangerKey }));
      for (const c of [none, stranger]) {
        const ex = await c.send({ method: 'GET', url: server.url, headers: {} });
        expect(ex.response).toBeUndefined();
        expect(ex.error).toBeDefined();
      }
    });

    test('without the CA the server certificate is untrusted unless --insecure', async () => {
      const strict = track(client({ clientCert: pki.clientCert, clientKey: pki.clientKey }));
      const strictEx = await strict.send({ method: 'GET', url: server.url, headers: {} });
      expect(strictEx.error?.message).toMatch(/certificate|self.signed|issuer/i);
      const insecure = track(client({ clientCert: pki.clientCert, clientKey: pki.clientKey, insecure: true }));
      expect((await insecure.send({ method: 'GET', url: server.url, headers: {} })).response?.status).toBe(200);
    });

    test('a missing certificate file is a one-line error naming the option', () => {
      expect(() => client({ clientCert: `${pki.dir}/nope.pem`, clientKey: pki.clientKey })).toThrow(/^--client-cert .*nope\.pem: ENOENT$/);
    });
  });

  describe('429 and Retry-After', () => {
    test('the client waits what Retry-After asks, sends again, and records the retry', async () => {
      let calls = 0;
      const server = track(
        await startHttp((_req, res) => {
          calls++;
          if (calls === 1) json(res, 429, { error: { code: 'TOO_MANY_REQUESTS' } }, { 'retry-after': '1' });
          else json(res, 200, { ok: true });
        }),
      );
      const c = track(client());
      const started = Date.now();
      const ex = await c.send({ method: 'POST', url: server.url, headers: {}, body: '{}' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(ex.response?.status).toBe(200);
      expect(ex.retries).toEqual([{ attempt: 1, reason: '429 Too Many Requests (Retry-After 1)', waitedMs: 1000 }]);
      expect(calls).toBe(2);
    });

    test('Retry-After as seconds or an HTTP date', () => {
      expect(retryAfterMs('2')).toBe(2000);
      expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
      expect(retryAfterMs('soon')).toBeUndefined();
    });

    test('--rate-limit paces requests', async () => {
      const server = track(await startHttp(ok));
      const c = track(client({ rateLimit: parseRate('10/s') }));
      const started = Date.now();
      await Promise.all(Array.from({ length: 6 }, () => c.send({ method: 'GET', url: server.url, headers: {} })));
      // 6 starts at 10/s: the last one 500 ms after the first.
      expect(Date.now() - started).toBeGreaterThanOrEqual(480);
      expect(parseRate('120/m')).toBe(2);
      expect(() => parseRate('fast')).toThrow(/--rate-limit takes/);
    });
  });

  describe('token refresh with --token-command', () => {
    function tokenCommand(dir: string, printer: string): string {
      const script = `${dir}/token.sh`;
      writeFileSync(script, `#!/bin/sh\nn=$(cat "${dir}/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/n"\n${printer}\n`);
      chmodSync(script, 0o755);
      return script;
    }

    test('a token rejected mid-run is replaced and the call sent again; no token is recorded', async () => {
      const pki = { dir: mkdtempSync(join(tmpdir(), 'conformance-token-')), remove() { rmSync(this.dir, { recursive: true, force: true }); } };
      try {
        let served = 0;
        const server = track(
          await startHttp((req, res) => {
            served++;
            // The first token expires after three calls; the command's next token is accepted.
            const auth = req.headers['authorization'];
            if (auth === 'Bearer token-generation-2' || (auth === 'Bearer token-generation-1' && served <= 3)) json(res, 200, { echo: auth });
            else json(res, 401, { error: { code: 'UNAUTHORIZED' } });
          }),
        );
        const command = tokenCommand(pki.dir, 'echo "token-generation-$((n+1))"'); // 1st run prints generation-2
        const c = track(new GatewayClient({ sendOn, timeoutMs: 5000, bodyCapBytes: 1 << 20, connections: 2, client: { ...defaultClientOptions('r', TRACE), tokenCommand: command }, authHeader: 'Authorization', token: { token: 'token-generation-1' } }));
        const statuses: number[] = [];
        const exchanges = [];
        for (let i = 0; i < 5; i++) {
          const ex = await c.send({ method: 'GET', url: server.url, headers: { authorization: `Bearer ${c.tokens.current}` } });
          statuses.push(ex.response?.status ?? 0);
          exchanges.push(ex);
        }
        expect(statuses).toEqual([200, 200, 200, 200, 200]);
        expect(exchanges[3]!.retries?.[0]?.reason).toMatch(/^401: the token was rejected/);
        expect(c.tokens.current).toBe('token-generation-2');
        const text = JSON.stringify(exchanges);
        expect(text).not.toContain('token-generation');
        expect(text).toContain('$CONFORMANCE_TOKEN');
      } finally {
        pki.remove();
      }
    });

    test('a token about to expire is refreshed before the call (expires_in from the command)', async () => {
      const pki = { dir: mkdtempSync(join(tmpdir(), 'conformance-token-')), remove() { rmSync(this.dir, { recursive: true, force: true }); } };
      try {
        const server = track(await startHttp((req, res) => json(res, 200, { auth: req.headers['authorization'] === 'Bearer fresh-token-2' })));
        const command = tokenCommand(pki.dir, 'echo "{\\"access_token\\": \\"fresh-token-$((n+1))\\", \\"expires_in\\": 1}"');
        const c = track(new GatewayClient({ sendOn, timeoutMs: 5000, bodyCapBytes: 1 << 20, connections: 2, client: { ...defaultClientOptions('r', TRACE), tokenCommand: command }, authHeader: 'Authorization', token: parseIssued('{"access_token":"fresh-token-1","expires_in":1}', Date.now()) }));
        await new Promise((r) => setTimeout(r, 900));
        const ex = await c.send({ method: 'GET', url: server.url, headers: { authorization: `Bearer ${c.tokens.current}` } });
        expect(server.seen.at(-1)?.authorization).toBe('Bearer fresh-token-2');
        expect(ex.retries).toBeUndefined();
        expect(ex.response?.json).toEqual({ auth: true });
      } finally {
        pki.remove();
      }
    });

    test('a JWT exp gives the expiry; plain tokens have none', () => {
      const jwt = `e30.${Buffer.from(JSON.stringify({ exp: 2_000_000_000 })).toString('base64url')}.sig`;
      expect(parseIssued(jwt, 0)).toEqual({ token: jwt, expiresAt: 2_000_000_000_000 });
      expect(parseIssued('abc\n', 0)).toEqual({ token: 'abc' });
      expect(() => parseIssued('{"nope":1}', 0)).toThrow(/without "access_token"/);
    });
  });

  describe('retries after network errors', () => {
    test('an idempotent call is sent again after a reset and the retry recorded; a POST is not', async () => {
      let calls = 0;
      const server = track(
        await startHttp((req, res) => {
          calls++;
          if (calls % 2 === 1) req.socket.destroy();
          else json(res, 200, { ok: true });
        }),
      );
      const c = track(client({ retries: 2 }));
      const get = await c.send({ method: 'GET', url: server.url, headers: {} });
      expect(get.response?.status).toBe(200);
      expect(get.retries).toHaveLength(1);
      expect(get.retries?.[0]?.reason).toMatch(/^network error:/);
      const post = await c.send({ method: 'POST', url: server.url, headers: {}, body: '{}' });
      expect(post.error?.kind).toBe('connection');
      expect(post.retries).toBeUndefined();
    });

    test('without --retries a network error is reported as it is', async () => {
      const server = track(await startHttp((req) => req.socket.destroy()));
      const c = track(client());
      const ex = await c.send({ method: 'GET', url: server.url, headers: {} });
      expect(ex.error?.kind).toBe('connection');
      expect(ex.retries).toBeUndefined();
    });
  });

  describe('headers, run id and traceparent', () => {
    test('extra headers reach the server; secret values are redacted in the exchange; run id and traceparent on every request', async () => {
      const server = track(await startHttp((req, res) => json(res, 200, { echoed: req.headers['x-api-key'], tenant: req.headers['x-tenant'] })));
      const headers = [parseHeader('X-Tenant: acme'), parseHeader('!X-Api-Key: key-very-secret-1'), parseHeader('X-Signature:sig-value-77', ['x-signature'])];
      expect(headers.map((h) => h.secret)).toEqual([false, true, true]);
      const c = track(client({ headers }));
      const a = await c.send({ method: 'GET', url: server.url, headers: { authorization: 'Bearer initial-token-123456' } });
      await c.send({ method: 'GET', url: server.url, headers: {} });
      const [first, second] = server.seen;
      expect(first?.['x-tenant']).toBe('acme');
      expect(first?.['x-api-key']).toBe('key-very-secret-1');
      expect(first?.['x-conformance-run-id']).toBe('run-abc123');
      for (const seen of [first, second]) expect(seen?.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
      expect(first?.traceparent).not.toBe(second?.traceparent);
      const text = JSON.stringify(a);
      expect(text).not.toContain('key-very-secret-1');
      expect(text).not.toContain('sig-value-77');
      expect(text).not.toContain('initial-token-123456');
      expect(a.request.headers['X-Tenant']).toBe('acme');
      expect(a.response?.json).toEqual({ echoed: '[redacted]', tenant: 'acme' });
    });

    test('a user Authorization header replaces the token only on calls that carry it, never on the auth cases', async () => {
      const server = track(await startHttp(ok));
      const c = track(client({ headers: [parseHeader('Authorization: Basic dXNlcjpwYXNz')] }));
      await c.send({ method: 'GET', url: server.url, headers: { authorization: 'Bearer initial-token-123456' } });
      await c.send({ method: 'GET', url: server.url, headers: {} });
      await c.send({ method: 'GET', url: server.url, headers: { authorization: 'Bearer wrong' } });
      expect(server.seen.map((s) => s.authorization)).toEqual(['Basic dXNlcjpwYXNz', undefined, 'Bearer wrong']);
    });

    test('bad -H values are one-line errors', () => {
      expect(() => parseHeader('no colon')).toThrow(/-H takes NAME:VALUE/);
      expect(parseHeader('authorization: x').secret).toBe(true);
    });
  });
});
