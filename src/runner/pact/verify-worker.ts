/**
 * Child process of verifyPacts: runs pact-js's Verifier for one provider and reports over IPC.
 *
 * Why a child process: the native pact verifier prints its report straight to the process's stdout, and
 * pact-js prints state-handler errors with console.log. Running here keeps the caller's output clean (the
 * parent captures this process's stdout and stderr) and lets the two providers verify in parallel.
 *
 * Per request the Verifier's proxy runs our request filter first:
 *  - POST /_pactSetup (provider-state changes) is answered here, not by pact-js: pact-js only warns on an
 *    unknown state and answers 200 when a handler throws, so the interaction would run without its state.
 *    Here an unknown state or a failed handler answers 500, which the verifier reports as a failure of
 *    that interaction ("One or more of the setup state change handlers has failed").
 *  - every other request gets `Authorization: Bearer <token>`, replacing whatever the pact carries; records
 *    the interaction creates are noted from the response and deleted at its teardown.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Verifier, type VerifierOptions } from '@pact-foundation/pact';
import {
  CREATED_RECORDS,
  PROVIDER_STATES,
  StateChangeError,
  createServiceApi,
  createdIds,
  deleteIfPresent,
  type JsonMap,
  type ProviderStateHandlers,
  type ServiceApi,
} from './states.ts';
import type { StateFailure, WorkerRequest, WorkerResponse, WorkerRun, WorkerRunResult } from './worker-protocol.ts';

const STATE_SETUP_PATH = '/_pactSetup';

type FilterRequest = IncomingMessage & { body?: unknown; path?: string };
type Next = (error?: unknown) => void;

interface Ledger {
  /** Delete paths of records created by interactions, most recent last. */
  pending: string[];
  problems: string[];
}

