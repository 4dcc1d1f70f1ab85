/**
 * A small, stateful Pact Broker for tests (127.0.0.1 only). It answers the HAL resources the Pact clients
 * use, shaped after the Pact Broker's API documentation (pact_broker's doc/views/*.markdown) and the
 * broker client's own pact with the Broker (pact_broker-client, spec/pacts/pact_broker_client-pact_broker.json):
 *
 *  - GET  /                                            index with pb:publish-contracts,
 *                                                      pb:provider-pacts-for-verification, pb:pacticipant-version,
 *                                                      pb:environments
 *  - POST /contracts/publish                           {pacticipantName, pacticipantVersionNumber, branch, tags,
 *                                                      contracts: [{consumerName, providerName, specification,
 *                                                      contentType, content (base64)}]} → 200 logs + links
 *  - POST /pacts/provider/{p}/for-verification         {consumerVersionSelectors, ...} → _embedded.pacts
 *  - GET  /pacts/provider/{p}/branch/latest            the latest pact of each consumer on its main branch
 *                                                      (pacts without a branch or on `main`): _links.pb:pacts
 *  - GET  /pacts/provider/{p}/consumer/{c}/version/{v} the pact with pb:publish-verification-results,
 *                                                      pb:consumer and pb:consumer-version
 *  - POST …/verification-results                       {success, providerApplicationVersion, …} → 201
 *  - GET  /matrix?q[][pacticipant]=…&q[][version]=…&latestby=cvp&environment=…  → summary.deployable + rows
 *  - GET  /pacticipants/{p}/versions/{v}               pb:record-deployment links per environment
 *  - POST /pacticipants/{p}/versions/{v}/deployed-versions/environment/{uuid}  → 201
 *  - GET  /environments, /environments/{uuid}
 *  - PUT  version / branch / tag resources             accepted (older clients create them one by one)
 *
 * It records every request (the authorization header included) so tests can assert what the clients sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BrokerPact {
  consumer: string;
  provider: string;
  version: string;
  branch?: string;
  tags?: string[];
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

export interface VerificationRecord {
  consumer: string;
  consumerVersion: string;
  provider: string;
  providerVersion: string;
  providerBranch?: string;
  success: boolean;
}

export interface DeploymentRecord {
  pacticipant: string;
  version: string;
  environment: string;
  applicationInstance?: string;
}

export interface FakeBroker {
  url: string;
  requests: RecordedBrokerRequest[];
  pacts: BrokerPact[];
  verifications: VerificationRecord[];
  deployments: DeploymentRecord[];
  close(): Promise<void>;
}

export interface FakeBrokerOptions {
  /** Requests without `Authorization: Bearer <token>` get 401. */
  token?: string;
  /** Answer every request with this status (e.g. 403, or 404 for "not a broker"). */
  status?: number;
  /** Environments known to the broker (default test and production, as a new Broker is seeded). */
  environments?: string[];
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
  res.writeHead(status, { 'content-type': 'application/hal+json;charset=utf-8' });
  res.end(JSON.stringify(body));
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const ENV_UUID = (name: string) => `00000000-0000-4000-8000-${Buffer.from(name).toString('hex').padEnd(12, '0').slice(0, 12)}`;

