/**
 * What the phases are handed by the session that runs them (PhaseContext): the run's settings, contract and value
 * pool, and its collaborators by name, each known by a small interface: the caller (caller.ts), the presence
 * proofs (presence-proofs.ts), the fixtures (records/fixtures.ts), the ledger (records/clean-up.ts) and the judging (session.ts).
 * The session imports the phases; they know it only by these interfaces.
 */
import type { Examples, SetupStep } from '../../description/examples.ts';
import type { Profile } from '../../description/profile.ts';
import type { Contract, Exchange, Finding, Operation } from '../../model.ts';
import type { PlannedCase } from '../../plan/cases.ts';
import type { Random } from '../../plan/random.ts';
import type { CaseRun } from '../case-run.ts';
import type { RunConfig } from '../config.ts';
import type { JudgeInput } from '../judge.ts';
import type { CallRequest } from '../request-builder.ts';
import type { UnknownRouteAnswer } from '../unknown-route.ts';
import type { ValuePool } from '../records/value-pool.ts';

/** Presence of an operation: served, not served (proven), or served as far as can be told (not proven). */
export type Presence = { state: 'present' } | { state: 'missing' } | { state: 'unverified'; why: string };

/** Sending: every request of a phase goes through it (or through CaseRun, which uses it). */
export interface PhaseCaller {
  /** Sends one call of a case (redacted, with the run's credentials and headers). */
  call(op: Operation, request: CallRequest): Promise<Exchange>;
  /** Runs a delete chain with the service's creates held back (a freed id given to a new record meanwhile). */
  deleteChain<T>(op: Operation, work: () => Promise<T>): Promise<T>;
  /** Runs a chain that updates a record and reads it back, the other updates of its path held back. */
  writeChain<T>(op: Operation, work: () => Promise<T>): Promise<T>;
  /** Whether the operation took a call with the run's own credential (answered 2xx) so far in the run. */
  accepted(op: Operation): boolean;
}

/** Whether operations are served: the presence probe and its proof, and the unknown route's answer. */
export interface PhasePresence {
  /** The operation's presence probe (sent once, shared by its cases). */
  probe(op: Operation, plan: PlannedCase): Promise<Exchange>;
  presenceOf(op: Operation, probe: Exchange): Promise<Presence>;
  unknownRoute(op: Operation): Promise<{ path: string; response: UnknownRouteAnswer } | undefined>;
  looksUnknown(op: Operation, exchange: Exchange): Promise<boolean>;
  /** Whether the operation is proven served (its presence proof, started now if its own cases have not yet). */
  provenPresent(op: Operation): Promise<boolean>;
  /** Path values of other shapes the operation's route took (presence): served, but no record the service gave. */
  routeTaken(op: Operation): Record<string, string> | undefined;
  /** The methods the contract documents for the operation's path; covered: with those of paths that hold its URLs too. */
  methodsOfPath(op: Operation): { methods: string[]; covered: string[]; probes: boolean };
}

/** The records and values a case is sent with: records made for it, setup steps, templates, path values. */
export interface PhaseFixtures {
  /** Path values of a record the run made for the operation (shared, or fresh). */
  fixture(op: Operation, fresh: boolean, run: CaseRun): Promise<Record<string, string>>;
  /** A body for a record the run makes with this create. */
  recordBody(producer: Operation, random: Random, run: CaseRun): Promise<unknown>;
  /** The distinct bodies the create answered with success in this run, newest first. */
  answeredBodies(producer: Operation): unknown[];
  runSetup(steps: SetupStep[], run: CaseRun): Promise<Record<string, unknown>>;
  /** Template scope; one-time passwords read through it are kept in `secrets`. */
  scope(steps: Record<string, unknown>, secrets?: string[]): { unique: string; steps: Record<string, unknown>; otp: (transactionId: string) => Promise<string> };
  pathValues(op: Operation, purpose: string): Record<string, string>;
}

/** The cleanup ledger: the records the run made and has not deleted yet. */
export interface PhaseLedger {
  /** The run's records a create made under these path values and has not deleted yet, newest first, with their DELETE. */
  ownRecords(create: Operation, pathParams: Record<string, string>): Array<{ id?: string; undo: { operation: Operation; pathParams: Record<string, string> } }>;
  /** Records a refused create stored all the same (a read after it showed them, by these ids): deleted in the clean-up. */
  noteStored(op: Operation, exchange: Exchange, pathParams: Record<string, string>, ids: string[]): void;
}

/** Judging: the profile an operation is judged by, and the judge's input for an answer a phase judges itself. */
export interface PhaseJudging {
  profileOf(op: Operation): Profile;
  /** The answer holds to the contract (the judge finds no error in it). */
  conforms(op: Operation, exchange: Exchange): boolean;
  judgeInput(op: Operation): Pick<JudgeInput, 'profile' | 'validator' | 'timeoutMs' | 'bodyCapBytes'>;
  /** Notes what an operation answered to a call another operation's case made (`note`: before each finding's message). */
  side(op: Operation, exchange: Exchange, more?: Finding[], extra?: Pick<JudgeInput, 'note'>): void;
}

/** What a phase is handed: the run's settings and contract, the values it holds, and its collaborators by name. */
export interface PhaseContext {
  readonly config: RunConfig;
  readonly contract: Contract;
  readonly examples: Examples;
  /** Values the deployment answered, by parameter and by the kind of record a field names. */
  readonly pool: ValuePool;
  readonly caller: PhaseCaller;
  readonly presence: PhasePresence;
  readonly fixtures: PhaseFixtures;
  readonly ledger: PhaseLedger;
  readonly judging: PhaseJudging;
}
