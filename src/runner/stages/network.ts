/**
 * What the run holds open from its first step to its last: the dispatcher of its own requests, the reachability
 * probes that leave while the contract loads, the reference deployment it may start, and the abort that ends any
 * wait before a case runs. `runConformance` opens it first and closes it last.
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { request } from '../http/undici.ts';
import { RUN_ID_HEADER, type ClientOptions } from '../http/client-options.ts';
import { buildDispatcher } from '../http/dispatcher.ts';
import { runTokenCommand, TokenCommandError } from '../http/token-command.ts';
import { InputError } from '../description/errors.ts';
import type { Pack, PackReference } from '../pack.ts';
import { later, ReachabilityProbes, surelyNeeded } from '../cli/early-probes.ts';
import type { Inputs } from './inputs.ts';
import type { RunOptions } from './types.ts';

/** The run was aborted before any case ran. */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
}

export class RunNetwork {
  readonly dispatcher: Dispatcher;
  readonly probes: ReachabilityProbes;
  /** The token the embedded reference deployment takes (no target given). */
  readonly embeddedToken: string | undefined;
  /** The token --token-command gives, asked for at once when no token was given. */
  readonly fromCommand: Promise<string> | undefined;
  /** The pack whose default contract this is (no --spec), known before the contract loads. */
  readonly owner: Pack | undefined;
  /** The reference deployment of the owner pack: started while the contract loads. */
  private starting: Promise<PackReference> | undefined;
  private embedded: PackReference | undefined;
  private readonly abortedEarly: Promise<never>;

  constructor(
    private readonly options: RunOptions,
    private readonly inputs: Inputs,
  ) {
    this.abortedEarly = new Promise<never>((_resolve, reject) => {
      if (options.signal?.aborted) reject(new RunInterrupted());
      options.signal?.addEventListener('abort', () => reject(new RunInterrupted()), { once: true });
    });
    this.abortedEarly.catch(() => undefined);
    this.dispatcher = buildClientDispatcher({ ...options, ...(inputs.client ? { client: inputs.client } : {}) });
    this.probes = new ReachabilityProbes((url) => assertReachable(url, options.timeoutMs, this.dispatcher, this.probeHeaders()));
    this.embeddedToken = inputs.given ? undefined : randomBytes(24).toString('base64url');
    this.owner = (options.packs ?? []).find((p) => p.startReference && (p.contracts ?? []).length > 0 && (p.contracts ?? []).every((c) => options.specs.includes(c)));
    if (inputs.given) {
      for (const [id, url] of Object.entries(options.servers)) if (surelyNeeded(id, options)) this.probes.start(url);
      if (options.baseUrl !== undefined && options.include.length === 0 && options.exclude.length === 0) this.probes.start(options.baseUrl);
      this.fromCommand = !options.token && inputs.client?.tokenCommand ? later(initialToken(inputs.client.tokenCommand)) : undefined;
    } else {
      this.fromCommand = undefined;
      if (this.owner) this.starting = later(this.startReference(this.owner));
    }
  }

  /** Waits on a step unless the run is aborted first (then RunInterrupted). */
  early<T>(step: Promise<T>): Promise<T> {
    return Promise.race([step, this.abortedEarly]);
  }

  /** The reference deployment: the one started while the contract loaded, else this pack's. */
  async reference(pack: Pack): Promise<PackReference> {
    this.embedded = await this.early(this.starting ?? this.startReference(pack));
    return this.embedded;
  }

  get usesEmbedded(): boolean {
    return this.embedded !== undefined;
  }

  /** The user's headers and the run id go with the run's own requests too (a gateway may require them). */
  probeHeaders(): Record<string, string> {
    const client = this.inputs.client;
    const headers: Record<string, string> = Object.fromEntries((client?.headers ?? []).filter((h) => h.name.toLowerCase() !== 'authorization').map((h) => [h.name, h.value]));
    headers[RUN_ID_HEADER] = this.inputs.runId;
    if (client?.traceId) headers['traceparent'] = `00-${client.traceId}-${randomBytes(8).toString('hex')}-01`;
    return headers;
  }

  async close(): Promise<void> {
    // Interrupted: the requests still in flight (a probe, a credentials check) are dropped, not waited for.
    await (this.options.signal?.aborted ? this.dispatcher.destroy() : this.dispatcher.close());
    // Started for a run that stopped before using it: closed all the same.
    this.embedded ??= await this.starting?.catch(() => undefined);
    await this.embedded?.close();
  }

  /** Starts a pack's reference deployment and probes each of its base URLs meanwhile. */
  private async startReference(pack: Pack): Promise<PackReference> {
    const service = await pack.startReference!({ token: this.embeddedToken! });
    for (const url of Object.values(service.baseUrls)) this.probes.start(url);
    return service;
  }
}

export async function initialToken(command: string): Promise<string> {
  try {
    return (await runTokenCommand(command)).token;
  } catch (error) {
    if (error instanceof TokenCommandError) throw new InputError(error.message);
    throw error;
  }
}

/** The dispatcher of the CLI's own requests (the reachability probe): same proxy and TLS as the suites. */
function buildClientDispatcher(options: RunOptions): Dispatcher {
  try {
    return buildDispatcher(options.client ?? ({ headers: [], httpProxy: '', httpsProxy: '', noProxy: '', insecure: false, retries: 0, rateLimit: 0, runId: '', traceId: '' } as ClientOptions), { timeoutMs: options.timeoutMs, connections: 2 });
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

function parseBaseUrl(baseUrl: string): URL {
  try {
    return new URL(baseUrl);
  } catch {
    throw new InputError(`not a URL: ${baseUrl}`);
  }
}

/** A target that refuses connections is a run that cannot happen (exit 2), not 300 errored cases. */
async function assertReachable(baseUrl: string, timeoutMs: number, dispatcher: Dispatcher, headers: Record<string, string>): Promise<void> {
  const url = parseBaseUrl(baseUrl);
  try {
    const res = await request(url, { dispatcher, headers, method: 'HEAD', headersTimeout: Math.min(timeoutMs, 10_000), bodyTimeout: Math.min(timeoutMs, 10_000) });
    await res.body.dump();
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name;
    if (/TIMEOUT/i.test(code)) return; // slow, not unreachable: the cases will time out with their own reports
    throw new InputError(`target unreachable: ${url.origin} (${code})`);
  }
}
