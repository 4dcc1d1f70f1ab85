/**
 * Provider verification: replays every consumer's pact against the running services and reports each
 * interaction.
 *
 * Pacts are grouped by provider (pact `provider.name`, a service id of the contract), each verified against its
 * base URL (`baseUrls`). Provider states come from the packs (Pack.providerStates). Each provider runs in its own child
 * process (verify-worker.ts) with pact-js's Verifier, one verifier run per pact file (or one for the broker),
 * so results can be attributed to a pact file and consumer without guessing. Per-interaction results come
 * from the verifier's JSON report (see verifier-results.ts).
 *
 * Nothing here prints or exits: the verifier's console output is captured and returned as `output`.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Contract, PactInteractionResult } from '../model.ts';
import { loadContract } from '../description/load.ts';
import { loadProfiles, profileFor } from '../description/profiles.ts';
import { defaultContracts, fromPacks, packsFor, type Pack } from '../pack.ts';
import { undoOf } from '../plan/undo.ts';
import { BrokerError, probeBroker } from './broker.ts';
import { PactInputError } from './errors.ts';
import { matchOperation } from './match-operation.ts';
import type { PactHttpInteraction } from './pact-file.ts';
import { readPactSources, type LoadedPact } from './sources.ts';
import { startStateChangeServer, type StateChangeServer } from './state-endpoint.ts';
import { createServiceApi, type ProviderStates } from './states.ts';
import {
  interactionLabel,
  mapMismatch,
  parseVerifierReport,
  stripAnsi,
  type VerifierMismatch,
  type VerifierReport,
} from './verifier-results.ts';
import type {
  BrokerSource,
  StateFailure,
  VerifierLogLevel,
  CreatedRecordRule,
  WorkerRequest,
  WorkerResponse,
  WorkerRun,
  WorkerRunResult,
} from './worker-protocol.ts';

export type { BrokerSource, VerifierLogLevel } from './worker-protocol.ts';

export interface VerifyPactsOptions {
  /** Pact directories, files or URLs. Default: the packs' pacts (none when a broker is given). */
  pacts?: string[];
  /** Base URL per provider (service id). */
  baseUrls: Record<string, string>;
  /** Packs that give the default contract and pacts, provider states and "already gone" answers. */
  packs?: readonly Pack[];
  /** Bearer token sent to the services (replaces the Authorization header of every pact request). */
  token: string;
  /** No pacts found is an empty result instead of a PactInputError. */
  allowNoPacts?: boolean;
  /** Fetch pacts from a Pact Broker (for both providers). Options pass through to pact's Verifier. */
  broker?: BrokerSource;
  /** Timeout of each request to the provider (default 30 000 ms). */
  timeoutMs?: number;
  /** Log level of the verifier (default 'warn'). 'trace' is not offered: it logs the broker credentials. */
  logLevel?: VerifierLogLevel;
  /** Contract to map interactions onto operations; default: the packs' contracts. */
  contract?: Contract;
  /**
   * The provider-state change endpoint (Pact convention, see state-endpoint.ts). Default: one is started
   * here for the run, setting states up through the two base URLs with the token. A function gives a URL
   * per provider (endpoints of this tool answer `<url>/<provider>` with that provider's states only).
   */
  stateChangeUrl?: string | ((provider: string) => string);
}

export interface VerifyPactsResult {
  mode: 'verify';
  interactions: PactInteractionResult[];
  /** The verifier's console output (ANSI colours removed), per provider. */
  output: string;
  /** Things that went wrong around the verification without failing an interaction (e.g. cleanup). */
  warnings: string[];
}

// Compiled (dist/*.js): the compiled worker, run as is; from the TypeScript sources: the .ts worker through tsx.
const COMPILED = import.meta.url.endsWith('.js');
const WORKER = fileURLToPath(new URL(COMPILED ? './verify-worker.js' : './verify-worker.ts', import.meta.url));
const DEFAULT_TIMEOUT_MS = 30_000;

