/**
 * The conformance CLI as a user runs it (a child process): bad input is one line on stderr and exit 2; the
 * token never reaches any output; --read-only, --include, --shard and --seed do what they say; the default
 * run against the embedded reference service is conformant; results.json matches its schema; an
 * interrupted run still writes what it measured.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { OPERATION_IDS, type Variant } from '../../src/reference-service/index.ts';
import type { RunResults } from '../../src/runner/model.ts';
import {
  DESCRIBED,
  never,
  objectBody,
  operation,
  outcomes,
  pool,
  removeTemps,
  requireResults,
  resultsSchemaErrors,
  runCli,
  startVariant,
  summary,
  tempDir,
  TOKEN,
  tokenLeaks,
  type CliOptions,
  type CliRun,
} from '../support/runs.ts';

const limit = pool(3);
const RUN_TIMEOUT = 300_000;
const UNSAFE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

afterAll(removeTemps);

/** Starts a variant, runs the CLI against it with the given flags, closes the variant. */
function runAgainst(variant: Variant, flags: string[], tokenVia: 'flag' | 'env' = 'flag', options: CliOptions = {}): Promise<CliRun> {
  return limit(async () => {
    const started = await startVariant(variant);
    try {
      const { args, env } = started.target(tokenVia);
      // Several tests read passed cases' exchanges, which a run keeps only when asked.
      return await runCli([...args, '--keep-passed-exchanges', ...flags], { ...options, env: { ...env, ...options.env } });
    } finally {
      await started.close();
    }
  });
}

/** Memoises a run so several tests can assert on it. */
function once(run: () => Promise<CliRun>): () => Promise<CliRun> {
  let pending: Promise<CliRun> | undefined;
  return () => (pending ??= run());
}

async function expectNoToken(run: CliRun): Promise<void> {
  expect(await tokenLeaks(run)).toEqual([]);
  for (const file of ['results.json', 'junit.xml', 'index.html']) expect(existsSync(join(run.out, file)), file).toBe(true);
}

function expectValidResults(results: RunResults): void {
  expect(resultsSchemaErrors(results)).toEqual([]);
}

// ---------------------------------------------------------------------------------------------------------
// Bad input: exit 2, one line, no stack trace

async function brokenContracts(): Promise<Record<'invalid' | 'syntax' | 'dangling', string>> {
  const dir = await tempDir('conformance-contract-');
  const files = {
    invalid: join(dir, 'invalid.openapi.yaml'),
    syntax: join(dir, 'syntax.openapi.yaml'),
    dangling: join(dir, 'dangling.openapi.yaml'),
  };
  // A response without its required `description`.
  await writeFile(
    files.invalid,
    ['openapi: 3.1.0', 'info: { title: Broken, version: "1" }', 'paths:', '  /things:', '    get:', '      operationId: list-things', '      responses:', "        '200':", '          content:', '            application/json:', '              schema: { type: object }', ''].join('\n'),
  );
  await writeFile(files.syntax, 'openapi: 3.1.0\ninfo: [1\n');
  await writeFile(
    files.dangling,
    ['openapi: 3.1.0', 'info: { title: Dangling, version: "1" }', 'paths:', '  /a:', '    get:', '      operationId: a', '      responses:', "        '200':", '          description: ok', '          content:', '            application/json:', "              schema: { $ref: '#/components/schemas/Nope' }", ''].join('\n'),
  );
  return files;
}

function expectOneLineError(run: CliRun, ...mentions: string[]): void {
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  for (const m of mentions) expect(lines[0]).toContain(m);
}

