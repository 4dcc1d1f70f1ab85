/**
 * The CLI against a staging-like gateway, end to end: the reference service behind a TLS gateway that
 * requires a client certificate, reached through a CONNECT proxy from HTTPS_PROXY, that rotates the bearer
 * token mid-run, answers 429 with Retry-After now and then, and records the headers it receives. A plain http://
 * target through a proxy that refuses CONNECT to ports other than 443 (absolute-form requests). Also: a config
 * file, `conformance config`, `plan` (sends nothing) and --max-failures.
 */
import { readdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeServer, makePki, startHttp, startProxy, type Pki, type TestProxy } from '../http/servers.ts';
import { removeTemps, requireResults, runCli, startVariant, tempDir, TOKEN, type StartedVariant } from '../support/runs.ts';

const OLD = 'gateway-token-generation-1';
const NEW = 'gateway-token-generation-2';
const API_KEY = 'gateway-api-key-4e1f9';

interface Gateway {
  url: string;
  seen: IncomingMessage['headers'][];
  answered429: number;
  rotatedAfter: number;
  close(): Promise<void>;
}

/**
 * An HTTPS gateway with mutual TLS in front of the reference service: token rotation, 429s (to every `every429`th
 * request, at most `max429` of them: each costs the run the second its Retry-After asks), header log.
 */