export async function verifyPacts(opts: VerifyPactsOptions): Promise<VerifyPactsResult> {
  const packs = opts.packs ?? [];
  const sources = opts.pacts ?? (opts.broker ? [] : packs.flatMap((p) => (p.pacts ? [p.pacts] : [])));
  const broker = opts.broker;
  const auth = broker ? { ...pick(broker, ['token', 'username', 'password'] as const) } : {};
  if (broker) {
    // The verifier reports any broker failure as "no pacts"; ask the broker first so the cause is named.
    const cause = await probeBroker(broker);
    if (cause) throw new BrokerError(`pact verify: ${cause}`);
  }
  const loaded = await readPactSources(sources, auth);
  if (loaded.length === 0 && !broker) {
    if (opts.allowNoPacts) return { mode: 'verify', interactions: [], output: '', warnings: [] };
    throw new PactInputError(
      `no pacts found in ${sources.length > 0 ? sources.join(', ') : '(no sources given)'}: give pact files, directories or URLs with --pacts, or a broker with --broker-url`,
    );
  }
  const contract = opts.contract ?? (defaultContracts(packs).length > 0 ? await loadContract(defaultContracts(packs)).catch(() => undefined) : undefined);
  const baseUrls = opts.baseUrls;
  const applying = contract ? packsFor(packs, contract.services) : [...packs];
  const states: ProviderStates = Object.assign({}, ...(await Promise.all(applying.map(async (p) => (await p.providerStates?.()) ?? {}))));
  const created = contract ? await createdRecordRules(contract, fromPacks(applying, 'profile')) : [];
  const goneAnswers = applying.flatMap((p) => p.goneAnswers ?? []);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const logLevel = opts.logLevel ?? 'warn';
  let stateServer: StateChangeServer | undefined;
  const apis = Object.entries(baseUrls).map(([provider, baseUrl]) => [provider, createServiceApi(baseUrl, opts.token, timeoutMs)] as const);
  try {
    let stateChangeUrl = opts.stateChangeUrl;
    if (stateChangeUrl === undefined) {
      const server = await startStateChangeServer(Object.fromEntries(apis), states);
      stateServer = server;
      stateChangeUrl = (provider) => `${server.url}/${encodeURIComponent(provider)}`;
    }
    return await verifyWith(opts, loaded, contract, baseUrls, broker, { timeoutMs, logLevel, stateChangeUrl, created, goneAnswers });
  } finally {
    await stateServer?.close();
    await Promise.all(apis.map(([, api]) => api.close()));
  }
}

