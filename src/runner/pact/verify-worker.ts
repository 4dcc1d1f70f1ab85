/**
 * Child process of verifyPacts: runs pact-js's Verifier for one provider and reports over IPC.
 *
 * Why a child process: the native pact verifier prints its report straight to the process's stdout, and
 * pact-js prints state-handler errors with console.log. Running here keeps the caller's output clean (the
 * parent captures this process's stdout and stderr) and lets the two providers verify in parallel.
 *
 * Per request the Verifier's proxy runs our request filter first:
 *  - POST /_pactSetup (provider-state changes) is forwarded to the state-change endpoint (state-endpoint.ts,
 *    the same endpoint any other Pact verifier is given), not to pact-js's in-process handlers: pact-js only
 *    warns on an unknown state and answers 200 when a handler throws, so the interaction would run without
 *    its state. The endpoint answers 500 for an unknown state or a failed setup, which the verifier reports
 *    as a failure of that interaction; its one-line reason is kept for the report. On teardown the records
 *    the interaction created are deleted first.
 *  - every other request gets `Authorization: Bearer <token>`, replacing whatever the pact carries; records
 *    the interaction creates are noted from the response and deleted at its teardown.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Verifier, type VerifierOptions } from '@pact-foundation/pact';
import { request as undiciRequest } from 'undici';
import { parseStateChange, type StateChangeRequest } from './state-endpoint.ts';
import type { Operation } from '../model.ts';
import { undoPathParams } from '../plan/undo.ts';
import { createServiceApi, createdIds, deleteIfPresent, goneBy, type JsonMap, type RecordGone, type ServiceApi } from './states.ts';
import type { CreatedRecordRule, StateFailure, WorkerRequest, WorkerResponse, WorkerRun, WorkerRunResult } from './worker-protocol.ts';

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

async function drainLedger(api: ServiceApi, ledger: Ledger, gone: RecordGone): Promise<void> {
  while (ledger.pending.length > 0) {
    const path = ledger.pending.pop() ?? '';
    try {
      await deleteIfPresent(api, path, gone);
    } catch (error) {
      ledger.problems.push(`${path}: ${(error as Error).message}`);
    }
  }
}

/** The DELETE path of a record a create made: the created id and the create's own path values put in. */
function undoPath(rule: CreatedRecordRule, match: RegExpExecArray, id: string): string {
  const names = [...rule.createPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const createParams = Object.fromEntries(names.map((n, i) => [n, match[i + 1] ?? '']));
  const values = undoPathParams({ path: rule.createPath } as Operation, { path: rule.deletePath } as Operation, rule.idParam, createParams, id);
  return rule.deletePath.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '');
}

/** Notes the ids a create answered with (2xx), so teardown can delete them. */
function recordCreated(rules: readonly CreatedRecordRule[], req: FilterRequest, res: ServerResponse, ledger: Ledger): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  let match: RegExpExecArray | null = null;
  const rule = rules.find((r) => r.method === req.method && (match = new RegExp(r.pattern).exec(path)) !== null);
  if (!rule || !match) return;
  const matched: RegExpExecArray = match;
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
    if (res.statusCode >= 200 && res.statusCode < 300) {
      try {
        for (const id of createdIds(JSON.parse(Buffer.concat(chunks).toString('utf8')))) {
          ledger.pending.push(undoPath(rule, matched, encodeURIComponent(id)));
        }
      } catch {
        // not JSON: nothing was created that we can name
      }
    }
    return end(...args);
  };
}

/** Sends one state change to the endpoint; a non-2xx answer or no answer is a failure with its reason. */
async function forwardStateChange(url: string, body: StateChangeRequest, timeoutMs: number): Promise<{ status: number; body: unknown; failure?: string }> {
  try {
    const res = await undiciRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return { status: 200, body: isObj(json) ? json : {} };
    const reason = isObj(json) && typeof json['error'] === 'string' ? json['error'] : `the state-change endpoint answered ${res.statusCode}`;
    return { status: 500, body: { error: reason }, failure: reason };
  } catch (error) {
    const reason = `the state-change endpoint ${url} could not be reached: ${(error as Error).message}`;
    return { status: 500, body: { error: reason }, failure: reason };
  }
}

function createRequestFilter(
  request: WorkerRequest,
  api: ServiceApi,
  ledger: Ledger,
  failures: StateFailure[],
  currentRun: () => string,
) {
  return (req: FilterRequest, res: ServerResponse, next: Next): void => {
    const path = req.path ?? (req.url ?? '').split('?')[0];
    if (path !== STATE_SETUP_PATH) {
      req.headers['authorization'] = `Bearer ${request.token}`;
      recordCreated(request.createdRecords, req, res, ledger);
      next();
      return;
    }
    const change = parseStateChange(req.body);
    void (async () => {
      if (change.action === 'teardown') await drainLedger(api, ledger, goneBy(request.goneAnswers));
      if (change.state === '') {
        sendJson(res, 200, {});
        return;
      }
      const answer = await forwardStateChange(request.stateChangeUrl, change, request.timeoutMs);
      if (answer.failure !== undefined && change.action === 'setup') {
        failures.push({ runId: currentRun(), state: change.state, action: change.action, message: answer.failure });
      } else if (answer.failure !== undefined) {
        ledger.problems.push(answer.failure);
      }
      sendJson(res, answer.status, answer.body);
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
  const ledger: Ledger = { pending: [], problems: [] };
  const failures: StateFailure[] = [];
  let runId = '';
  const filter = createRequestFilter(request, api, ledger, failures, () => runId);
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
    await drainLedger(api, ledger, goneBy(request.goneAnswers));
    runs.push({ id: run.id, ...report, durationMs: Math.round(performance.now() - started) });
  }
  await api.close();
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