describe.concurrent('bad input: exit 2 with one line on stderr', () => {
  const table: Array<[string, { args: string[]; mentions: string[] }]> = [
    ['an unknown flag', { args: ['--bogus'], mentions: ['--bogus'] }],
    ['--timeout abc', { args: ['--timeout', 'abc'], mentions: ['--timeout', 'abc'] }],
    ['--timeout 0', { args: ['--timeout', '0'], mentions: ['--timeout'] }],
    ['--shard 5/4', { args: ['--shard', '5/4'], mentions: ['--shard', '5/4'] }],
    ['--shard 0/2', { args: ['--shard', '0/2'], mentions: ['--shard'] }],
    ['--fail-on sometimes', { args: ['--fail-on', 'sometimes'], mentions: ['sometimes'] }],
    ['--include naming no operation', { args: ['--include', 'no-such-operation'], mentions: ['no-such-operation'] }],
  ];
  test.each(table)('%s', async (_name, { args, mentions }) => {
    expectOneLineError(await runCli(args), ...mentions);
  });

  test('an invalid OpenAPI document names the file and the JSON pointer', async () => {
    const { invalid } = await brokenContracts();
    expectOneLineError(await runCli(['--spec', invalid]), invalid, '#/paths/~1things/get/responses/200');
  });

  test('a contract that is not YAML names the file', async () => {
    const { syntax } = await brokenContracts();
    expectOneLineError(await runCli(['--spec', syntax]), syntax);
  });

  test('a dangling $ref names the file and the pointer', async () => {
    const { dangling } = await brokenContracts();
    expectOneLineError(await runCli(['--spec', dangling]), dangling, '#/components/schemas/Nope');
  });

  test('an empty contract file (or /dev/null) is named as not an OpenAPI description', async () => {
    const empty = join(await tempDir(), 'empty.yaml');
    await writeFile(empty, '');
    expectOneLineError(await runCli(['--spec', empty]), empty, 'not an OpenAPI or Swagger description');
    expectOneLineError(await runCli(['--spec', '/dev/null']), '/dev/null', 'not an OpenAPI or Swagger description');
  });

  test('a contract file that does not exist names the file', async () => {
    const missing = join(await tempDir(), 'nowhere.yaml');
    expectOneLineError(await runCli(['--spec', missing]), missing);
  });

  test('--base-url without a token mentions CONFORMANCE_TOKEN', async () => {
    const started = await startVariant();
    try {
      const run = await runCli(['--base-url', started.svc.customerBaseUrl, '--foreign-trade-base-url', started.svc.foreignTradeBaseUrl]);
      expectOneLineError(run, 'CONFORMANCE_TOKEN');
    } finally {
      await started.close();
    }
  });

  test('an unreachable target (a closed port) is "target unreachable"', async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const run = await runCli(['--base-url', `${base}/customer-service`, '--foreign-trade-base-url', `${base}/foreign-trade-service`], { env: { CONFORMANCE_TOKEN: TOKEN } });
    expectOneLineError(run, 'target unreachable', base);
    expect(run.stderr).not.toContain(TOKEN);
  });
});

