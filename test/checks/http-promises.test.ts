/**
 * Two promises every answer keeps, whatever the contract says: no stack trace in a body
 * (stack-trace-not-exposed, WFC 209), and no content in a 204 or 304 (no-content-no-body). The recogniser on
 * samples of each runtime's traces and of the error envelopes that are no trace; both checks on constructed
 * exchanges; what the client records of a 204 or 304 that breaks its framing, from a raw socket server (Node's
 * own http server strips a 204's body).
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { noContentBreaches, noContentNoBody } from '../../src/runner/checks/no-content-no-body.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import { bodyTexts, findStackTrace, SCAN_BYTES, stackTraceNotExposed } from '../../src/runner/checks/stack-trace-not-exposed.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { HttpClient } from '../../src/runner/http/client.ts';
import { WorkerTransport } from '../../src/runner/http/transport.ts';
import type { Operation, RecordedResponse } from '../../src/runner/model.ts';

/** The language of the trace a body carries (JSON string values and HTML text searched too), or undefined. */
function traceIn(body: string, json?: unknown): string | undefined {
  for (const text of bodyTexts({ body, json })) {
    const seen = findStackTrace(text);
    if (seen) return seen.language;
  }
  return undefined;
}

const asJson = (value: unknown): [string, unknown] => [JSON.stringify(value), value];

const JAVA = [
  'java.lang.IllegalStateException: item 7 is gone',
  '\tat com.acme.items.ItemService.find(ItemService.java:42)',
  '\tat com.acme.items.ItemController.get(ItemController.java:27)',
  '\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)',
  'Caused by: java.sql.SQLException: connection refused',
  '\tat org.h2.Driver.connect(Driver.java:59)',
  '\t... 48 more',
].join('\n');
const DOTNET = [
  'System.InvalidOperationException: Sequence contains no elements',
  '   at System.Linq.ThrowHelper.ThrowNoElementsException()',
  '   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)',
  '   at Acme.Api.Controllers.ItemsController.Get(Int32 id) in C:\\src\\Acme.Api\\Controllers\\ItemsController.cs:line 42',
  '--- End of stack trace from previous location ---',
  '   at Microsoft.AspNetCore.Mvc.Infrastructure.ControllerActionInvoker.<InvokeActionMethodAsync>g__Logged|12_1(ControllerActionInvoker invoker)',
].join('\r\n');
const PYTHON = ['Traceback (most recent call last):', '  File "/app/main.py", line 12, in read_item', '    return items[item_id]', 'KeyError: 7'].join('\n');
const NODE = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  '    at getItem (/app/src/items.js:10:15)',
  '    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)',
  '    at async Promise.all (index 0)',
  '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
].join('\n');
const GO = [
  'panic: runtime error: index out of range [3] with length 3',
  '',
  'goroutine 1 [running]:',
  'main.handler(0xc000010000)',
  '\t/app/main.go:42 +0x1d',
  'net/http.HandlerFunc.ServeHTTP(...)',
  '\t/usr/local/go/src/net/http/server.go:2136 +0x29',
].join('\n');
const RUBY = ["NoMethodError (undefined method `name' for nil):", "app/models/item.rb:12:in 'save'", "app/controllers/items_controller.rb:8:in `create'"].join('\n');
const PHP = [
  'PHP Fatal error:  Uncaught Exception: boom in /var/www/html/index.php:5',
  'Stack trace:',
  '#0 /var/www/html/index.php(12): fail()',
  '#1 {main}',
  '  thrown in /var/www/html/index.php on line 5',
].join('\n');

/** Express's default error page (finalhandler): with the stack in development, the status text in production. */
const expressPage = (pre: string) =>
  `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${pre}</pre>\n</body>\n</html>\n`;
const EXPRESS_DEV = expressPage(
  'TypeError: Cannot read properties of undefined (reading &#39;id&#39;)<br> &nbsp; &nbsp;at /app/index.js:12:20<br> &nbsp; &nbsp;at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)<br> &nbsp; &nbsp;at next (/app/node_modules/express/lib/router/route.js:149:13)',
);