function isObj(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function drainLedger(api: ServiceApi, ledger: Ledger): Promise<void> {
  while (ledger.pending.length > 0) {
    const path = ledger.pending.pop() ?? '';
    try {
      await deleteIfPresent(api, path);
    } catch (error) {
      ledger.problems.push(`${path}: ${(error as Error).message}`);
    }
  }
}

/** Notes the ids a create answered with (200), so teardown can delete them. */
function recordCreated(provider: string, req: FilterRequest, res: ServerResponse, ledger: Ledger): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const rule = (CREATED_RECORDS[provider] ?? []).find((r) => r.method === req.method && r.template.test(path));
  const match = rule ? rule.template.exec(path) : null;
  if (!rule || !match) return;
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const keep = (chunk: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  (res as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
    keep(args[0]);
    return write(...args);
  };
  (res as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
    if (typeof args[0] !== 'function') keep(args[0]);
    if (res.statusCode === 200) {
      try {
        for (const id of createdIds(JSON.parse(Buffer.concat(chunks).toString('utf8')))) {
          ledger.pending.push(rule.undo(match, encodeURIComponent(id)));
        }
      } catch {
        // not JSON: nothing was created that we can name
      }
    }
    return end(...args);
  };
}

function createRequestFilter(
  request: WorkerRequest,
  handlers: ProviderStateHandlers,
  api: ServiceApi,
  ledger: Ledger,
  failures: StateFailure[],
  currentRun: () => string,
) {
  const known = Object.keys(handlers);
  return (req: FilterRequest, res: ServerResponse, next: Next): void => {
    const path = req.path ?? (req.url ?? '').split('?')[0];
    if (path !== STATE_SETUP_PATH) {
      req.headers['authorization'] = `Bearer ${request.token}`;
      recordCreated(request.provider, req, res, ledger);
      next();
      return;
    }
    const body = isObj(req.body) ? req.body : {};
    const state = typeof body['state'] === 'string' ? body['state'] : '';
    const action = body['action'] === 'teardown' ? 'teardown' : 'setup';
    const params = isObj(body['params']) ? body['params'] : {};
    void (async () => {
      if (action === 'teardown') await drainLedger(api, ledger);
      if (state === '') {
        sendJson(res, 200, {});
        return;
      }
      const handler = handlers[state];
      if (!handler) {
        const message =
          `no provider state "${state}" for ${request.provider}` +
          ` (known states: ${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none'})`;
        if (action === 'setup') failures.push({ runId: currentRun(), state, action, message });
        sendJson(res, action === 'setup' ? 500 : 200, action === 'setup' ? { error: message } : {});
        return;
      }
      try {
        if (action === 'setup') sendJson(res, 200, await handler.setup(params));
        else {
          await handler.teardown(params);
          sendJson(res, 200, {});
        }
      } catch (error) {
        const detail = error instanceof StateChangeError ? error.message : `the handler failed: ${(error as Error).message}`;
        const message = `provider state "${state}" ${action}: ${detail}`;
        failures.push({ runId: currentRun(), state, action, message });
        sendJson(res, 500, { error: message });
      }
    })();
  };
}

function verifierOptions(request: WorkerRequest, run: WorkerRun, requestFilter: unknown): VerifierOptions {
  const options: VerifierOptions = {
    provider: request.provider,
    providerBaseUrl: request.baseUrl,
    logLevel: request.logLevel,
    timeout: request.timeoutMs,
    requestFilter: requestFilter as VerifierOptions['requestFilter'],
  };
  if (run.pactUrl !== undefined) options.pactUrls = [run.pactUrl];
  const broker = run.broker;
  if (broker) {
    options.pactBrokerUrl = broker.url;
    if (broker.token !== undefined) options.pactBrokerToken = broker.token;
    if (broker.username !== undefined) options.pactBrokerUsername = broker.username;
    if (broker.password !== undefined) options.pactBrokerPassword = broker.password;
    if (broker.consumerVersionSelectors !== undefined) {
      options.consumerVersionSelectors = broker.consumerVersionSelectors as VerifierOptions['consumerVersionSelectors'];
    }
    if (broker.enablePending !== undefined) options.enablePending = broker.enablePending;
    if (broker.includeWipPactsSince !== undefined) options.includeWipPactsSince = broker.includeWipPactsSince;
    if (broker.publishVerificationResult !== undefined) options.publishVerificationResult = broker.publishVerificationResult;
    if (broker.providerVersion !== undefined) options.providerVersion = broker.providerVersion;
    if (broker.providerVersionBranch !== undefined) options.providerVersionBranch = broker.providerVersionBranch;
    options.failIfNoPactsFound = run.failIfNoPactsFound ?? true;
  }
  return options;
}

/** The verifier's JSON report travels in the resolved value, or in the message of the rejection. */
function reportOf(value: unknown): { json?: string; error?: string } {
  const text = value instanceof Error ? value.message : typeof value === 'string' ? value : '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObj(parsed) && 'result' in parsed) return { json: text };
  } catch {
    // not the JSON report
  }
  return { error: text || String(value) };
}

export async function runWorker(request: WorkerRequest): Promise<WorkerResponse> {
  const api = createServiceApi(request.baseUrl, request.token, request.timeoutMs);
  const handlers = (PROVIDER_STATES[request.provider] ?? (() => ({})))(api);
  const ledger: Ledger = { pending: [], problems: [] };
  const failures: StateFailure[] = [];
  let runId = '';
  const filter = createRequestFilter(request, handlers, api, ledger, failures, () => runId);
  const runs: WorkerRunResult[] = [];
  for (const run of request.runs) {
    runId = run.id;
    const started = performance.now();
    let report: { json?: string; error?: string };
    try {
      report = reportOf(await new Verifier(verifierOptions(request, run, filter)).verifyProvider());
    } catch (error) {
      report = reportOf(error);
    }
    await drainLedger(api, ledger);
    runs.push({ id: run.id, ...report, durationMs: Math.round(performance.now() - started) });
  }
  return { runs, stateFailures: failures, cleanupProblems: ledger.problems };
}

// Entry point when started by verifyPacts (child_process.fork): one request in, one response out.
if (typeof process.send === 'function') {
  process.once('message', (message: WorkerRequest) => {
    runWorker(message)
      .catch((error: unknown): WorkerResponse => ({
        runs: message.runs.map((r) => ({ id: r.id, error: `verification could not run: ${(error as Error).message}`, durationMs: 0 })),
        stateFailures: [],
        cleanupProblems: [],
      }))
      .then((response) => {
        process.send?.(response, () => process.exit(0));
      });
  });
}