async function startGateway(pki: Pki, upstream: string, options: { rotateAfter: number; every429: number; max429: number }): Promise<Gateway> {
  let authorized = 0;
  const gw: Gateway = { url: '', seen: [], answered429: 0, rotatedAfter: options.rotateAfter, close: async () => undefined };
  const server = createHttpsServer(
    { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey), ca: readFileSync(pki.caCert), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      gw.seen.push(req.headers);
      if (gw.seen.length % options.every429 === 0 && gw.answered429 < options.max429) {
        gw.answered429++;
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":{"code":"RATE_LIMITED"}}');
        return;
      }
      const headers = { ...req.headers };
      const auth = req.headers['authorization'];
      const valid = auth === `Bearer ${NEW}` || (auth === `Bearer ${OLD}` && authorized < options.rotateAfter);
      if (valid) {
        authorized++;
        headers['authorization'] = `Bearer ${TOKEN}`;
      } else if (auth === `Bearer ${OLD}`) {
        headers['authorization'] = 'Bearer expired-token';
      }
      const target = new URL(req.url ?? '/', upstream);
      const up = httpRequest(target, { method: req.method, headers: { ...headers, host: target.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gw.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gw.close = () => closeServer(server as never);
  return gw;
}

function reportText(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

let variant: StartedVariant;
let pki: Pki;
let proxy: TestProxy;
beforeAll(async () => {
  variant = await startVariant();
  pki = makePki();
  proxy = await startProxy();
});
afterAll(async () => {
  await Promise.all([variant?.close(), proxy?.close()]);
  pki?.remove();
  await removeTemps();
});

describe('a staging-like gateway', () => {
  test('proxy, client certificate, headers, token rotation and 429 back-off: conformant, with every retry recorded and no secret in any report', async () => {
    const gw = await startGateway(pki, variant.svc.url, { rotateAfter: 30, every429: 25, max429: 6 });
    try {
      const dir = await tempDir();
      const command = join(dir, 'token.sh');
      writeFileSync(command, `#!/bin/sh\necho '{"access_token": "${NEW}", "expires_in": 3600}'\n`);
      chmodSync(command, 0o755);
      const run = await runCli(
        [
          '--base-url', `${gw.url}/customer-service`,
          '--foreign-trade-base-url', `${gw.url}/foreign-trade-service`,
          '--otp-source-url', `${variant.svc.url}/__reference/otp/{transactionId}`,
          '--allow-irreversible',
          '--client-cert', pki.clientCert, '--client-key', pki.clientKey, '--ca-cert', pki.caCert,
          '--token-command', command,
          '-H', 'X-Tenant: acme',
          '-H', `X-Api-Key: ${API_KEY}`,
          '--secret-header', 'X-Api-Key',
          '--include', '/address-types',
        ],
        { env: { CONFORMANCE_TOKEN: OLD, HTTPS_PROXY: proxy.url, NO_PROXY: '' } },
      );
      const results = requireResults(run);
      expect(run.stderr).not.toMatch(/could not run/);
      const failed = results.operations.flatMap((o) => o.cases.filter((c) => c.outcome === 'failed').map((c) => `${o.operationId} › ${c.name}: ${c.findings.map((f) => f.message).join('; ')} ${JSON.stringify(c.exchanges.map((e) => [e.request.method, e.request.url, e.response?.status, e.retries]))}`));
      expect(failed).toEqual([]);
      expect(results.verdict, run.stderr).toBe('conformant');
      expect(run.code).toBe(0);

      // Every request went through the proxy's CONNECT tunnel to the gateway.
      expect(new Set(proxy.targets)).toEqual(new Set([new URL(gw.url).host]));
      // The gateway saw the user's headers, one run id and a traceparent of one trace on every request.
      expect(gw.seen.length).toBeGreaterThan(60);
      expect(gw.seen.every((h) => h['x-tenant'] === 'acme' && h['x-api-key'] === API_KEY)).toBe(true);
      const runIds = new Set(gw.seen.map((h) => h['x-conformance-run-id']));
      expect(runIds.size).toBe(1);
      const traces = new Set(gw.seen.map((h) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(String(h['traceparent']))?.[1]));
      expect(traces.size).toBe(1);
      expect([...traces][0]).toBeDefined();
      // The old token was rejected mid-run; the command's token took over.
      expect(gw.seen.some((h) => h['authorization'] === `Bearer ${NEW}`)).toBe(true);

      const cases = results.operations.flatMap((o) => o.cases);
      const retries = cases.flatMap((c) => c.exchanges.flatMap((e) => e.retries ?? []));
      // Every 429 was waited out and sent again (the reachability probe and the final clean-up are not in the report).
      const waited = retries.filter((r) => r.reason.startsWith('429'));
      expect(gw.answered429).toBeGreaterThan(1);
      expect(waited.length).toBeGreaterThan(0);
      expect(waited.length).toBeLessThanOrEqual(gw.answered429);
      expect(waited.every((r) => r.waitedMs === 1000 && r.reason === '429 Too Many Requests (Retry-After 1)')).toBe(true);
      expect(retries.some((r) => r.reason.startsWith('401: the token was rejected'))).toBe(true);
      expect(cases.filter((c) => c.retried).length).toBeGreaterThan(0);
      expect(cases.filter((c) => c.retried).every((c) => c.exchanges.some((e) => e.retries?.length))).toBe(true);

      const text = reportText(run.out) + run.stdout + run.stderr;
      for (const secret of [OLD, NEW, API_KEY, TOKEN]) expect(text).not.toContain(secret);
      expect(text).toContain(String([...runIds][0]));
    } finally {
      await gw.close();
    }
  });
});

describe('a proxy that allows CONNECT only to port 443, as many corporate proxies do', () => {
  test('HTTP_PROXY and plain http:// base URLs: every request reaches the proxy in absolute form, none as CONNECT, and the run is conformant', async () => {
    const strict = await startProxy({ connectPorts: [443] });
    try {
      const { args, env } = variant.target('env');
      const run = await runCli([...args, '--include', '/address-types', '--quiet'], { env: { ...env, HTTP_PROXY: strict.url, http_proxy: strict.url, NO_PROXY: '', no_proxy: '' } });
      expect(run.stderr).not.toMatch(/unreachable|Tunneling/);
      expect(run.code, run.stderr).toBe(0);
      expect(requireResults(run).verdict).toBe('conformant');
      // The reachability probe, the preflight, the cases and the clean-up: all in absolute form, to the service.
      expect(strict.requests.filter((r) => r.form === 'connect')).toEqual([]);
      expect(strict.requests.length).toBeGreaterThan(30);
      expect(strict.requests.filter((r) => r.refused)).toEqual([]);
      expect(new Set(strict.requests.map((r) => new URL(r.target).host))).toEqual(new Set([new URL(variant.svc.url).host]));
    } finally {
      await strict.close();
    }
  });
});

describe.concurrent('config file, config, plan and --max-failures', () => {
  test('a config file sets options; the environment and flags win over it; `config` shows where each value comes from, secrets masked', async () => {
    const dir = await tempDir();
    const file = join(dir, 'conformance.config.yaml');
    writeFileSync(file, `baseUrl: http://127.0.0.1:9/customer-service\ntimeout: 1234\nconcurrency: 3\nheaders:\n  X-Tenant: acme\n  "!X-Api-Key": ${API_KEY}\ntoken: ${OLD}\nretries: 2\nrateLimit: 5/s\n`);
    const run = await runCli(['config', '--config', file, '--concurrency', '5'], { noOut: true, env: { CONFORMANCE_TIMEOUT: '4321' } });
    expect(run.code).toBe(0);
    const line = (key: string) => run.stdout.split('\n').find((l) => l.startsWith(`${key} `)) ?? '';
    expect(line('baseUrl')).toMatch(/"http:\/\/127\.0\.0\.1:9\/customer-service"\s+\(file baseUrl\)/);
    expect(line('timeout')).toMatch(/4321\s+\(env CONFORMANCE_TIMEOUT\)/);
    expect(line('concurrency')).toMatch(/5\s+\(flag\)/);
    expect(line('retries')).toMatch(/2\s+\(file retries\)/);
    expect(line('rateLimit')).toMatch(/5\s+\(file rateLimit\)/);
    expect(line('seed')).toMatch(/1\s+\(default\)/);
    expect(line('header')).toContain('X-Tenant:acme');
    expect(line('header')).toContain('!X-Api-Key:****');
    expect(line('token')).toContain('"****"');
    expect(run.stdout).not.toContain(API_KEY);
    expect(run.stdout).not.toContain(OLD);
  });

  test.each([
    ['an unknown key', 'tiemout: 5\n', /^conformance: bad\.yaml: unknown key "tiemout"/],
    ['a wrong type', 'timeout: soon\n', /^conformance: bad\.yaml: timeout: must be integer/],
    ['a bad URL', 'baseUrl: gw.example\n', /^conformance: bad\.yaml: baseUrl: must be an http:\/\/ or https:\/\/ URL \(this is not a URL\)$/m],
    ['not YAML', 'a: [\n', /^conformance: bad\.yaml: not YAML/],
  ])('a config file with %s: exit 2 and one line naming the file and the key', async (_name, text, message) => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'bad.yaml'), text);
    const run = await runCli(['config', '--config', 'bad.yaml'], { noOut: true, cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a bad value from the environment is one line naming the variable', async () => {
    const run = await runCli(['config'], { noOut: true, env: { CONFORMANCE_RETRIES: '-1' } });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('conformance: CONFORMANCE_RETRIES: --retries must be a whole number, 0 or more');
  });

  test('plan (and --dry-run) lists every case and each skip reason, and sends nothing', async () => {
    const target = await startHttp((_req, res) => res.writeHead(500).end());
    try {
      const args = ['--base-url', `${target.url}/customer-service`, '--foreign-trade-base-url', `${target.url}/foreign-trade-service`, '--read-only', '--include', 'method:GET,method:DELETE'];
      const plan = await runCli(['plan', ...args], { noOut: true });
      const dry = await runCli([...args, '--dry-run'], { noOut: true });
      expect(plan.code).toBe(0);
      expect(dry.stdout).toBe(plan.stdout);
      expect(plan.stdout).toMatch(/^Plan: 5 operation\(s\), \d+ case\(s\): \d+ would run, \d+ would be skipped; 10 operation\(s\) not selected\. Nothing was sent\./);
      expect(plan.stdout).toContain('    run   presence');
      expect(plan.stdout).toMatch(/    skip  positive: not a safe method \(--read-only\)/);
      expect(plan.stdout).toContain('not selected (--include, --exclude or --shard):');
      expect(target.seen).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  test('--max-failures 1 stops after the first failed operation: not conformant, the rest skipped with the reason', async () => {
    const faulty = await startVariant({ skipAuth: ['get-address-type-field-list', 'get-address-type-field-by-id', 'update-address-type', 'delete-address-type'] });
    try {
      const run = await runCli([...faulty.target().args, '--include', '/address-types', '--max-failures', '1', '--concurrency', '1']);
      const results = requireResults(run);
      expect(run.code).toBe(1);
      expect(results.verdict).toBe('not-conformant');
      const skipped = results.operations.flatMap((o) => o.cases).filter((c) => c.skipReason?.startsWith('not run: --max-failures 1 reached'));
      expect(skipped.length).toBeGreaterThan(0);
      expect(run.stderr).toContain('stopped after 1 failed operation(s) (--max-failures)');
    } finally {
      await faulty.close();
    }
  });
});

describe.concurrent('conventions', () => {
  test('--version prints the package version; --help states the default command, exit codes, environment and examples, with no absolute paths', async () => {
    const version = await runCli(['--version'], { noOut: true });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    const help = await runCli(['run', '--help'], { noOut: true });
    expect(help.code).toBe(0);
    for (const text of ['without a command runs `conformance run`', 'Exit codes:', 'Environment:', 'HTTPS_PROXY', 'NO_COLOR', 'Examples:']) expect(help.stdout).toContain(text);
    expect(help.stdout).not.toContain('(default: [])');
    expect(help.stdout).not.toMatch(/\/work\/|\/home\/|\/tmp\//);
    expect((help.stdout.match(/^\s+\$ (\S+=\S+ )?conformance/gm) ?? []).length).toBe(3);
  });
});
