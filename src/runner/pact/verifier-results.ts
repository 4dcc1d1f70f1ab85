/**
 * Per-interaction results from the pact verifier's JSON report.
 *
 * pact-js's `verifyProvider()` resolves (or rejects) with the report of the native verifier
 * (`pactffi_verifier_json`, pact-js-core src/verifier/nativeVerifier.ts):
 *   { result, output: string[], errors: [{ interaction, mismatch }], pendingErrors: [...],
 *     interactionResults: [{ description, duration, result: "OK" | "Error" | ..., ... }], notices }
 * `errors[].interaction` is the label "Verifying a pact between <consumer> and <provider>[ Given <state>
 * [ And <state>...]] - <description>"; `mismatch` is { type: "mismatches", mismatches: [{ type, ... }] } or
 * { type: "error", message }. Results are matched to the pact's interactions by that label, and by the
 * description for `interactionResults` (one verifier run per pact file keeps descriptions unambiguous).
 */
import type { PactInteractionResult } from '../model.ts';
import type { PactHttpInteraction } from './pact-file.ts';

export interface VerifierMismatch {
  type?: string;
  message?: string;
  mismatches?: Array<Record<string, unknown>>;
}

export interface VerifierReport {
  result: boolean;
  output: string[];
  errors: Array<{ interaction: string; mismatch: VerifierMismatch }>;
  pendingErrors: Array<{ interaction: string; mismatch: VerifierMismatch }>;
  interactionResults: Array<{ description: string; durationMs?: number; ok: boolean; pending: boolean }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseVerifierReport(text: string): VerifierReport | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(raw) || typeof raw['result'] !== 'boolean') return undefined;
  const errorList = (v: unknown) =>
    (Array.isArray(v) ? v : []).filter(isObj).map((e) => ({
      interaction: typeof e['interaction'] === 'string' ? e['interaction'] : '',
      mismatch: (isObj(e['mismatch']) ? e['mismatch'] : {}) as VerifierMismatch,
    }));
  const results = (Array.isArray(raw['interactionResults']) ? raw['interactionResults'] : []).filter(isObj).map((r) => {
    const durationMs = typeof r['duration'] === 'string' ? parseDuration(r['duration']) : undefined;
    const result = typeof r['result'] === 'string' ? r['result'] : '';
    return {
      description: typeof r['description'] === 'string' ? r['description'] : '',
      ...(durationMs !== undefined ? { durationMs } : {}),
      ok: /^ok$/i.test(result),
      pending: r['pending'] === true || /pending/i.test(result),
    };
  });
  return {
    result: raw['result'],
    output: (Array.isArray(raw['output']) ? raw['output'] : []).map(String),
    errors: errorList(raw['errors']),
    pendingErrors: errorList(raw['pendingErrors']),
    interactionResults: results,
  };
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, µs: 1e-3, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "93ms", "1.126s", "1s 126ms", "2m 3s" (Rust Duration renderings) in milliseconds. */
export function parseDuration(text: string): number | undefined {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/([\d.]+)\s*(ns|µs|us|ms|s|m|h)\b/g)) {
    const value = Number(m[1]);
    const unit = UNIT_MS[m[2] ?? ''];
    if (!Number.isFinite(value) || unit === undefined) return undefined;
    total += value * unit;
    found = true;
  }
  return found ? Math.round(total) : undefined;
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The verifier's label of an interaction, as used in `errors[].interaction`. */
export function interactionLabel(consumer: string, provider: string, interaction: { description: string; states: string[] }): string {
  const given = interaction.states.length > 0 ? ` Given ${interaction.states.join(' And ')}` : '';
  return `Verifying a pact between ${consumer} and ${provider}${given} - ${interaction.description}`;
}

const STATE_CHANGE_FAILED = /state change/i;
const TRANSPORT_ERROR = /error sending request|connection refused|tcp connect|timed out|dns error|connection reset/i;

export interface MappedMismatches {
  mismatches: PactInteractionResult['mismatches'];
  transport: boolean;
  stateChange: boolean;
}

/** Each verifier mismatch as a plain message with the pact location it concerns. */
export function mapMismatch(mismatch: VerifierMismatch, pactLocation: string): MappedMismatches {
  if (mismatch.type === 'error' || mismatch.mismatches === undefined) {
    const message = mismatch.message ?? 'verification error';
    return {
      mismatches: [{ message, location: pactLocation }],
      transport: TRANSPORT_ERROR.test(message),
      stateChange: STATE_CHANGE_FAILED.test(message),
    };
  }
  const mismatches = mismatch.mismatches.map((m) => {
    const type = typeof m['type'] === 'string' ? m['type'] : 'Mismatch';
    const text = typeof m['mismatch'] === 'string' ? m['mismatch'] : JSON.stringify(m);
    switch (type) {
      case 'StatusMismatch':
        return { message: `status: ${text}`, location: `${pactLocation}/response/status` };
      case 'BodyMismatch':
        return { message: `body ${String(m['path'] ?? '$')}: ${text}`, location: `${pactLocation}/response/body` };
      case 'BodyTypeMismatch':
        return { message: `body type: ${text}`, location: `${pactLocation}/response/body` };
      case 'HeaderMismatch':
        return {
          message: `header ${String(m['key'] ?? '')}: ${text}`,
          location: `${pactLocation}/response/headers/${String(m['key'] ?? '')}`,
        };
      case 'MetadataMismatch':
        return { message: `metadata ${String(m['key'] ?? '')}: ${text}`, location: pactLocation };
      default:
        return { message: `${type}: ${text}`, location: pactLocation };
    }
  });
  return { mismatches, transport: false, stateChange: false };
}
