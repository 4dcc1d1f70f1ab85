/**
 * Merging shard results into the results of one run, and reading a results directory.
 *
 * mergeResults gives the same content a single unsharded run would have written:
 * - operations in the canonical order (sortOperations: service, group, operationId); an operation present
 *   in several shards (e.g. not-described operations every shard lists, or scenario cases run in another
 *   shard) appears once: not-described duplicates are dropped, the cases of a described one are joined in
 *   shard order (a case name seen already is not repeated) and its duration is the sum;
 * - pact interactions, expired waivers and deployment differences are unions without duplicates;
 * - case and operation outcomes, counts, coverage.tested and the verdict are derived again (summarise);
 *   catalogTotal, described and notDescribed are catalog facts, the same in every shard;
 * - startedAt is the earliest start, finishedAt the latest finish, and durationMs the LONGEST shard's
 *   duration: shards run side by side, so that is the time the run took (the sum of the work is in the
 *   operations' own durations);
 * - `shard` is removed; `interrupted` is true when any shard was interrupted.
 * Anything that is not one run is refused with a one-line error: every shard of 1..n exactly once, the same
 * contract (title, version and hash), targets, seed, failOn, tool and schemaVersion.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperationResult, PactInteractionResult, RunResults } from '../model.ts';
import { summarise, sortOperations } from './outcomes.ts';
import { summed } from '../plan/input-location.ts';
import { expandResults, READABLE_SCHEMA_VERSIONS } from './results-format.ts';
import { validateResults } from './results-schema.ts';
import { RESULTS_FILE } from './write.ts';

export { sortOperations };

/** Input that cannot be read or merged; the message is one line saying what to do. */
export class ResultsInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultsInputError';
  }
}

function shardLabel(part: RunResults, index: number): string {
  return part.shard ? `shard ${part.shard.index}/${part.shard.count}` : `part ${index + 1}`;
}

/** The targets of a run: the base URLs (an embedded reference service is one target, whatever its port). */
function targetsOf(r: RunResults): string {
  if (r.target.embedded) return 'the embedded reference service';
  return [...r.target.services].sort((a, b) => (a.id < b.id ? -1 : 1)).map((s) => `${s.id}=${s.baseUrl}`).join(', ');
}

function assertSameRun(parts: RunResults[]): void {
  const [first] = parts;
  if (!first) return;
  const facts: Array<[string, (r: RunResults) => unknown]> = [
    ['schemaVersion', (r) => r.schemaVersion],
    ['contract', (r) => `${r.contract.title} ${r.contract.version}`],
    ['contract hash', (r) => r.contract.hash ?? null],
    ['tool', (r) => `${r.tool.name} ${r.tool.version}`],
    ['targets', targetsOf],
    ['seed', (r) => r.seed],
    ['failOn', (r) => `${r.failOn}${r.failOnUntested ? ',untested' : ''}`],
  ];
  parts.forEach((part, i) => {
    for (const [name, get] of facts) {
      if (get(part) !== get(first)) {
        throw new ResultsInputError(
          `cannot merge: ${shardLabel(part, i)} has ${name} ${JSON.stringify(get(part))} but ${shardLabel(first, 0)} has ${JSON.stringify(get(first))}; merge only the shards of one run`,
        );
      }
    }
  });
  assertEveryShardOnce(parts);
}

/** Every shard of 1..n exactly once (or one unsharded run alone). */
function assertEveryShardOnce(parts: RunResults[]): void {
  const unsharded = parts.filter((p) => !p.shard).length;
  if (unsharded > 0) {
    if (parts.length === 1) return;
    throw new ResultsInputError(
      `cannot merge: ${unsharded} of the ${parts.length} results ${unsharded === 1 ? 'is' : 'are'} not a shard (no --shard i/n); merge the shards of one run, each once`,
    );
  }
  const count = parts[0]?.shard?.count ?? 0;
  const other = parts.find((p) => p.shard?.count !== count);
  if (other) throw new ResultsInputError(`cannot merge: shards of ${count} and of ${other.shard?.count} parts; merge the shards of one run`);
  const seen = new Map<number, number>();
  for (const p of parts) seen.set(p.shard?.index ?? 0, (seen.get(p.shard?.index ?? 0) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([i]) => `${i}/${count}`);
  if (twice.length > 0) throw new ResultsInputError(`cannot merge: shard ${twice.join(', ')} given more than once; give each shard of the run once`);
  const absent = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i)).map((i) => `${i}/${count}`);
  if (absent.length > 0) throw new ResultsInputError(`cannot merge: shard ${absent.join(', ')} missing; every shard 1..${count} of the run is needed`);
}

function opKey(op: Pick<OperationResult, 'service' | 'operationId'>): string {
  return `${op.service}\u0000${op.operationId}`;
}

function pactKey(i: PactInteractionResult): string {
  return [i.consumer, i.provider, i.pactFile, i.description].join('\u0000');
}