async function verifyWith(
  opts: VerifyPactsOptions,
  loaded: LoadedPact[],
  contract: Contract | undefined,
  baseUrls: Record<string, string>,
  broker: BrokerSource | undefined,
  run: { timeoutMs: number; logLevel: VerifierLogLevel; stateChangeUrl: string | ((provider: string) => string); created: Array<CreatedRecordRule & { service: string }>; goneAnswers: WorkerRequest['goneAnswers'] },
): Promise<VerifyPactsResult> {
  const { timeoutMs, logLevel, stateChangeUrl } = run;

  const interactions: PactInteractionResult[] = [];
  const jobs: Array<{ request: WorkerRequest; files: Map<string, LoadedPact>; brokerRunId?: string; interactionCount: number }> = [];

  for (const [provider, baseUrl] of Object.entries(baseUrls)) {
    const pacts = loaded.filter((p) => p.pact.provider === provider);
    const runs: WorkerRun[] = [];
    const files = new Map<string, LoadedPact>();
    for (const [i, pact] of pacts.entries()) {
      const id = `${provider}#${i}`;
      files.set(id, pact);
      runs.push({ id, pactUrl: pact.location });
    }
    let brokerRunId: string | undefined;
    if (broker) {
      brokerRunId = `${provider}#broker`;
      runs.push({ id: brokerRunId, broker, failIfNoPactsFound: false });
    }
    if (runs.length === 0) continue;
    const interactionCount = pacts.reduce((n, p) => n + p.pact.interactions.length, 0);
    const stateUrl = typeof stateChangeUrl === 'string' ? stateChangeUrl : stateChangeUrl(provider);
    const createdRecords = run.created.filter((r) => r.service === provider).map(({ service: _service, ...rule }) => rule);
    jobs.push({ request: { provider, baseUrl, token: opts.token, timeoutMs, logLevel, stateChangeUrl: stateUrl, runs, createdRecords, goneAnswers: run.goneAnswers }, files, ...(brokerRunId ? { brokerRunId } : {}), interactionCount });
  }

  // Pacts for a provider this suite has no base URL for.
  for (const pact of loaded.filter((p) => !(p.pact.provider in baseUrls))) {
    for (const interaction of pact.pact.interactions) {
      interactions.push({
        ...identity(pact, interaction, contract),
        outcome: 'errored',
        durationMs: 0,
        mismatches: [
          {
            message: `no base URL for provider "${pact.pact.provider}" (this suite verifies ${Object.keys(baseUrls).join(' and ')})`,
            location: `${pact.location}#/provider/name`,
          },
        ],
      });
    }
  }

  const outputs: string[] = [];
  const warnings: string[] = [];
  const finished = await Promise.all(
    jobs.map(async (job) => ({ job, ...(await runWorker(job.request, watchdogMs(job.interactionCount, timeoutMs, !!job.brokerRunId))) })),
  );
  for (const { job, response, output, failure } of finished) {
    outputs.push(`== ${job.request.provider} ==\n${output}`);
    if (failure) warnings.push(`${job.request.provider}: ${failure}`);
    warnings.push(...(response?.cleanupProblems ?? []).map((p) => `${job.request.provider}: records left behind: ${p}`));
    const runResults = new Map((response?.runs ?? []).map((r) => [r.id, r]));
    const stateFailures = response?.stateFailures ?? [];
    for (const [runId, pact] of job.files) {
      interactions.push(...fileResults(pact, runResults.get(runId), stateFailures.filter((f) => f.runId === runId), contract, failure));
    }
    if (job.brokerRunId) {
      const run = runResults.get(job.brokerRunId);
      const results = brokerResults(job.request.provider, broker?.url ?? '', run, stateFailures.filter((f) => f.runId === job.brokerRunId), contract);
      if (results.length === 0 && run?.error) warnings.push(`${job.request.provider}: broker: ${run.error}`);
      interactions.push(...results);
    }
  }

  if (broker && interactions.length === 0 && loaded.length === 0 && !opts.allowNoPacts) {
    throw new PactInputError(`no pacts found at the broker ${broker.url} for ${Object.keys(baseUrls).join(' or ')}`);
  }
  return { mode: 'verify', interactions, output: outputs.join('\n'), warnings };
}

/** Every create of the contract whose records a DELETE removes (plan/undo.ts), as rules the worker applies. */
async function createdRecordRules(contract: Contract, profileFile: string | undefined): Promise<Array<CreatedRecordRule & { service: string }>> {
  const profiles = await loadProfiles(profileFile ?? 'generic', contract);
  const rules: Array<CreatedRecordRule & { service: string }> = [];
  for (const op of contract.operations) {
    if (op.method !== 'POST' && op.method !== 'PUT') continue;
    const undo = undoOf(contract, profileFor(profiles, op.service), op);
    if (!undo?.delete || !undo.idParam) continue;
    const pattern = `^${op.path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([^/]+)').replace(/\/$/, '')}/?$`;
    rules.push({ service: op.service, method: op.method, pattern, createPath: op.path, deletePath: undo.delete.path, idParam: undo.idParam });
  }
  return rules;
}

function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

