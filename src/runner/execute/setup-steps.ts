/**
 * What a case's requests are filled with before they are sent: the examples' setup steps (their answers fill the
 * templates), the template scope with its one-time passwords (read from the configured OTP source), and the body a
 * create is sent with to make a record the run needs.
 */
import type { Examples, SetupStep } from '../description/examples.ts';
import type { Profile } from '../description/profile.ts';
import { authorization } from '../http/auth-variants.ts';
import type { GatewayClient } from '../http/gateway-client.ts';
import { randomHex } from '../http/random-hex.ts';
import type { Operation } from '../model.ts';
import { accepts } from '../plan/accepts.ts';
import { neededSetup, positiveBody } from '../plan/cases.ts';
import type { Random } from '../plan/random.ts';
import type { CaseRun } from './case-run.ts';
import type { RunConfig } from './config.ts';
import { is2xx } from './judge.ts';
import { fillReferences, withoutMadeUpReferences } from './records/references.ts';
import { Skip } from './skip.ts';
import { resolveTemplates } from './templates.ts';
import type { ValuePool } from './records/value-pool.ts';

/** What the setup steps need of the run. */
export interface SetupDeps {
  readonly config: RunConfig;
  readonly examples: Examples;
  readonly pool: ValuePool;
  /** The profile of the contract's first service (the OTP source's credential header). */
  readonly profile: Profile;
  readonly client: Pick<GatewayClient, 'send'>;
  operation(operationId: string): Operation;
  /** Hears of each one-time password read from the OTP source (the run's out-of-band secrets: secret-watch.ts). */
  learned?(secret: string): void;
}

function credentialHeader(profile: Profile, token: string): Record<string, string> {
  if (token === '') return {};
  const value = authorization('valid', token);
  return value === undefined ? {} : { [profile.auth.header.toLowerCase()]: value };
}

/**
 * The one-time password in an OTP source's answer: plain text, a JSON string, the first of the pack's named
 * fields (RunConfig.otpFields), or the only string field of a JSON object.
 */
export function otpValueOf(json: unknown, body: string | undefined, fields: readonly string[]): unknown {
  if (typeof json === 'string') return json;
  if (typeof json !== 'object' || json === null) return json === undefined ? body?.trim() : undefined;
  const record = json as Record<string, unknown>;
  for (const field of fields) if (record[field] !== undefined) return record[field];
  const strings = Object.values(record).filter((v) => typeof v === 'string');
  return strings.length === 1 ? strings[0] : undefined;
}

export class SetupSteps {
  constructor(private readonly deps: SetupDeps) {}

  /**
   * The body a create is sent with to make a record the run needs: its example's, after the setup steps that body
   * names (their answers fill its templates), else one drawn from its schema.
   */
  async recordBody(producer: Operation, random: Random, run: CaseRun): Promise<unknown> {
    const { examples, pool } = this.deps;
    const body = positiveBody(producer, examples, random);
    const setup = examples.operations[producer.operationId]?.setup ?? [];
    const steps = await this.runSetup(neededSetup({ setup, body, query: {}, pathParams: {} }), run);
    const resolved = await resolveTemplates(body, this.scope(steps));
    // A record made for a case names other records only where the run has one of them: an optional field that
    // would name a record no answer held is left out (the deployment may rightly refuse a made-up one).
    return withoutMadeUpReferences(producer, fillReferences(producer, resolved, body, (name) => pool.forReference(name), accepts), body, (name, value) => pool.forReference(name).includes(value));
  }

  /** Template scope; one-time passwords read through it are kept in `secrets` (the case's flow secrets). */
  scope(steps: Record<string, unknown>, secrets?: string[]) {
    const otp = async (tx: string) => {
      const value = await this.readOtp(tx);
      secrets?.push(value);
      this.deps.learned?.(value);
      return value;
    };
    return { unique: `${this.deps.config.runId}-${randomHex(3)}`, steps, otp };
  }

  /** Reads a one-time password from the configured OTP source. */
  async readOtp(transactionId: string): Promise<string> {
    const { config } = this.deps;
    const template = config.otpSourceUrl;
    if (!template) throw new Skip('otp-source', 'no OTP source configured (--otp-source-url)');
    const exchange = await this.deps.client.send({
      method: 'GET',
      url: template.replace('{transactionId}', encodeURIComponent(transactionId)),
      headers: { accept: 'application/json', ...credentialHeader(this.deps.profile, config.token) },
    });
    const value = otpValueOf(exchange.response?.json, exchange.response?.body, config.otpFields ?? []);
    if (!is2xx(exchange) || typeof value !== 'string' || value === '') {
      throw new Skip('otp-source', `the OTP source answered ${exchange.response?.status ?? exchange.error?.message} with no one-time password`);
    }
    return value;
  }

  async runSetup(steps: SetupStep[], run: CaseRun): Promise<Record<string, unknown>> {
    const results: Record<string, unknown> = {};
    for (const step of steps) {
      const op = this.deps.operation(step.operation);
      const body = await resolveTemplates(step.body, this.scope(results));
      const exchange = await run.send(op, { body, ...(step.query ? { query: step.query } : {}) });
      if (!is2xx(exchange)) throw new Skip('setup-failed', `setup step "${step.as}" (${step.operation}) answered ${exchange.response?.status ?? exchange.error?.message}`);
      results[step.as] = exchange.response?.json;
    }
    return results;
  }
}