describe('the stack trace recogniser', () => {
  test.each([
    ['Java', JAVA, 'Java/Kotlin (JVM)'],
    ['Kotlin, two frames', 'at com.acme.App.main(App.kt:5)\nat kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)', 'Java/Kotlin (JVM)'],
    ['Java, one frame under "Exception in thread"', 'Exception in thread "main" java.lang.NullPointerException\n\tat com.acme.Main.main(Main.java:3)', 'Java/Kotlin (JVM)'],
    ['.NET (CR LF)', DOTNET, '.NET'],
    ['.NET, one frame and "--- End of stack trace"', '   at Acme.Foo.Bar() in /src/Foo.cs:line 42\n--- End of stack trace from previous location ---', '.NET'],
    ['Python', PYTHON, 'Python'],
    ['Python, two frames without the header', '  File "/app/a.py", line 3, in f\n  File "/app/b.py", line 9, in g', 'Python'],
    ['Node.js', NODE, 'Node.js'],
    ['Node.js, anonymous frames', 'Error: x\n    at Object.<anonymous> (/app/x.js:10:15)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)', 'Node.js'],
    ['Go panic', GO, 'Go'],
    ['Go, pkg/errors frames', 'boom\nmain.load\n\t/app/load.go:12\nmain.main()\n\t/app/main.go:8\nmain.run(0x1)\n\t/app/run.go:3', 'Go'],
    ['Ruby', RUBY, 'Ruby'],
    ['PHP', PHP, 'PHP'],
  ])('%s: found', (_, text, language) => {
    expect(traceIn(text)).toBe(language);
  });

  test.each([
    ['Spring with include-stacktrace', { timestamp: '2024-05-01T10:15:30.000+00:00', status: 500, error: 'Internal Server Error', trace: JAVA, message: 'item 7 is gone', path: '/items/7' }, 'Java/Kotlin (JVM)'],
    ['ASP.NET ProblemDetails in development', { title: 'boom', status: 500, exception: { details: DOTNET }, traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' }, '.NET'],
    ['FastAPI with the traceback in detail', { detail: PYTHON }, 'Python'],
    ['a Rails backtrace, a frame per string', { error: 'boom', backtrace: ["app/models/item.rb:12:in 'save'", "app/controllers/items_controller.rb:8:in `create'"] }, 'Ruby'],
  ])('JSON, %s: found in its string values', (_, value, language) => {
    const [body, json] = asJson(value);
    expect(traceIn(body, json)).toBe(language);
  });

  test('JSON that was not parsed (cut at the body cap): its escaped line breaks are undone', () => {
    const body = JSON.stringify({ trace: NODE, rest: 'x'.repeat(100) }).slice(0, -20);
    expect(traceIn(body)).toBe('Node.js');
  });

  test("Express's error page in development mode (the stack as HTML): found; in production mode: nothing", () => {
    expect(traceIn(EXPRESS_DEV)).toBe('Node.js');
    expect(traceIn(expressPage('Internal Server Error'))).toBeUndefined();
  });

  test.each([
    ['Spring default error JSON', { timestamp: '2024-05-01T10:15:30.000+00:00', status: 500, error: 'Internal Server Error', path: '/items/7' }],
    ['ASP.NET ProblemDetails with traceId', { type: 'https://tools.ietf.org/html/rfc9110#section-15.6.1', title: 'An error occurred while processing your request.', status: 500, traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' }],
    ['ASP.NET validation problem', { title: 'One or more validation errors occurred.', status: 400, errors: { Name: ['The Name field is required.'] }, traceId: '00-ab-cd-00' }],
    ['FastAPI not found', { detail: 'Not Found' }],
    ['FastAPI validation', { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] }],
    ['an envelope naming where the error is', { message: 'invalid value at /name', path: '/items', errors: ['error at line 3', 'at /name: must be a string'] }],
    ['file:line references as data', { findings: [{ file: 'src/main.go:12' }, { file: 'src/x.go:40' }, { at: 'app/models/item.rb:12' }] }],
  ])('JSON, %s: nothing', (_, value) => {
    const [body, json] = asJson(value);
    expect(traceIn(body, json)).toBeUndefined();
  });

  test.each([
    ['one sentence', 'error at line 3'],
    ['a pointer', 'invalid value at /name'],
    ['an e-mail, a URL and a date', 'write to ann@example.com or see https://example.com/help at 2024-05-01T10:15:30Z'],
    ['times', 'opens at 10:15:30\nat 11:00:00 it closes'],
    ['one Java frame alone', 'at com.acme.Foo.bar(Foo.java:42)'],
    ['one .NET frame alone', '   at Acme.Foo.Bar() in C:\\src\\Foo.cs:line 42'],
    ['one Python frame alone', 'File "/app/x.py", line 3, in f'],
    ['a Python-like sentence', 'File "report.csv", line 3 is invalid\nFile "b.csv", line 4 is invalid'],
    ['one Node frame alone', 'at getItem (/app/src/items.js:10:15)'],
    ['a Go header with no frame', 'goroutine 1 [running]:\npanic: no'],
    ['one Ruby line', "app/models/item.rb:12:in 'save'"],
    ['numbered lines', '#1 first item\n#2 second item: done'],
    ['a header alone', 'Traceback (most recent call last):\nStack trace:\nCaused by: java.lang.Foo'],
    ['plain text', 'Internal Server Error'],
  ])('text, %s: nothing', (_, text) => {
    expect(traceIn(text)).toBeUndefined();
  });

  test('the first frame is what is quoted, shortened; only the first 256 KiB is scanned', () => {
    const long = `  File "/app/${'deep/'.repeat(40)}x.py", line 3, in f`;
    const seen = findStackTrace(`Traceback (most recent call last):\n${long}\n  File "/app/y.py", line 4, in g`);
    expect(seen?.frame.length).toBe(100);
    expect(seen?.frame.startsWith('File "/app/deep/')).toBe(true);
    const padding = 'x'.repeat(SCAN_BYTES);
    expect(traceIn(`${padding}\n${PYTHON}`)).toBeUndefined();
    expect(traceIn(`${'x'.repeat(1000)}\n${PYTHON}`)).toBe('Python');
  });
});

const profile = await loadProfile(GENERIC_PROFILE);
const validator = new SchemaValidator();
const OPERATION: Operation = {
  operationId: 'deleteItem', method: 'DELETE', path: '/items/{id}', group: '/items', service: 's', specFile: 'x.json', pointer: '/paths/~1items~1{id}/delete',
  parameters: [], responses: [{ status: '204', contentTypes: [], pointer: '/paths/~1items~1{id}/delete/responses/204' }], secured: false, extensions: {},
};

function context(response: Partial<RecordedResponse> & { status: number }): CheckContext {
  const body = response.body ?? '';
  return {
    exchange: { request: { method: 'DELETE', url: 'http://127.0.0.1:1/svc/items/7', headers: {} }, response: { headers: {}, body, truncated: false, size: Buffer.byteLength(body), ...response }, durationMs: 1 },
    operation: OPERATION, profile, validator, expectation: 'success', expect: [],
  };
}

describe('stack-trace-not-exposed on an exchange', () => {
  test('a trace: one error naming the call, the status, the language and the first frame, never the whole body', () => {
    const [body, json] = asJson({ message: 'boom', detail: PYTHON });
    const found = stackTraceNotExposed.run(context({ status: 500, headers: { 'content-type': 'application/json' }, body, json }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: 'stack-trace-not-exposed', severity: 'error', operationId: 'deleteItem', actual: 'a Python stack trace' });
    expect(found[0]?.message).toBe(
      'DELETE /svc/items/7 answered 500 with a Python stack trace in its body (first frame: File "/app/main.py", line 12, in read_item), which exposes the service\'s internals.',
    );
    expect(found[0]?.message).not.toContain('KeyError');
  });

  test('any status: a 200 or a 400 that carries one fails too; an envelope without one passes', () => {
    expect(stackTraceNotExposed.run(context({ status: 400, body: DOTNET }))).toHaveLength(1);
    expect(stackTraceNotExposed.run(context({ status: 200, headers: { 'content-type': 'text/html' }, body: EXPRESS_DEV }))).toHaveLength(1);
    const [body, json] = asJson({ timestamp: '2024-05-01T10:15:30Z', status: 500, error: 'Internal Server Error', path: '/items/7' });
    expect(stackTraceNotExposed.run(context({ status: 500, body, json }))).toEqual([]);
  });
});

describe('no-content-no-body on an exchange', () => {
  test.each([
    ['a 204 with nothing', { status: 204 }, []],
    ['a 204 with Content-Length: 0', { status: 204, headers: { 'content-length': '0' } }, []],
    ['a 204 with Content-Length: 5', { status: 204, headers: { 'content-length': '5' } }, ['Content-Length: 5']],
    ['a 204 with Transfer-Encoding', { status: 204, headers: { 'transfer-encoding': 'chunked' } }, ['Transfer-Encoding: chunked']],
    ['a 204 with a body', { status: 204, body: 'hello' }, ['a body of 5 bytes']],
    ['a 204 followed by more bytes', { status: 204, bytesAfterEnd: true }, ['more bytes after its header']],
    ['a 304 with the Content-Length of its representation', { status: 304, headers: { 'content-length': '512' } }, []],
    ['a 304 with Transfer-Encoding', { status: 304, headers: { 'transfer-encoding': 'chunked' } }, []],
    ['a 304 followed by more bytes', { status: 304, bytesAfterEnd: true }, ['more bytes after its header']],
    ['a 200 with a body', { status: 200, body: 'hello', headers: { 'content-length': '5' } }, []],
  ] as const)('%s', (_, response, breaches) => {
    const ctx = context(response as Partial<RecordedResponse> & { status: number });
    expect(noContentBreaches(ctx.exchange.response)).toEqual(breaches);
    const found = noContentNoBody.run(ctx);
    expect(found.map((f) => [f.check, f.severity, f.operationId])).toEqual(breaches.length ? [['no-content-no-body', 'error', 'deleteItem']] : []);
  });

  test('the message names the call, the status and what it carried', () => {
    const [found] = noContentNoBody.run(context({ status: 204, headers: { 'content-length': '5' }, bytesAfterEnd: true }));
    expect(found?.message).toBe(
      'DELETE /svc/items/7 answered 204 with more bytes after its header and Content-Length: 5, but a 204 has no content and no Content-Length or Transfer-Encoding (RFC 9110): a client may read the rest as the next answer.',
    );
  });
});

/** A raw socket server: answers the first request of each connection with `first`, every other with a 200. */
function rawServer(first: string): { server: Server; connections: () => number } {
  let connections = 0;
  const server = createServer((socket) => {
    const own = ++connections;
    let answered = 0;
    let pending = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        socket.write(answered++ === 0 && own === 1 ? first : 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond');
      }
    });
  });
  return { server, connections: () => connections };
}

describe('what the client records of a 204 or 304 that breaks its framing (undici)', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  const start = async (first: string) => {
    const raw = rawServer(first);
    servers.push(raw.server);
    await new Promise<void>((resolve) => raw.server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(raw.server.address() as AddressInfo).port}`, connections: raw.connections };
  };
  const options = { timeoutMs: 5000, bodyCapBytes: 1 << 20, connections: 1, secrets: [] };
  let worker: WorkerTransport;
  beforeAll(() => {
    worker = new WorkerTransport({ client: { insecure: false, httpProxy: '', httpsProxy: '', noProxy: '' }, pool: { timeoutMs: 5000, connections: 1 } });
  });
  afterAll(() => worker.close());

  /** Two requests one after the other: the answer to the first, and whether the second was answered. */
  async function twice(first: string, on: 'this-thread' | 'worker' = 'this-thread') {
    const target = await start(first);
    const client = new HttpClient({ ...options, ...(on === 'worker' ? { transport: worker } : {}) });
    const one = await client.send({ method: 'DELETE', url: `${target.url}/items/7`, headers: {} });
    const two = await client.send({ method: 'GET', url: `${target.url}/items`, headers: {} });
    if (on === 'this-thread') await client.close();
    return { one, second: two.response?.body, connections: target.connections() };
  }

  test('a 204 with Content-Length: 5 and a body: recorded as answered (undici failed it), with its header; the connection is not reused', async () => {
    const { one, second, connections } = await twice('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello');
    expect(one.error).toBeUndefined();
    expect(one.response).toMatchObject({ status: 204, body: '', headers: { 'content-length': '5' } });
    expect(noContentBreaches(one.response!)).toEqual(['Content-Length: 5']);
    expect([second, connections]).toEqual(['second', 2]);
  });

  test('a 304 with a Content-Length (allowed: its representation\'s size): recorded as answered, nothing more', async () => {
    const { one } = await twice('HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n');
    expect(one.response).toMatchObject({ status: 304, body: '', headers: { 'content-length': '5' } });
    expect(one.response?.bytesAfterEnd).toBeUndefined();
  });

  test.each(['this-thread', 'worker'] as const)('a 204 without a length and bytes after it, sent on %s: the bytes are recorded as seen', async (on) => {
    const { one, second } = await twice('HTTP/1.1 204 No Content\r\n\r\nhello', on);
    expect(one.response).toMatchObject({ status: 204, body: '', bytesAfterEnd: true });
    expect(second).toBe('second');
  });

  test('a 304 and bytes after it, and a 204 with a chunked body: seen', async () => {
    expect((await twice('HTTP/1.1 304 Not Modified\r\n\r\nhello')).one.response?.bytesAfterEnd).toBe(true);
    const chunked = (await twice('HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n')).one.response;
    expect(noContentBreaches(chunked!)).toEqual(['more bytes after its header', 'Transfer-Encoding: chunked']);
  });

  test('a correct 204: nothing recorded, and the connection serves the next request', async () => {
    const { one, second, connections } = await twice('HTTP/1.1 204 No Content\r\n\r\n');
    expect(one.response).toMatchObject({ status: 204, body: '' });
    expect(one.response?.bytesAfterEnd).toBeUndefined();
    expect([second, connections]).toEqual(['second', 1]);
  });
});
