import type { Operation } from '../model.ts';
import type { PlanOptions } from './cases.ts';
import type { Identity } from '../model/identity.ts';

/** What planning reads of a run's settings (the CLI's options, a RunConfig): one place makes PlanOptions of it. */
export interface PlanSettings {
  seed: number;
  readOnly: boolean;
  allowIrreversible: boolean;
  /** An OTP source is configured (or the embedded reference service answers one). */
  otpSource?: boolean;
  otpSourceUrl?: string | undefined;
  maxExamples?: number | undefined;
  fuzzExamples?: number | undefined;
  sequences?: number | undefined;
  identities?: readonly Identity[] | undefined;
}

export function planOptionsOf(settings: PlanSettings): PlanOptions {
  return {
    seed: settings.seed,
    readOnly: settings.readOnly,
    allowIrreversible: settings.allowIrreversible,
    otpSource: settings.otpSource ?? settings.otpSourceUrl !== undefined,
    ...(settings.maxExamples !== undefined ? { maxExamples: settings.maxExamples } : {}),
    ...(settings.fuzzExamples !== undefined ? { fuzzExamples: settings.fuzzExamples } : {}),
    ...(settings.sequences !== undefined ? { sequences: settings.sequences } : {}),
    ...(settings.identities?.length ? { identities: settings.identities } : {}),
  };
}

/**
 * The order operations are run in: reads of a collection (a GET whose path names no record) first, so that a
 * list or search is read before the run has created anything; then the rest, each group in canonical order.
 * Reports keep the canonical order.
 */
export function executionOrder<T extends Pick<Operation, 'method' | 'path'>>(operations: readonly T[]): T[] {
  const first = (op: T) => op.method === 'GET' && !op.path.includes('{');
  return [...operations.filter(first), ...operations.filter((op) => !first(op))];
}
