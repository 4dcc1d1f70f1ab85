import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from '../../src/runner/model.ts';
import { carriesToken, shellQuote, toCurl } from '../../src/runner/report/curl.ts';
import { cannotRun } from '../support/cannot-run.ts';

const TOKEN = 'tok-123.abc/def=="$(touch /tmp/pwned)"`id`';
const HAS_CURL = spawnSync('curl', ['--version']).status === 0;
const HAS_BASH = spawnSync('bash', ['--version']).status === 0;

interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  raw: Buffer;
}

let server: Server;
let base = '';
let last: Received | undefined;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers[(req.rawHeaders[i] ?? '').toLowerCase()] = req.rawHeaders[i + 1] ?? '';
      last = { method: req.method ?? '', url: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), raw: Buffer.concat(chunks) };
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs the command with bash (asynchronously: the echo server lives in this process). */
function runInBash(command: string): Promise<{ status: number | null; stderr: string }> {
  last = undefined;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} -sS -o /dev/null`], {
      // A minimal environment: the token variable, no proxy settings, no user curl config.
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CONFORMANCE_TOKEN: TOKEN, HOME: '/nonexistent-home' },
      timeout: 20_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

const requests: Array<[string, (base: string) => RecordedRequest]> = [
  [
    'GET with query brackets and braces (no curl globbing)',
    (b) => ({
      method: 'GET',
      url: `${b}/customer-service/address-types/6f1c/fields?filter[name]=a%20b&orderBy={x}&pageIndex=0`,
      headers: { authorization: 'Bearer $CONFORMANCE_TOKEN', accept: 'application/json' },
    }),
  ],
  [
    'POST JSON with quotes, $ and backticks that must stay literal',
    (b) => ({
      method: 'POST',
      url: `${b}/customer-service/address-types`,
      headers: { authorization: 'Bearer $CONFORMANCE_TOKEN', 'content-type': 'application/json', 'x-note': `it's "$HOME" and \`id\`` },
      body: `{"code":"O'Brien","name":"$HOME \`whoami\` $(id) \\\\ \\"q\\""}`,
    }),
  ],
  [
    'PUT with a multi-line, non-ASCII body',
    (b) => ({
      method: 'PUT',
      url: `${b}/customer-service/address-types/6f1c`,
      headers: { authorization: 'Bearer $CONFORMANCE_TOKEN', 'content-type': 'application/json; charset=utf-8' },
      body: '{\n  "name": "Çağrı — ünïcödé ✓",\n  "isActive": true\n}\n',
    }),
  ],
  [
    'DELETE without a body',
    (b) => ({ method: 'DELETE', url: `${b}/customer-service/address-types/6f1c`, headers: { authorization: 'Bearer $CONFORMANCE_TOKEN' } }),
  ],
  [
    'POST without a recorded content-type sends none',
    (b) => ({ method: 'POST', url: `${b}/customer-service/caches/refresh`, headers: { authorization: 'Bearer $CONFORMANCE_TOKEN' }, body: 'key=a&mode=b' }),
  ],
  [
    'an empty header value and a dot segment in the path',
    (b) => ({
      method: 'GET',
      url: `${b}/customer-service/a/../address-types`,
      headers: { authorization: 'Bearer $CONFORMANCE_TOKEN', 'x-empty': '' },
    }),
  ],
  [
    'a request without credentials (auth case)',
    (b) => ({ method: 'GET', url: `${b}/customer-service/address-types`, headers: { accept: '*/*' } }),
  ],
];

