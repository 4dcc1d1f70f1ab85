/**
 * The fixtures: the records a case's path names, made through the API (shared by an operation's cases, or fresh
 * for one), their parents first; found where the create refused the body (a record the run made already, one the
 * deployment serves now, a search for another body); and the values and setup a case is sent with besides.
 */
import type { Profile } from '../../description/profile.ts';
import type { Contract, Exchange, Operation } from '../../model.ts';
import { accepts } from '../../plan/accepts.ts';
import { isSafe, listedValue, pathExample, pathParamNames, requiredOnly } from '../../plan/cases.ts';
import { Random } from '../../plan/random.ts';
import { namesValue, producerFor, type Producer } from '../../plan/resources.ts';
import type { SetupStep } from '../../description/examples.ts';
import type { CaseRun } from '../case-run.ts';
import type { RunConfig } from '../config.ts';
import { is2xx } from '../judge.ts';
import { recordIdOf, type MadeRecords } from './made.ts';
import { declaredParams, idValue, idValues, pathSchema, pathValues } from './path-values.ts';
import type { PhaseFixtures } from '../phases/host.ts';
import { consumes, RecordRecovery, type FixtureAt, type MadeAttempt } from './recovery.ts';
import type { CallRequest } from '../request-builder.ts';
import type { SetupSteps } from '../setup-steps.ts';
import { Skip } from '../skip.ts';
import type { ValuePool } from './value-pool.ts';

/** How often an operation's shared records are made again after a build that failed (sharedFixture). */
const FIXTURE_REBUILDS = 3;

/** The records an operation's cases share: being made, what the making said (CaseResult.notes), and when it began. */
interface SharedFixture {
  ids: Promise<Record<string, string>>;
  notes: string[];
  /** MadeRecords.version when the build began. */
  version: number;
  rebuilds: number;
}

/** What the fixtures need of the run. */
export interface FixtureDeps {
  readonly config: RunConfig;
  readonly contract: Contract;
  readonly pool: ValuePool;
  /** Every record a create of the run made, whichever case sent it (made.ts). */
  readonly made: MadeRecords;
  readonly steps: SetupSteps;
  profileOf(op: Operation): Profile;
  looksUnknown(op: Operation, exchange: Exchange): Promise<boolean>;
  routeTaken(op: Operation): Record<string, string> | undefined;
}

export class Fixtures implements PhaseFixtures {
  private readonly config: RunConfig;
  private readonly contract: Contract;
  private readonly pool: ValuePool;
  private readonly made: MadeRecords;
  private readonly steps: SetupSteps;
  /** The records each operation's cases share (sharedFixture). */
  private readonly shared = new Map<string, SharedFixture>();
  private fixtureCount = 0;
  /** Records found where a create refused the body sent (recovery.ts). */
  private readonly recovery: RecordRecovery;
  /** Creates whose parent records are being made (a nested create's fixture): a cycle among them ends. */
  private readonly parentsBuilding = new Set<string>();

  constructor(private readonly deps: FixtureDeps) {
    ({ config: this.config, contract: this.contract, pool: this.pool, made: this.made, steps: this.steps } = deps);
    this.recovery = new RecordRecovery(deps);
  }

  /** Lets go of the operation's shared records (its cases have all finished, or they are to be asked for again). */
  forget(operationId: string): void {
    this.shared.delete(operationId);
  }

  /** A body for a record the run makes with this create (setup-steps.ts). */
  recordBody(producer: Operation, random: Random, run: CaseRun): Promise<unknown> {
    return this.steps.recordBody(producer, random, run);
  }

  /** The distinct bodies the create answered with success in this run, newest first (made.ts). */
  answeredBodies(producer: Operation): unknown[] {
    return this.made.answeredBodies(producer);
  }

  runSetup(steps: SetupStep[], run: CaseRun): Promise<Record<string, unknown>> {
    return this.steps.runSetup(steps, run);
  }

  /** Template scope; one-time passwords read through it are kept in `secrets` (the case's flow secrets). */
  scope(steps: Record<string, unknown>, secrets?: string[]) {
    return this.steps.scope(steps, secrets);
  }