export async function startFakeBroker(initial: BrokerPact[], opts: FakeBrokerOptions = {}): Promise<FakeBroker> {
  const requests: RecordedBrokerRequest[] = [];
  const pacts: BrokerPact[] = [...initial];
  const verifications: VerificationRecord[] = [];
  const deployments: DeploymentRecord[] = [];
  const environments = opts.environments ?? ['test', 'production'];
  let base = '';
  const enc = encodeURIComponent;
  const pactPath = (p: BrokerPact) => `/pacts/provider/${enc(p.provider)}/consumer/${enc(p.consumer)}/version/${enc(p.version)}`;
  const versionPath = (pacticipant: string, version: string) => `/pacticipants/${enc(pacticipant)}/versions/${enc(version)}`;
  /** Versions a pacticipant has, in publication order (consumer pacts and provider verifications). */
  const versionsOf = (name: string): string[] => [
    ...new Set([
      ...pacts.filter((p) => p.consumer === name).map((p) => p.version),
      ...verifications.filter((v) => v.provider === name).map((v) => v.providerVersion),
    ]),
  ];
  const deployedIn = (name: string, environment: string) =>
    deployments.filter((d) => d.pacticipant === name && d.environment === environment).map((d) => d.version);

  const selectPacts = (provider: string, selectors: Json[]): BrokerPact[] => {
    const mine = pacts.filter((p) => p.provider === provider);
    if (selectors.length === 0) selectors = [{ latest: true }];
    const chosen = new Set<BrokerPact>();
    for (const s of selectors) {
      let list = mine.filter((p) => (typeof s['consumer'] === 'string' ? p.consumer === s['consumer'] : true));
      if (s['mainBranch'] === true) list = list.filter((p) => p.branch === 'main');
      if (typeof s['branch'] === 'string') list = list.filter((p) => p.branch === s['branch']);
      if (typeof s['tag'] === 'string') list = list.filter((p) => p.tags?.includes(s['tag'] as string));
      if (typeof s['environment'] === 'string' || s['deployedOrReleased'] === true || s['deployed'] === true) {
        list = list.filter((p) =>
          deployments.some((d) => d.pacticipant === p.consumer && d.version === p.version && (typeof s['environment'] !== 'string' || d.environment === s['environment'])),
        );
      }
      // latest per consumer (the default for mainBranch/branch/tag selectors, and for {latest: true})
      if (s['latest'] !== false) {
        const last = new Map<string, BrokerPact>();
        for (const p of list) last.set(p.consumer, p);
        list = [...last.values()];
      }
      for (const p of list) chosen.add(p);
    }
    return [...chosen];
  };

  const matrix = (url: URL) => {
    const names = url.searchParams.getAll('q[][pacticipant]');
    const versions = url.searchParams.getAll('q[][version]');
    const latestFlags = url.searchParams.getAll('q[][latest]');
    const environment = url.searchParams.get('environment') ?? undefined;
    const name = names[0] ?? '';
    const version = versions[0] ?? (latestFlags.length > 0 ? versionsOf(name).at(-1) : undefined);
    if (!versionsOf(name).length) {
      return { status: 400, body: { errors: { q: [`Pacticipant ${name} not found`] } } };
    }
    if (version === undefined || !versionsOf(name).includes(version)) {
      return {
        status: 200,
        body: { summary: { deployable: null, reason: `No version with number ${version ?? '(latest)'} exists for ${name}`, success: 0, failed: 0, unknown: 1 }, matrix: [] },
      };
    }
    type Row = { consumer: string; consumerVersion: string; provider: string; providerVersion: string | undefined; success: boolean | undefined };
    const rows: Row[] = [];
    // as consumer: each pact this version published
    for (const p of pacts.filter((x) => x.consumer === name && x.version === version)) {
      const providerVersions = environment ? deployedIn(p.provider, environment) : undefined;
      const results = verifications.filter(
        (v) => v.consumer === p.consumer && v.consumerVersion === p.version && v.provider === p.provider && (!providerVersions || providerVersions.includes(v.providerVersion)),
      );
      const last = results.at(-1);
      if (environment && providerVersions?.length === 0) continue; // provider not in that environment: nothing to break
      rows.push({ consumer: p.consumer, consumerVersion: p.version, provider: p.provider, providerVersion: last?.providerVersion, success: last?.success });
    }
    // as provider: the pacts of each consumer version in the environment (or the latest verified by this version)
    const asProvider = verifications.filter((v) => v.provider === name && v.providerVersion === version);
    const consumers = [...new Set(pacts.filter((p) => p.provider === name).map((p) => p.consumer))];
    for (const consumer of consumers) {
      const consumerVersions = environment ? deployedIn(consumer, environment) : [...new Set(asProvider.filter((v) => v.consumer === consumer).map((v) => v.consumerVersion))];
      for (const cv of consumerVersions) {
        const last = asProvider.filter((v) => v.consumer === consumer && v.consumerVersion === cv).at(-1);
        rows.push({ consumer, consumerVersion: cv, provider: name, providerVersion: last ? version : undefined, success: last?.success });
      }
    }
    const failed = rows.filter((r) => r.success === false).length;
    const unknown = rows.filter((r) => r.success === undefined).length;
    const success = rows.filter((r) => r.success === true).length;
    const deployable = failed === 0 && unknown === 0;
    const reason = deployable
      ? rows.length === 0
        ? 'There are no missing dependencies'
        : 'All required verification results are published and successful'
      : failed > 0
        ? 'The verification for the pact between the consumer and the provider failed'
        : 'There is no verified pact between the consumer and the provider';
    return {
      status: 200,
      body: {
        summary: { deployable, reason, success, failed, unknown },
        notices: [{ type: deployable ? 'success' : 'warning', text: reason }],
        matrix: rows.map((r) => ({
          consumer: { name: r.consumer, version: { number: r.consumerVersion } },
          provider: { name: r.provider, version: r.providerVersion === undefined ? null : { number: r.providerVersion } },
          pact: { createdAt: '2026-01-01T00:00:00+00:00', _links: {} },
          verificationResult:
            r.success === undefined
              ? null
              : { success: r.success, verifiedAt: '2026-01-01T00:00:00+00:00', _links: { self: { href: `${base}/verification-results/1` } } },
        })),
      },
    };
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      if (opts.status !== undefined) return send(res, opts.status, { error: `answered ${opts.status}` });
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return send(res, 401, { error: 'unauthorised' });
      const url = new URL(req.url ?? '/', base);
      const path = url.pathname;
      const method = req.method ?? 'GET';
      if (method === 'GET' && path === '/') {
        return send(res, 200, {
          _links: {
            self: { href: base, title: 'Index' },
            'pb:publish-contracts': { href: `${base}/contracts/publish`, title: 'Publish contracts' },
            'pb:provider-pacts-for-verification': { href: `${base}/pacts/provider/{provider}/for-verification`, templated: true },
            'pb:pacticipant': { href: `${base}/pacticipants/{pacticipant}`, templated: true },
            'pb:pacticipant-version': { href: `${base}/pacticipants/{pacticipant}/versions/{version}`, templated: true },
            'pb:environments': { href: `${base}/environments` },
            'pb:latest-version': { href: `${base}/pacticipants/{pacticipant}/latest-version`, templated: true },
          },
        });
      }
      if (method === 'POST' && path === '/contracts/publish' && isObj(body)) {
        const name = String(body['pacticipantName'] ?? '');
        const version = String(body['pacticipantVersionNumber'] ?? '');
        const branch = typeof body['branch'] === 'string' ? body['branch'] : undefined;
        const tags = Array.isArray(body['tags']) ? body['tags'].map(String) : [];
        const links: Json[] = [];
        for (const c of Array.isArray(body['contracts']) ? body['contracts'] : []) {
          if (!isObj(c)) continue;
          const doc = JSON.parse(Buffer.from(String(c['content'] ?? ''), 'base64').toString('utf8')) as Json;
          const entry: BrokerPact = { consumer: String(c['consumerName'] ?? name), provider: String(c['providerName'] ?? ''), version, ...(branch ? { branch } : {}), tags, pact: doc };
          const at = pacts.findIndex((p) => p.consumer === entry.consumer && p.provider === entry.provider && p.version === version);
          if (at >= 0) pacts.splice(at, 1);
          pacts.push(entry);
          links.push({ title: 'Pact', name: `Pact between ${entry.consumer} (${version}) and ${entry.provider}`, href: `${base}${pactPath(entry)}` });
        }
        return send(res, 200, {
          logs: [
            { level: 'debug', deprecationWarning: '', message: `Created ${name} version ${version}${branch ? ` with branch ${branch}` : ''}${tags.length ? ` and tags ${tags.join(', ')}` : ''}` },
            ...links.map((l) => ({ level: 'info', deprecationWarning: '', message: `Pact published for ${name} version ${version} (${String(l['name'])}).` })),
          ],
          notices: [{ type: 'success', text: `Published ${links.length} pact(s) for ${name} version ${version}` }],
          _embedded: {
            pacticipant: { name, _links: { self: { href: `${base}/pacticipants/${enc(name)}` } } },
            version: { number: version, ...(branch ? { branch } : {}), _links: { self: { title: 'Version', name: version, href: `${base}${versionPath(name, version)}` } } },
          },
          _links: {
            'pb:pacticipant': { title: 'Pacticipant', name, href: `${base}/pacticipants/${enc(name)}` },
            'pb:pacticipant-version': { title: 'Pacticipant version', name: version, href: `${base}${versionPath(name, version)}` },
            'pb:pacticipant-version-tags': tags.map((t) => ({ title: 'Tag', name: t, href: `${base}${versionPath(name, version)}/tags/${enc(t)}` })),
            'pb:contracts': links,
          },
        });
      }
      const forVerification = /^\/pacts\/provider\/([^/]+)\/for-verification$/.exec(path);
      if (forVerification) {
        const provider = decodeURIComponent(forVerification[1] ?? '');
        if (method === 'GET') return send(res, 200, { _links: { self: { href: `${base}${path}` } } });
        const selectors = isObj(body) && Array.isArray(body['consumerVersionSelectors']) ? body['consumerVersionSelectors'].filter(isObj) : [];
        return send(res, 200, {
          _embedded: {
            pacts: selectPacts(provider, selectors).map((p) => ({
              shortDescription: `latest pact of ${p.consumer}`,
              verificationProperties: { pending: p.pending === true, notices: [] },
              _links: { self: { href: `${base}${pactPath(p)}`, name: `Pact between ${p.consumer} (${p.version}) and ${p.provider}` } },
            })),
          },
          _links: { self: { href: `${base}${path}` } },
        });
      }
      const latestMain = /^\/pacts\/provider\/([^/]+)\/branch\/latest$/.exec(path);
      if (latestMain && method === 'GET') {
        const provider = decodeURIComponent(latestMain[1] ?? '');
        const own = pacts.filter((p) => p.provider === provider);
        if (own.length === 0) return send(res, 404, { error: 'The requested document was not found on this server.' });
        const last = new Map<string, BrokerPact>();
        for (const p of own) if (p.branch === undefined || p.branch === 'main') last.set(p.consumer, p);
        return send(res, 200, {
          _links: {
            self: { href: `${base}${path}` },
            provider: { href: `${base}/pacticipants/${enc(provider)}`, name: provider },
            'pb:pacts': [...last.values()].map((p) => ({ href: `${base}${pactPath(p)}`, title: `Pact between ${p.consumer} (${p.version}) and ${p.provider}`, name: p.consumer })),
          },
        });
      }
      const pact = pacts.find((p) => path === pactPath(p));
      if (pact && method === 'GET') {
        return send(res, 200, {
          ...pact.pact,
          _links: {
            self: { href: `${base}${pactPath(pact)}` },
            'pb:publish-verification-results': { title: 'Publish verification results', href: `${base}${pactPath(pact)}/verification-results` },
            'pb:provider': { href: `${base}/pacticipants/${enc(pact.provider)}`, name: pact.provider },
            'pb:consumer': { href: `${base}/pacticipants/${enc(pact.consumer)}`, name: pact.consumer },
            'pb:consumer-version': { href: `${base}${versionPath(pact.consumer, pact.version)}`, name: pact.version },
          },
        });
      }
      const results = pacts.find((p) => path === `${pactPath(p)}/verification-results`);
      if (results && method === 'POST' && isObj(body)) {
        verifications.push({
          consumer: results.consumer,
          consumerVersion: results.version,
          provider: results.provider,
          providerVersion: String(body['providerApplicationVersion'] ?? ''),
          ...(typeof body['providerVersionBranch'] === 'string' ? { providerBranch: body['providerVersionBranch'] } : {}),
          success: body['success'] === true,
        });
        return send(res, 201, { success: body['success'], providerApplicationVersion: body['providerApplicationVersion'], _links: { self: { href: `${base}${path}/1` } } });
      }
      if (method === 'GET' && path === '/matrix') {
        const answer = matrix(url);
        return send(res, answer.status, answer.body);
      }
      if (method === 'GET' && path === '/environments') {
        return send(res, 200, {
          _embedded: { environments: environments.map((e) => ({ uuid: ENV_UUID(e), name: e, displayName: e, production: e === 'production', _links: { self: { href: `${base}/environments/${ENV_UUID(e)}` } } })) },
          _links: { 'pb:environments': environments.map((e) => ({ name: e, href: `${base}/environments/${ENV_UUID(e)}` })) },
        });
      }
      const environment = /^\/environments\/([^/]+)$/.exec(path);
      if (environment && method === 'GET') {
        const name = environments.find((e) => ENV_UUID(e) === environment[1]);
        if (!name) return send(res, 404, { error: 'environment not found' });
        return send(res, 200, { uuid: environment[1], name, displayName: name, production: name === 'production', _links: { self: { href: `${base}${path}` } } });
      }
      const version = /^\/pacticipants\/([^/]+)\/versions\/([^/]+)$/.exec(path);
      if (version && method === 'GET') {
        const name = decodeURIComponent(version[1] ?? '');
        const number = decodeURIComponent(version[2] ?? '');
        if (!versionsOf(name).includes(number)) return send(res, 404, { error: `The requested document was not found on this server.` });
        return send(res, 200, {
          number,
          _links: {
            self: { href: `${base}${path}`, title: 'Version', name: number },
            'pb:record-deployment': environments.map((e) => ({ title: `Record deployment to ${e}`, name: e, href: `${base}${path}/deployed-versions/environment/${ENV_UUID(e)}` })),
            'pb:record-release': environments.map((e) => ({ title: `Record release to ${e}`, name: e, href: `${base}${path}/released-versions/environment/${ENV_UUID(e)}` })),
          },
        });
      }
      const deploy = /^\/pacticipants\/([^/]+)\/versions\/([^/]+)\/deployed-versions\/environment\/([^/]+)$/.exec(path);
      if (deploy && method === 'POST') {
        const env = environments.find((e) => ENV_UUID(e) === deploy[3]);
        if (!env) return send(res, 404, { error: 'environment not found' });
        const record: DeploymentRecord = {
          pacticipant: decodeURIComponent(deploy[1] ?? ''),
          version: decodeURIComponent(deploy[2] ?? ''),
          environment: env,
          ...(isObj(body) && typeof body['applicationInstance'] === 'string' ? { applicationInstance: body['applicationInstance'] } : {}),
        };
        deployments.push(record);
        return send(res, 201, {
          uuid: '00000000-0000-4000-8000-00000000d001',
          currentlyDeployed: true,
          ...(record.applicationInstance ? { applicationInstance: record.applicationInstance, target: record.applicationInstance } : {}),
          _embedded: { version: { number: record.version }, environment: { name: env } },
          _links: { self: { href: `${base}/deployed-versions/00000000-0000-4000-8000-00000000d001` } },
        });
      }
      const pacticipant = /^\/pacticipants\/([^/]+)$/.exec(path);
      if (pacticipant && method === 'GET') {
        const self = `${base}${path}`;
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
      // Creating versions, branches and tags one by one (older clients): accepted as sent.
      if (method === 'PUT') return send(res, 200, { _links: { self: { href: `${base}${path}` } } });
      return send(res, 404, { error: 'The requested document was not found on this server.' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    pacts,
    verifications,
    deployments,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