describe('toCurl', () => {
  test('single-quotes every argument but the token header', () => {
    const cmd = toCurl({
      method: 'POST',
      url: 'https://gw/customer-service/address-types',
      headers: { Authorization: 'Bearer $CONFORMANCE_TOKEN', 'content-type': 'application/json' },
      body: `{"name":"it's"}`,
    });
    expect(cmd).toBe(
      `curl -g -X POST 'https://gw/customer-service/address-types' -H "Authorization: Bearer $CONFORMANCE_TOKEN" -H 'content-type: application/json' --data-raw '{"name":"it'\\''s"}'`,
    );
  });

  test('GET without a body needs no -X; HEAD uses --head', () => {
    expect(toCurl({ method: 'GET', url: 'http://h/x', headers: {} })).toBe(`curl -g 'http://h/x'`);
    expect(toCurl({ method: 'HEAD', url: 'http://h/x', headers: {} })).toBe(`curl -g --head 'http://h/x'`);
  });

  test('a POST, PUT or PATCH without a body says Content-Length: 0, as the HTTP client sent it (some servers answer it differently)', () => {
    expect(toCurl({ method: 'POST', url: 'http://h/x', headers: {} })).toBe(`curl -g -X POST 'http://h/x' -H 'content-length: 0'`);
    expect(toCurl({ method: 'PATCH', url: 'http://h/x', headers: {} })).toBe(`curl -g -X PATCH 'http://h/x' -H 'content-length: 0'`);
    expect(toCurl({ method: 'DELETE', url: 'http://h/x', headers: {} })).toBe(`curl -g -X DELETE 'http://h/x'`);
  });

  test('content-length and hop-by-hop headers are left to curl', () => {
    expect(toCurl({ method: 'POST', url: 'http://h/x', headers: { 'content-length': '2', connection: 'keep-alive', 'content-type': 'text/plain' }, body: 'ab' })).toBe(
      `curl -g -X POST 'http://h/x' -H 'content-type: text/plain' --data-raw 'ab'`,
    );
  });

  test.each([
    ['Bearer $CONFORMANCE_TOKEN', true],
    ['$CONFORMANCE_TOKEN', true],
    ['Bearer $CONFORMANCE_TOKEN; x', false],
    ['Bearer abc', false],
  ])('carriesToken(%j) is %s', (value, want) => {
    expect(carriesToken(value)).toBe(want);
  });

  test.each([
    ['plain', `'plain'`],
    [`it's`, `'it'\\''s'`],
    ['$HOME `id` "q" \\', `'$HOME \`id\` "q" \\'`],
  ])('shellQuote(%j)', (text, want) => {
    expect(shellQuote(text)).toBe(want);
  });
});

describe('the curl command, run by bash against a local echo server', () => {
  test.for(requests)('%s', async ([, make], { skip }) => {
    if (!HAS_BASH || !HAS_CURL) cannotRun(skip, 'bash or curl not installed: cannot run the generated command');
    const request = make(base);
    const run = await runInBash(toCurl(request));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const got = last;
    if (!got) throw new Error('the server received nothing');
    expect(got.method).toBe(request.method);
    expect(`${base}${got.url}`).toBe(request.url);
    for (const [name, value] of Object.entries(request.headers)) {
      const want = value.replace('$CONFORMANCE_TOKEN', TOKEN);
      expect(got.headers[name.toLowerCase()], `header ${name}`).toBe(want);
    }
    expect(got.body).toBe(request.body ?? '');
    if (request.body !== undefined && !Object.keys(request.headers).some((h) => h.toLowerCase() === 'content-type')) {
      expect(got.headers['content-type']).toBeUndefined();
    }
  });
});

describe('a body of bytes that is not UTF-8', () => {
  test('reproduces byte for byte (printf octal escapes): 0x80, a quote, a percent sign, a backslash, a newline', async ({ skip }) => {
    if (!HAS_BASH || !HAS_CURL) cannotRun(skip, 'bash or curl not installed: cannot run the generated command');
    const bytes = Buffer.concat([Buffer.from('{"a\'%\\'), Buffer.from([0x80, 0xff, 0x0a]), Buffer.from('é":1}')]);
    const request: RecordedRequest = { method: 'POST', url: `${base}/x`, headers: { 'content-type': 'application/json' }, body: bytes.toString('latin1'), bodyEncoding: 'latin1' };
    const line = toCurl(request);
    expect(line).toContain('--data-binary "$(printf ');
    const run = await runInBash(line);
    expect(run.stderr).toBe('');
    expect(last?.raw.toString('hex')).toBe(bytes.toString('hex'));
  });
});

describe('compressed answers', () => {
  test('a request that asked for compression reproduces with --compressed, so curl prints the decoded body', () => {
    const request: RecordedRequest = {
      method: 'GET',
      url: 'http://127.0.0.1:1/address-types',
      headers: { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' },
    };
    const line = toCurl(request);
    expect(line).toContain(' --compressed');
    expect(line.toLowerCase()).not.toContain('accept-encoding');
    expect(toCurl({ ...request, headers: { accept: 'application/json' } })).not.toContain('--compressed');
  });
});