describe.concurrent('a local input error is said as such even when the target is unreachable (the probe never hides it)', () => {
  const SWAGGER = ['swaggerVersion: "1.2"', 'apis: []', ''].join('\n');
  type Case = { files: (dir: string, broken: Awaited<ReturnType<typeof brokenContracts>>) => Promise<{ args: string[]; mentions: string[] }> };
  const table: Array<[string, Case]> = [
    ['a --spec file that does not exist', { files: async (dir) => ({ args: ['--spec', join(dir, 'nowhere.yaml')], mentions: [join(dir, 'nowhere.yaml'), 'file not found'] }) }],
    ['a YAML syntax error', { files: async (_dir, broken) => ({ args: ['--spec', broken.syntax], mentions: [broken.syntax] }) }],
    ['a Swagger 1.2 file (a version the engine does not read)', {
      files: async (dir) => {
        const file = join(dir, 'swagger.yaml');
        await writeFile(file, SWAGGER);
        return { args: ['--spec', file], mentions: [file, '#/swaggerVersion', 'Swagger 1.2 is not a version this tool reads'] };
      },
    }],
    ['a dangling $ref', { files: async (_dir, broken) => ({ args: ['--spec', broken.dangling], mentions: [broken.dangling, '#/components/schemas/Nope'] }) }],
    ['an invalid OpenAPI document', { files: async (_dir, broken) => ({ args: ['--spec', broken.invalid], mentions: [broken.invalid, '#/paths/~1things/get/responses/200'] }) }],
    ['an --examples file that does not exist', { files: async (dir) => ({ args: ['--examples', join(dir, 'no-examples.yaml')], mentions: ['no-examples.yaml'] }) }],
    ['a --profile that is not YAML', {
      files: async (dir) => {
        const file = join(dir, 'profile.yaml');
        await writeFile(file, 'services: [\n');
        return { args: ['--profile', file], mentions: ['profile.yaml'] };
      },
    }],
    ['a waiver naming an unknown check', {
      files: async (dir) => {
        const file = join(dir, 'waivers.yaml');
        await writeFile(file, '- operationId: create-address-type\n  check: no-such-check\n  reason: known\n  expires: 2030-01-01\n');
        return { args: ['--waivers', file], mentions: ['waivers.yaml', 'no-such-check'] };
      },
    }],
    ['a --deployment-spec file that does not exist', { files: async (dir) => ({ args: ['--deployment-spec', join(dir, 'deployed.yaml')], mentions: [join(dir, 'deployed.yaml')] }) }],
    ['an unknown key in the config file', {
      files: async (dir) => {
        const file = join(dir, 'conformance.config.yaml');
        await writeFile(file, 'tiemout: 5\n');
        return { args: ['--config', file], mentions: ['unknown key "tiemout"'] };
      },
    }],
  ];
  test.each(table)('%s', async (_name, c) => {
    const dir = await tempDir();
    const { args, mentions } = await c.files(dir, await brokenContracts());
    const base = `http://127.0.0.1:${await closedPort()}`;
    const run = await runCli(['--base-url', `${base}/customer-service`, '--foreign-trade-base-url', `${base}/foreign-trade-service`, ...args], { env: { CONFORMANCE_TOKEN: TOKEN } });
    expectOneLineError(run, ...mentions);
    expect(run.stderr).not.toContain('unreachable');
  });

  // With every local input right, the same target is "target unreachable" (the test above in "bad input").
});