  /** Reads a one-time password from the configured OTP source. */
  readOtp(transactionId: string): Promise<string> {
    return this.steps.readOtp(transactionId);
  }

  /** Path values for a case that needs no particular record (path-values.ts). */
  pathValues(op: Operation, purpose: string): Record<string, string> {
    return pathValues(op, purpose, this.config.seed, this.pool);
  }

  /** Creates (through the API) the records an operation's path ids name; `fresh` makes new ones. */
  async fixture(op: Operation, fresh: boolean, run: CaseRun): Promise<Record<string, string>> {
    if (!fresh) return this.sharedFixture(op, run);
    const notes: string[] = [];
    try {
      return await this.buildFixture(op, run, true, notes);
    } finally {
      run.note(...notes);
    }
  }

  /**
   * The records an operation's cases share, made once. A build that failed is made again where a create it needs
   * made a record since that the case may take (another case's, a coverage request's), a few times at most.
   */
  private async sharedFixture(op: Operation, run: CaseRun): Promise<Record<string, string>> {
    for (let rebuilds = 0; ; ) {
      let shared = this.shared.get(op.operationId);
      if (!shared) {
        const notes: string[] = [];
        shared = { version: this.made.version, rebuilds, notes, ids: this.buildFixture(op, run, false, notes) };
        this.shared.set(op.operationId, shared);
      }
      try {
        const ids = await shared.ids;
        run.note(...shared.notes);
        return ids;
      } catch (error) {
        const current = this.shared.get(op.operationId);
        if (current !== undefined && current !== shared) continue;
        if (!(error instanceof Skip) || error.kind !== 'setup-failed' || shared.rebuilds >= FIXTURE_REBUILDS || !this.madeForFixture(op, shared.version)) throw error;
        rebuilds = shared.rebuilds + 1;
        this.shared.delete(op.operationId);
      }
    }
  }

  /** Whether a create of a record the operation's path names made one since `version` that a shared fixture may take. */
  private madeForFixture(op: Operation, version: number): boolean {
    return pathParamNames(op).some((param) => {
      const found = producerFor(this.contract, op, param);
      return found !== undefined && this.made.madeSince(found.producer, version) && this.made.has(found.producer, param, { parents: {}, fresh: consumes(op, false) });
    });
  }

