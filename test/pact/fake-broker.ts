/**
 * A minimal Pact Broker for tests (127.0.0.1 only): the HAL index, "pacts for verification", the pact
 * documents and the verification-results endpoint. It records what the verifier sent it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BrokerPact {
  consumer: string;
  provider: string;
  version: string;
  pending?: boolean;
  /** The pact document (its _links are added here). */
  pact: Record<string, unknown>;
}

export interface RecordedBrokerRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeBroker {
  url: string;
  requests: RecordedBrokerRequest[];
  close(): Promise<void>;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/hal+json' });
  res.end(JSON.stringify(body));
}

export async function startFakeBroker(pacts: BrokerPact[], opts: { token?: string } = {}): Promise<FakeBroker> {
  const requests: RecordedBrokerRequest[] = [];
  let base = '';
  const pactPath = (p: BrokerPact) => `/pacts/provider/${p.provider}/consumer/${p.consumer}/version/${p.version}`;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return send(res, 401, { error: 'unauthorised' });
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'GET' && url.pathname === '/') {
        return send(res, 200, {
          _links: {
            'pb:provider-pacts-for-verification': { href: `${base}/pacts/provider/{provider}/for-verification`, templated: true },
          },
        });
      }
      const forVerification = /^\/pacts\/provider\/([^/]+)\/for-verification$/.exec(url.pathname);
      if (forVerification) {
        const provider = decodeURIComponent(forVerification[1] ?? '');
        if (req.method === 'GET') {
          return send(res, 200, { _links: { self: { href: `${base}${url.pathname}` } } });
        }
        const list = pacts.filter((p) => p.provider === provider);
        return send(res, 200, {
          _embedded: {
            pacts: list.map((p) => ({
              shortDescription: `latest pact of ${p.consumer}`,
              verificationProperties: { pending: p.pending === true, notices: [] },
              _links: { self: { href: `${base}${pactPath(p)}`, name: `Pact between ${p.consumer} and ${p.provider}` } },
            })),
          },
          _links: { self: { href: `${base}${url.pathname}` } },
        });
      }
      const pact = pacts.find((p) => url.pathname === pactPath(p));
      if (pact && req.method === 'GET') {
        return send(res, 200, {
          ...pact.pact,
          _links: {
            self: { href: `${base}${pactPath(pact)}` },
            'pb:publish-verification-results': { href: `${base}${pactPath(pact)}/verification-results` },
            'pb:provider': { href: `${base}/pacticipants/${pact.provider}` },
          },
        });
      }
      const pacticipant = /^\/pacticipants\/([^/]+)$/.exec(url.pathname);
      if (pacticipant && req.method === 'GET') {
        const self = `${base}${url.pathname}`;
        return send(res, 200, {
          name: decodeURIComponent(pacticipant[1] ?? ''),
          _links: {
            self: { href: self },
            'pb:version': { href: `${self}/versions/{version}`, templated: true },
            'pb:version-tag': { href: `${self}/versions/{version}/tags/{tag}`, templated: true },
            'pb:branch-version': { href: `${self}/branches/{branch}/versions/{version}`, templated: true },
          },
        });
      }
      // Creating versions, branches and verification results: accepted as sent.
      if (req.method === 'PUT' || req.method === 'POST') {
        return send(res, req.method === 'POST' ? 201 : 200, { _links: { self: { href: `${base}${url.pathname}` } } });
      }
      return send(res, 404, { error: 'not found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