/** A TCP server on 127.0.0.1 that counts the connections it is offered (and closes each at once). */
async function countingServer(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe.concurrent('a base URL that is not http:// or https://: exit 2, one line naming where it came from, nothing sent', () => {
  const SCHEME = 'a base URL must be an http:// or https:// URL';
  type Case = { args: (ok: string) => string[]; env?: (ok: string) => Record<string, string>; config?: (ok: string) => string; mentions: string[] };
  const table: Array<[string, Case]> = [
    ['--base-url htp://gw/customer-service', { args: (ok) => ['--base-url', 'htp://gw/customer-service', '--foreign-trade-base-url', `${ok}/foreign-trade-service`], mentions: ["'--base-url <url>'", SCHEME, 'the scheme is htp'] }],
    ['--base-url ftp://…', { args: (ok) => ['--base-url', 'ftp://127.0.0.1/customer-service', '--foreign-trade-base-url', `${ok}/foreign-trade-service`], mentions: ["'--base-url <url>'", SCHEME, 'the scheme is ftp'] }],
    ['--foreign-trade-base-url ftp://…', { args: (ok) => ['--base-url', `${ok}/customer-service`, '--foreign-trade-base-url', 'ftp://127.0.0.1/foreign-trade-service'], mentions: ["'--foreign-trade-base-url <url>'", SCHEME, 'ftp'] }],
    ['--server foreign-trade-service=file:///x', { args: (ok) => ['--base-url', `${ok}/customer-service`, '--server', 'foreign-trade-service=file:///x'], mentions: ['--server foreign-trade-service', SCHEME, 'file'] }],
    ['CONFORMANCE_BASE_URL=ftp://…', { args: () => [], env: (ok) => ({ CONFORMANCE_BASE_URL: 'ftp://127.0.0.1/customer-service', CONFORMANCE_FOREIGN_TRADE_BASE_URL: `${ok}/foreign-trade-service` }), mentions: ['CONFORMANCE_BASE_URL', SCHEME, 'ftp'] }],
    ['CONFORMANCE_FOREIGN_TRADE_BASE_URL=htp://…', { args: (ok) => ['--base-url', `${ok}/customer-service`], env: () => ({ CONFORMANCE_FOREIGN_TRADE_BASE_URL: 'htp://gw/foreign-trade-service' }), mentions: ['CONFORMANCE_FOREIGN_TRADE_BASE_URL', SCHEME, 'htp'] }],
    ['baseUrl: ftp://… in the config file', { args: () => [], config: (ok) => `baseUrl: ftp://127.0.0.1/customer-service\nforeignTradeBaseUrl: ${ok}/foreign-trade-service\n`, mentions: ['baseUrl', 'must be an http:// or https:// URL', 'the scheme is ftp'] }],
    ['servers: { foreign-trade-service: htp://… } in the config file', { args: (ok) => ['--base-url', `${ok}/customer-service`], config: () => 'servers: { foreign-trade-service: "htp://gw/foreign-trade-service" }\n', mentions: ['servers.foreign-trade-service', 'must be an http:// or https:// URL', 'htp'] }],
    ['pact verify --base-url ftp://…', { args: (ok) => ['pact', 'verify', '--base-url', 'ftp://127.0.0.1/customer-service', '--foreign-trade-base-url', `${ok}/foreign-trade-service`], mentions: ["'--base-url <url>'", SCHEME, 'ftp'] }],
  ];
  test.each(table)('%s', async (_name, c) => {
    const ok = await countingServer();
    try {
      const dir = await tempDir();
      const config = c.config ? join(dir, 'conformance.config.yaml') : undefined;
      if (config) await writeFile(config, c.config!(ok.url));
      const run = await runCli([...c.args(ok.url), ...(config ? ['--config', config] : [])], { env: { CONFORMANCE_TOKEN: TOKEN, ...c.env?.(ok.url) } });
      expectOneLineError(run, ...c.mentions);
      expect(run.stderr).not.toContain('unreachable');
      expect(run.stderr).not.toContain('UND_ERR');
      // Said before anything was sent, not even to the well-formed base URL.
      expect(ok.connections()).toBe(0);
    } finally {
      await ok.close();
    }
  });
});

/** A port that was free a moment ago and is closed now. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Runs against the reference service

/** A failing deployment that echoes the credentials it receives, in a header and in the body. */
const echoing: Variant = {
  handlers: {
    'customer-get-cache-key-list': async (req, next) => {
      const reply = await next();
      if (reply.status !== 200) return reply;
      const auth = String(req.headers.authorization);
      return { status: 418, headers: { 'x-echo': auth }, body: { echoed: auth, again: auth.replace(/^Bearer /, '') } };
    },
    'create-user': async (req, next) => {
      const reply = await next();
      return reply.status === 200 ? { ...reply, body: { ...objectBody(reply), seen: String(req.headers.authorization) } } : reply;
    },
  },
};

const failingRun = once(() => runAgainst(echoing, []));
const readOnlyRun = once(() => runAgainst({}, ['--read-only', '--quiet'], 'env'));
const defaultRun = once(() => limit(() => runCli(['--quiet'])));

describe.concurrent('runs', () => {
  test(
    'the token never appears in stdout, stderr, results.json, junit.xml or index.html of a failing run',
    async () => {
      const run = await failingRun();
      expect(run.code).toBe(1);
      const results = requireResults(run);
      expect(operation(results, 'customer-get-cache-key-list').outcome).toBe('failed');
      // The reports carry curl lines, with the placeholder where the token was.
      const junit = await readFile(join(run.out, 'junit.xml'), 'utf8');
      expect(junit).toContain('curl ');
      expect(junit).toContain('$CONFORMANCE_TOKEN');
      const positive = operation(results, 'customer-get-cache-key-list').cases.find((c) => c.name === 'positive');
      expect(positive?.curl).toContain('$CONFORMANCE_TOKEN');
      expect(JSON.stringify(positive?.exchanges)).toContain('$CONFORMANCE_TOKEN');
      await expectNoToken(run);
      expectValidResults(results);
    },
    RUN_TIMEOUT,
  );

  test(
    '--read-only sends no unsafe positive call: those cases are skipped with a reason, exit 0',
    async () => {
      const run = await readOnlyRun();
      expect(run.code, run.stderr).toBe(0);
      const results = requireResults(run);
      let skippedUnsafe = 0;
      for (const op of results.operations.filter((o) => o.method !== null && UNSAFE.has(o.method))) {
        for (const c of op.cases.filter((x) => x.kind === 'positive' || x.kind === 'lifecycle')) {
          expect(c.outcome, `${op.operationId} › ${c.name}`).toBe('skipped');
          expect(c.skipReason).toMatch(/read-only/);
          expect(c.exchanges).toEqual([]);
          skippedUnsafe++;
        }
        // Auth probes of unsafe methods carry no body.
        for (const c of op.cases.filter((x) => x.kind === 'auth')) for (const e of c.exchanges) expect(e.request.body).toBeUndefined();
      }
      expect(skippedUnsafe).toBeGreaterThanOrEqual(12);
      // Nothing unsafe sent with valid credentials succeeded: the deployment was not changed.
      const changed = results.operations
        .flatMap((o) => o.cases.flatMap((c) => c.exchanges))
        .filter((e) => UNSAFE.has(e.request.method) && e.request.headers['authorization'] !== undefined && (e.response?.status ?? 0) < 300);
      expect(changed.map((e) => `${e.request.method} ${e.request.url} ${e.request.body ?? ''}`)).toEqual([]);
      expect(operation(results, 'customer-get-cache-key-list').cases.find((c) => c.name === 'positive')?.outcome).toBe('passed');
      // What could not run is untested, never passed: only the one safe operation without path ids passes.
      expect(results.counts.passed).toBe(1);
      expect(results.counts.untested).toBe(14);
      expect(results.verdictLine).toMatch(/^conformant for 1 of 15 operations; 14 untested: /);
      await expectNoToken(run);
      expectValidResults(results);
    },
    RUN_TIMEOUT,
  );

  test(
    '--read-only: skipped scenario tests do not show up as operations',
    async () => {
      const results = requireResults(await readOnlyRun());
      const strays = results.operations.filter((o) => o.method === null && o.outcome !== 'not-described');
      expect(strays.map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
      expect(results.counts.skipped).toBe(0);
    },
    RUN_TIMEOUT,
  );

  test(
    '--include create-address-type runs only that operation',
    async () => {
      const run = await runAgainst({}, ['--include', 'create-address-type', '--quiet']);
      expect(run.code, run.stderr).toBe(0);
      const results = requireResults(run);
      expect(results.operations.filter((o) => o.cases.length > 0).map((o) => o.operationId)).toEqual(['create-address-type']);
      const sent = results.operations.flatMap((o) => o.cases.flatMap((c) => c.exchanges.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)));
      // The only call that changes anything is the included create; the rest are read-backs of what it created
      // and, the create being the one operation of its path in the run, that path asked with the safe methods the
      // contract does not document there.
      const others = new Set(sent.filter((s) => !s.startsWith('GET ')));
      expect(others).toContain('POST /customer-service/address-types');
      expect([...others].filter((s) => !['POST', 'TRACE', 'OPTIONS'].map((m) => `${m} /customer-service/address-types`).includes(s))).toEqual([]);
      expect(sent.filter((s) => s.startsWith('GET ')).every((s) => /^GET \/customer-service\/address-types\/[0-9a-f-]{36}\/fields$/.test(s))).toBe(true);
      expect(results.coverage.tested).toBe(1);
      await expectNoToken(run);
      expectValidResults(results);
    },
    RUN_TIMEOUT,
  );

  test(
    '--shard 1/2 and --shard 2/2 cover disjoint sets of operations whose union is all 15',
    async () => {
      const [one, two] = await Promise.all([runAgainst({}, ['--shard', '1/2', '--quiet'], 'env'), runAgainst({}, ['--shard', '2/2', '--quiet'])]);
      const generated = (run: CliRun): string[] =>
        requireResults(run)
          .operations.filter((o) => o.method !== null && o.cases.some((c) => c.kind !== 'scenario'))
          .map((o) => o.operationId);
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      const a = generated(one);
      const b = generated(two);
      expect(a.length).toBeGreaterThan(0);
      expect(b.length).toBeGreaterThan(0);
      expect(a.filter((id) => b.includes(id))).toEqual([]);
      expect([...a, ...b].sort()).toEqual([...DESCRIBED]);
      expect(requireResults(one).shard).toEqual({ index: 1, count: 2 });
      expect(requireResults(two).shard).toEqual({ index: 2, count: 2 });
      for (const run of [one, two]) {
        await expectNoToken(run);
        expectValidResults(requireResults(run));
      }
    },
    RUN_TIMEOUT,
  );

  test(
    'the same --seed gives the same request bodies',
    async () => {
      const flags = ['--include', 'create-address-type,update-address-type-field', '--seed', '7', '--quiet'];
      const [first, second] = await Promise.all([runAgainst({}, flags), runAgainst({}, flags, 'env')]);
      const bodies = (run: CliRun): string[] =>
        requireResults(run).operations.flatMap((o) =>
          o.cases.flatMap((c) => c.exchanges.map((e) => `${o.operationId} › ${c.name}: ${e.request.method} ${e.request.body ?? ''}`)),
        );
      expect(requireResults(first).seed).toBe(7);
      const a = bodies(first);
      expect(a.filter((x) => x.includes('{')).length).toBeGreaterThan(20);
      expect(bodies(second)).toEqual(a);
    },
    RUN_TIMEOUT,
  );

  test(
    'the default run (embedded reference service) is conformant with all 15 described operations passed',
    async () => {
      const run = await defaultRun();
      expect(run.code, run.stderr).toBe(0);
      const results = requireResults(run);
      expect(results.verdict).toBe('conformant');
      expect(results.target.embedded).toBe(true);
      expect(Object.values(outcomes(results)).every((o) => o === 'passed'), summary(results).join('\n')).toBe(true);
      expect(results.coverage).toMatchObject({ catalogTotal: 287, described: 15, notDescribed: 272, tested: 15 });
      expect(results.counts.passed).toBe(15);
      expect(results.counts.failed + results.counts.missing + results.counts.errored).toBe(0);
      expect(run.stdout).toMatch(/CONFORMANT/);
      expectValidResults(results);
      // The 272 catalog operations the contract does not describe and the 7 of them the report lists (the interface
      // shows them without a method or path) are two counts with two names, on the console and in the HTML report.
      expect(results.counts['not-described']).toBe(7);
      expect(results.operations.filter((o) => o.outcome === 'not-described').every((o) => o.method === null && o.path === null)).toBe(true);
      expect(run.stdout).toContain('Coverage: 15 of 287 catalog operations described · 15 tested · 272 not described by the contract\n');
      expect(run.stdout).toContain('Operations: 15 passed · 0 failed · 7 named in the interface without method or path: not testable\n');
      expect(run.stdout.match(/not described/g)).toHaveLength(1);
      const html = await readFile(join(run.out, 'index.html'), 'utf8');
      expect(html).toContain('15 of 287 catalog operations described · 15 tested · 272 not described by the contract');
      expect(html).toContain('<span class="n">7</span> <span class="label">named in the interface without method or path: not testable</span>');
    },
    RUN_TIMEOUT,
  );

  test(
    'an interrupted run (SIGINT) still writes results.json with interrupted: true, and exits 2',
    async () => {
      let signalledAt = 0;
      const hanging: Variant = { handlers: Object.fromEntries(OPERATION_IDS.map((id) => [id, () => never()])) };
      const run = await runAgainst(hanging, ['--timeout', '10000'], 'env', {
        onSpawn: (child) => {
          let seen = '';
          child.stderr?.on('data', (chunk: Buffer | string) => {
            seen += chunk.toString();
            if (signalledAt === 0 && seen.includes('testing')) {
              signalledAt = performance.now();
              setTimeout(() => child.kill('SIGINT'), 1_500);
            }
          });
        },
      });
      expect(signalledAt).toBeGreaterThan(0);
      const results = requireResults(run);
      expect(results.interrupted).toBe(true);
      expect(run.code).toBe(2);
      expect(results.verdict).toBe('incomplete');
      expectValidResults(results);
    },
    RUN_TIMEOUT,
  );
});