  private async buildFixture(op: Operation, run: CaseRun, fresh: boolean, notes: string[]): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    const examples: Record<string, string> = {};
    let exampleReader: Operation | undefined;
    for (const param of pathParamNames(op)) {
      const found = producerFor(this.contract, op, param);
      if (found) {
        ids[param] = await this.producedId(op, param, found, { ids, run, fresh, notes });
        continue;
      }
      const { value, reader } = this.unproducedValue(op, param, fresh);
      ids[param] = value;
      if (reader) {
        examples[param] = value;
        exampleReader = reader;
      }
    }
    if (exampleReader) await this.recovery.lookUpExamples(op, exampleReader, ids, examples, run);
    return ids;
  }

  /**
   * A path value no described operation creates: a listed choice; for a read, a record the deployment already has
   * (seen in an answer of the run); else the contract's example value (its reader then shows whether it names one);
   * else a value of another shape the route took.
   */
  private unproducedValue(op: Operation, param: string, fresh: boolean): { value: string; reader?: Operation } {
    // A parameter that lists its values, and that no operation creates, names a choice, not a record.
    const choice = listedValue(op, param);
    if (choice !== undefined) return { value: choice };
    // A number that names no record (`/math/sum/{a}/{b}`): a value of its schema.
    if (namesValue(this.contract, op, param)) return { value: idValue(op, param, new Random(`${this.config.seed}:${op.operationId}:${param}:value`)) };
    const pooled = isSafe(op) ? this.pool.values(op, param).at(-1) : undefined;
    if (pooled !== undefined) return { value: pooled };
    const example = fresh ? undefined : pathExample(this.contract, op, param);
    if (example) return { value: example.value, reader: example.reader };
    // A value of another shape the route took (presence, servedForOtherValues): served as a record seen in an
    // answer is, for a read, or for a write where the user allows what cannot be undone; one this operation's
    // parameter takes.
    const taken = !fresh && (isSafe(op) || this.config.allowIrreversible) ? this.deps.routeTaken(op)?.[param] : undefined;
    if (taken !== undefined && accepts(pathSchema(op, param) ?? true, taken) === true) return { value: taken };
    throw new Skip('no-producer', `no described operation creates the record for {${param}}`);
  }

  /** The id of a record the producer makes for the fixture, its parents first, then checked with its reader. */
  private async producedId(op: Operation, param: string, found: Producer, at: FixtureAt): Promise<string> {
    const { ids, run, fresh } = at;
    const producer = found.producer;
    // Where the run cannot make the record: one the deployment serves now (seen in an answer, read back), for a
    // case that only reads it, or that writes it where the user allows what cannot be undone; never for a case
    // that consumes its record (fresh).
    const servedInstead = async () => (!fresh && (isSafe(op) || this.config.allowIrreversible) ? this.recovery.servedRecord(op, param, ids, run, producer) : undefined);
    // Each case's record is drawn of its own (a backend may keep a title or a name unique).
    const random = new Random(`${this.config.seed}:${producer.operationId}:fixture:${op.operationId}:${run.planned.name}:${param}:${run.exchanges.length}`);
    const body = await this.steps.recordBody(producer, random, run);
    const declared = declaredParams(producer, random);
    // PUT-to-create: the client names the record; its id is the value sent in the path.
    // Each fixture names a record of its own (two cases must not share, and delete, one record).
    const chosen = found.via === 'put' ? idValue(producer, param, new Random(`${this.config.seed}:${op.operationId}:${param}:put:${this.fixtureCount++}`)) : undefined;
    // A create nested under a parent record the operation does not name (`POST /owners/{ownerId}/pets` for
    // `/pets/{petId}`): the parent is a record of the create's own fixture.
    const nestedParent = pathParamNames(producer).some((p) => p !== param && !(p in ids));
    if (nestedParent && this.parentsBuilding.has(producer.operationId)) throw new Skip('setup-failed', `setup: the records ${producer.operationId} needs lead back to ${op.operationId}`);
    let parents: Record<string, string> = {};
    if (nestedParent) {
      this.parentsBuilding.add(producer.operationId);
      try {
        parents = await this.fixture(producer, false, run);
      } catch (error) {
        // No parent, no create: a record the deployment serves now does, where it may (as below).
        const served = error instanceof Skip ? await servedInstead() : undefined;
        if (served === undefined) throw error;
        return served;
      } finally {
        this.parentsBuilding.delete(producer.operationId);
      }
    }
    const pathParams = { ...idValues(producer, random), ...parents, ...ids, ...(chosen ? { [param]: chosen } : {}) };
    const made = await this.createRecord(found, param, { ...declared, pathParams, body }, run);
    if (made.id !== undefined) this.made.handOut(producer, param, made.id, consumes(op, fresh));
    const recovered = made.id !== undefined ? { id: made.id } : await this.recovery.recoveredId(op, param, found, { ...at, ...made, pathParams, declared, servedInstead });
    if (!recovered.served) await this.recovery.readerServes(producer, param, { ...parents, ...ids }, recovered.id, run);
    return recovered.id;
  }

  /**
   * The create sent for a record, and once more with only what its body's schema requires where it was refused
   * (what the run needs is a record; the producer's own cases judge the refusal); the id its success names.
   */
  private async createRecord(found: Producer, param: string, request: CallRequest & { pathParams: Record<string, string> }, run: CaseRun): Promise<MadeAttempt> {
    const producer = found.producer;
    let exchange = await run.send(producer, request);
    const sent = [request.body];
    const statuses = [exchange.response?.status];
    const minimal = exchange.response && exchange.response.status >= 400 ? requiredOnly(producer, request.body) : undefined;
    if (minimal) {
      exchange = await run.send(producer, { ...request, body: minimal });
      sent.push(minimal);
      statuses.push(exchange.response?.status);
    }
    // The id from any answer that holds one: the documented place, else a record, array or page, else Location.
    const id = is2xx(exchange) ? recordIdOf(this.contract, this.deps.profileOf(producer), found, param, exchange, request.pathParams) : undefined;
    return { exchange, sent, statuses, ...(id !== undefined ? { id } : {}) };
  }
}
