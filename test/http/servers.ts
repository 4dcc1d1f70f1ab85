/**
 * Real parts for the client tests, all on 127.0.0.1: a CONNECT-capable HTTP proxy that counts what went
 * through it, certificates made with openssl (a CA, a server certificate, a client certificate), and a
 * TLS server that requires a client certificate signed by that CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestProxy {
  url: string;
  /** host:port of every CONNECT tunnel and absolute-form request that went through. */
  targets: string[];
  /** Every request the proxy received, in order: a CONNECT (host:port) or an absolute-form request (its URL). */
  requests: Array<{ form: 'connect' | 'absolute'; target: string; refused: boolean }>;
  close(): Promise<void>;
}

/**
 * A small forward proxy: CONNECT tunnels and absolute-form HTTP requests, to 127.0.0.1 only. With `connectPorts`,
 * a CONNECT to any other port is refused with 403, the way Squid's default `http_access deny CONNECT !SSL_ports`
 * (SSL_ports: 443) and many corporate proxies refuse it; absolute-form requests are forwarded to any port.
 */
export async function startProxy(options: { connectPorts?: number[] } = {}): Promise<TestProxy> {
  const targets: string[] = [];
  const requests: TestProxy['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/');
    } catch {
      // Origin form (`GET /path`): a request meant for the target, not for a proxy.
      requests.push({ form: 'absolute', target: req.url ?? '', refused: true });
      return void res.writeHead(400).end();
    }
    const refused = url.hostname !== '127.0.0.1';
    requests.push({ form: 'absolute', target: url.href, refused });
    targets.push(url.host);
    if (refused) return void res.writeHead(403).end();
    const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const refused = host !== '127.0.0.1' || (options.connectPorts !== undefined && !options.connectPorts.includes(Number(port)));
    requests.push({ form: 'connect', target: req.url ?? '', refused });
    if (refused) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    requests,
    close: () => closeServer(server, sockets),
  };
}

export async function closeServer(server: Server, sockets?: Set<Socket>): Promise<void> {
  for (const s of sockets ?? []) s.destroy();
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface Pki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA, which the server must refuse. */
  strangerCert: string;
  strangerKey: string;
  remove(): void;
}

/** A CA and certificates for 127.0.0.1, made with openssl in a temporary directory. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-pki-'));
  const f = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ca = (prefix: string) => ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${prefix} test CA`, '-keyout', f(`${prefix}-ca.key`), '-out', f(`${prefix}-ca.pem`));
  const leaf = (prefix: string, caPrefix: string, cn: string, ext: string) => {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', f(`${prefix}.key`), '-out', f(`${prefix}.csr`));
    writeFileSync(f(`${prefix}.ext`), ext);
    ssl('x509', '-req', '-in', f(`${prefix}.csr`), '-CA', f(`${caPrefix}-ca.pem`), '-CAkey', f(`${caPrefix}-ca.key`), '-CAcreateserial', '-days', '2', '-extfile', f(`${prefix}.ext`), '-out', f(`${prefix}.pem`));
  };
  ca('test');
  ca('stranger');
  leaf('server', 'test', '127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'test', 'conformance client', 'extendedKeyUsage=clientAuth\n');
  leaf('stranger', 'stranger', 'stranger client', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caCert: f('test-ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
    strangerCert: f('stranger.pem'),
    strangerKey: f('stranger.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface TestServer {
  url: string;
  /** Headers of every request that reached a handler. */
  seen: Array<IncomingMessage['headers'] & { ':method'?: string; ':path'?: string }>;
  close(): Promise<void>;
}

function handle(handler: Handler, seen: TestServer['seen']) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ ...req.headers, ':method': req.method ?? '', ':path': req.url ?? '' });
      handler(req, res, body);
    });
  };
}

/** An HTTP server on 127.0.0.1. */
export async function startHttp(handler: Handler): Promise<TestServer> {
  const seen: TestServer['seen'] = [];
  const server = createHttpServer(handle(handler, seen));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => closeServer(server) };
}

/** A TLS server on 127.0.0.1 that requires a client certificate signed by the test CA. */
export async function startMutualTls(pki: Pki, handler: Handler): Promise<TestServer> {
  const seen: TestServer['seen'] = [];
  const server = createHttpsServer(
    { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey), ca: readFileSync(pki.caCert), requestCert: true, rejectUnauthorized: true },
    handle(handler, seen),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => closeServer(server as unknown as Server) };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