function watchdogMs(interactions: number, timeoutMs: number, broker: boolean): number {
  const perInteraction = 2 * timeoutMs + 10_000;
  return Math.max(broker ? 600_000 : 120_000, 60_000 + interactions * perInteraction);
}

const require = createRequire(import.meta.url);

/** Runs one provider's verification in a child process; its stdout/stderr are captured, never printed. */
function runWorker(
  request: WorkerRequest,
  timeoutMs: number,
): Promise<{ response?: WorkerResponse; output: string; failure?: string }> {
  return new Promise((resolve) => {
    const child = fork(WORKER, [], {
      execArgv: COMPILED ? [] : ['--import', pathToFileURL(require.resolve('tsx')).href],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' },
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => chunks.push(c));
    child.stderr?.on('data', (c: Buffer) => chunks.push(c));
    let response: WorkerResponse | undefined;
    let failure: string | undefined;
    const timer = setTimeout(() => {
      failure = `verification did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('message', (m: WorkerResponse) => {
      response = m;
    });
    child.on('error', (e) => {
      failure ??= `the verifier process could not run: ${e.message}`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!response && !failure) failure = `the verifier process ended without a report (exit ${code ?? signal ?? '?'})`;
      resolve({ ...(response ? { response } : {}), output: stripAnsi(Buffer.concat(chunks).toString('utf8')), ...(failure ? { failure } : {}) });
    });
    child.send(request);
  });
}

function identity(
  pact: LoadedPact,
  interaction: PactHttpInteraction,
  contract: Contract | undefined,
): Pick<PactInteractionResult, 'consumer' | 'provider' | 'pactFile' | 'description' | 'providerStates' | 'operationId'> {
  const match = contract ? matchOperation(contract, pact.pact.provider, interaction.request.method, interaction.request.path) : undefined;
  return {
    consumer: pact.pact.consumer,
    provider: pact.pact.provider,
    pactFile: pact.location,
    description: interaction.description,
    providerStates: interaction.providerStates.map((s) => s.name),
    ...(match ? { operationId: match.operation.operationId } : {}),
  };
}

interface Verdict {
  outcome: PactInteractionResult['outcome'];
  mismatches: PactInteractionResult['mismatches'];
}

/** Outcome of one interaction from its entries in the report. */
function verdictOf(
  ok: boolean | undefined,
  error: VerifierMismatch | undefined,
  pendingError: VerifierMismatch | undefined,
  states: string[],
  stateFailures: StateFailure[],
  location: string,
): Verdict {
  const failure = error ?? pendingError;
  if (!failure) {
    if (ok === undefined) return { outcome: 'errored', mismatches: [{ message: 'the verifier did not report this interaction', location }] };
    return { outcome: ok ? 'passed' : 'failed', mismatches: ok ? [] : [{ message: 'the verifier reported a failure without details', location }] };
  }
  const mapped = mapMismatch(failure, location);
  let mismatches = mapped.mismatches;
  if (mapped.stateChange) {
    const own = [...new Set(stateFailures.filter((f) => states.includes(f.state)).map((f) => f.message))];
    if (own.length > 0) mismatches = own.map((message) => ({ message, location: `${location}/providerStates` }));
  }
  if (pendingError && !error) {
    return {
      outcome: 'skipped',
      mismatches: [{ message: 'pending interaction: its failure does not fail the verification', location }, ...mismatches],
    };
  }
  return { outcome: mapped.transport ? 'errored' : 'failed', mismatches };
}

function fileResults(
  pact: LoadedPact,
  run: WorkerRunResult | undefined,
  stateFailures: StateFailure[],
  contract: Contract | undefined,
  workerFailure: string | undefined,
): PactInteractionResult[] {
  const report: VerifierReport | undefined = run?.json ? parseVerifierReport(run.json) : undefined;
  const runError = run?.error ?? workerFailure ?? (report ? undefined : 'the verifier produced no report');
  const unused = [...(report?.interactionResults ?? [])];
  const { consumer, provider } = pact.pact;
  const results: PactInteractionResult[] = pact.pact.interactions.map((interaction) => {
    const location = `${pact.location}#/interactions/${interaction.index}`;
    const states = interaction.providerStates.map((s) => s.name);
    const label = interactionLabel(consumer, provider, { description: interaction.description, states });
    const at = unused.findIndex((r) => r.description === interaction.description);
    const entry = at >= 0 ? unused.splice(at, 1)[0] : undefined;
    const findIn = (list: VerifierReport['errors']) =>
      (list.find((e) => e.interaction === label) ?? list.find((e) => e.interaction.endsWith(` - ${interaction.description}`)))?.mismatch;
    let verdict: Verdict;
    if (!report || (!entry && runError)) {
      verdict = { outcome: 'errored', mismatches: [{ message: runError ?? 'the verifier produced no report', location }] };
    } else {
      const error = findIn(report.errors);
      const pendingError = findIn(report.pendingErrors);
      // Older verifiers report no interactionResults: an interaction without an error then passed.
      const ok = entry?.ok ?? (report.interactionResults.length === 0 ? !error && !pendingError : undefined);
      verdict = verdictOf(ok, error, pendingError, states, stateFailures, location);
    }
    return { ...identity(pact, interaction, contract), ...verdict, durationMs: entry?.durationMs ?? 0 };
  });
  for (const message of pact.pact.messages) {
    results.push({
      consumer,
      provider,
      pactFile: pact.location,
      description: message.description,
      providerStates: [],
      outcome: 'skipped',
      durationMs: 0,
      mismatches: [{ message: `not verified: ${message.type} interactions are not HTTP`, location: `${pact.location}#/interactions/${message.index}` }],
    });
  }
  return results;
}

/**
 * Broker pacts are not read beforehand, so consumer and states come from the verifier's output: a line
 * "Verifying a pact between <consumer> and <provider>" starts each pact, then each interaction is
 * "  <description> (<n> loading, <n> verification)" followed by "     Given <state>" / "     And <state>".
 */
function brokerResults(
  provider: string,
  brokerUrl: string,
  run: WorkerRunResult | undefined,
  stateFailures: StateFailure[],
  contract: Contract | undefined,
): PactInteractionResult[] {
  const report = run?.json ? parseVerifierReport(run.json) : undefined;
  if (!report) return [];
  const seen: Array<{ consumer: string; description: string; states: string[] }> = [];
  let consumer = '';
  for (const raw of report.output.flatMap((o) => stripAnsi(o).split('\n'))) {
    const header = /^Verifying a pact between (.+) and (.+)$/.exec(raw.trim());
    if (header) {
      consumer = header[1] ?? '';
      continue;
    }
    const item = /^ {2}(\S.*) \([^()]*loading, [^()]*verification\)$/.exec(raw);
    if (item) {
      seen.push({ consumer, description: item[1] ?? '', states: [] });
      continue;
    }
    const state = /^\s+(?:Given|And) (.+)$/.exec(raw);
    const last = seen[seen.length - 1];
    if (state && last) last.states.push(state[1] ?? '');
  }
  const unused = [...report.interactionResults];
  return seen.map((s) => {
    const location = `${brokerUrl} (pact of ${s.consumer})`;
    const label = interactionLabel(s.consumer, provider, { description: s.description, states: s.states });
    const at = unused.findIndex((r) => r.description === s.description);
    const entry = at >= 0 ? unused.splice(at, 1)[0] : undefined;
    const find = (list: VerifierReport['errors']) => list.find((e) => e.interaction === label)?.mismatch;
    const verdict = verdictOf(entry?.ok, find(report.errors), find(report.pendingErrors), s.states, stateFailures, location);
    return {
      consumer: s.consumer,
      provider,
      pactFile: location,
      description: s.description,
      providerStates: s.states,
      ...verdict,
      durationMs: entry?.durationMs ?? 0,
    };
  });
}