function mergeOperation(into: OperationResult, other: OperationResult): OperationResult {
  if (other.outcome === 'not-described') return into;
  if (into.outcome === 'not-described') return other;
  const names = new Set(into.cases.map((c) => c.name));
  const extra = other.cases.filter((c) => !names.has(c.name));
  const merged: OperationResult = { ...into, cases: [...into.cases, ...extra], durationMs: into.durationMs + other.durationMs };
  // Passed checks counted per operation (results.json of schemaVersion 2) add up when the other part's cases are new.
  if (other.passedChecks && extra.length === other.cases.length) {
    const sum: Record<string, number> = { ...into.passedChecks };
    for (const [id, n] of Object.entries(other.passedChecks)) sum[id] = (sum[id] ?? 0) + n;
    merged.passedChecks = sum;
  }
  return merged;
}

/** Merges the results of the shards of one run (see the module comment). */
export function mergeResults(parts: RunResults[]): RunResults {
  if (parts.length === 0) throw new ResultsInputError('cannot merge: no results given');
  assertSameRun(parts);
  const ordered = [...parts].sort((a, b) => (a.shard?.index ?? 0) - (b.shard?.index ?? 0));
  const first = ordered[0] as RunResults;

  const operations = new Map<string, OperationResult>();
  for (const part of ordered) {
    for (const op of part.operations) {
      const seen = operations.get(opKey(op));
      operations.set(opKey(op), seen ? mergeOperation(seen, op) : op);
    }
  }

  const interactions = new Map<string, PactInteractionResult>();
  let pactMode: NonNullable<RunResults['pact']>['mode'] | undefined;
  for (const part of ordered) {
    if (!part.pact) continue;
    pactMode ??= part.pact.mode;
    for (const i of part.pact.interactions) if (!interactions.has(pactKey(i))) interactions.set(pactKey(i), i);
  }

  const expired = new Map<string, RunResults['expiredWaivers'][number]>();
  for (const part of ordered) {
    for (const w of part.expiredWaivers) expired.set([w.operationId, w.check, w.expires, w.reason].join('\u0000'), w);
  }

  let deploymentDiff: RunResults['deploymentDiff'];
  for (const part of ordered) {
    if (!part.deploymentDiff) continue;
    deploymentDiff ??= { extra: [], lacking: [] };
    for (const x of part.deploymentDiff.extra) {
      if (!deploymentDiff.extra.some((y) => y.method === x.method && y.path === x.path)) deploymentDiff.extra.push(x);
    }
    for (const x of part.deploymentDiff.lacking) if (!deploymentDiff.lacking.includes(x)) deploymentDiff.lacking.push(x);
  }

  const leftBehind = ordered.flatMap((p) => p.leftBehind ?? []);

  const startedAt = ordered.reduce((min, p) => (Date.parse(p.startedAt) < Date.parse(min) ? p.startedAt : min), first.startedAt);
  const finishedAt = ordered.reduce((max, p) => (Date.parse(p.finishedAt) > Date.parse(max) ? p.finishedAt : max), first.finishedAt);

  // Rebuild from the first part's fields, leaving out the per-shard ones.
  const { shard: _shard, counts: _counts, verdict: _verdict, pact: _pact, deploymentDiff: _diff, stopped: _stopped, leftBehind: _left, ...common } = first;
  const stopped = ordered.find((p) => p.stopped)?.stopped;
  const merged: Omit<RunResults, 'counts' | 'verdict'> = {
    ...common,
    startedAt,
    finishedAt,
    durationMs: Math.max(...ordered.map((p) => p.durationMs)),
    interrupted: ordered.some((p) => p.interrupted),
    ...(stopped ? { stopped } : {}),
    operations: sortOperations([...operations.values()]),
    expiredWaivers: [...expired.values()],
  };
  if (pactMode) merged.pact = { mode: pactMode, interactions: [...interactions.values()] };
  if (deploymentDiff) merged.deploymentDiff = { extra: deploymentDiff.extra, lacking: [...deploymentDiff.lacking].sort() };
  if (leftBehind.length > 0) merged.leftBehind = leftBehind;
  // Requests by input location: each shard's, added (read back, its operations carry none).
  const byLocation = summed(ordered.map((p) => p.requestsByLocation));
  if (byLocation) merged.requestsByLocation = byLocation;
  else delete merged.requestsByLocation;
  return summarise(merged);
}

/** Reads `<dir>/results.json`, checking its schemaVersion and shape. */
export async function readResultsDir(dir: string): Promise<RunResults> {
  const file = join(dir, RESULTS_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ResultsInputError(
      code === 'ENOENT'
        ? `${dir}: no ${RESULTS_FILE} here; point at the output directory of a conformance run`
        : `${file}: cannot read (${String(code)})`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ResultsInputError(`${file}: not valid JSON (${(error as Error).message.split('\n')[0] ?? ''})`);
  }
  const version = (data as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (!READABLE_SCHEMA_VERSIONS.includes(version as number)) {
    throw new ResultsInputError(
      `${file}: schemaVersion ${JSON.stringify(version)} is not supported (this tool reads schemaVersion ${READABLE_SCHEMA_VERSIONS.join(' and ')}); produce it with a matching tool version`,
    );
  }
  const errors = validateResults(data);
  const firstError = errors[0];
  if (firstError) {
    const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
    throw new ResultsInputError(`${file}: does not match results.schema.json at ${firstError.instancePath}: ${firstError.message}${more}`);
  }
  return expandResults(data);
}
