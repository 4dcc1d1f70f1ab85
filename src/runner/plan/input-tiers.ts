/**
 * Strict on what the service sends, tolerant of what it accepts: the one table by which every input the
 * contract does not describe as valid is judged when a deployment takes it.
 *
 * - must-reject: what the contract makes certain (a required property or parameter left out, a JSON kind no
 *   mainstream parser turns into the declared type (a scalar's value as an array of one, an object's values as an
 *   array, which some validators and derived decoders take anyway), a declared bound, length, enum, pattern or format broken, a
 *   property `additionalProperties: false` forbids, malformed JSON, a required body left out). Accepting it is an
 *   error (`negative-data-rejected`).
 * - lenient: whatever is not in the must-reject list (a well-formed body under a media type the operation does
 *   not declare, `null` for a property or body that is not nullable, a scalar mainstream parsers coerce, an
 *   integer written `2.0`, an empty value for an optional query parameter). Accepting it is a warning listed apart
 *   as "accepted leniently"; a profile that declares `strictInput` (its platform promises strict validation)
 *   makes it an error for the services it claims, for every lenient class or for those it lists.
 *
 * Every input class of the coverage phase and of the negative cases is in exactly one row of plan/coverage-table.ts,
 * which holds its tier. Two rules are no tier: `valid` (the class only ever sends schema-valid requests: judged as
 * positives) and `response-only` (nothing says how a server must take it: only the answer's conformance is judged).
 */

import { COVERAGE_TABLE, type ClassRule, type InputTier } from './coverage-table.ts';

export type { ClassRule, InputTier };

type Row = (typeof COVERAGE_TABLE)[number];

/** Each class's rule, as its row in plan/coverage-table.ts says. */
export const INPUT_CLASSES = Object.fromEntries(COVERAGE_TABLE.map((row) => [row.id, row.tier])) as { readonly [R in Row as R['id']]: R['tier'] };

export type InputClass = keyof typeof INPUT_CLASSES;

/** The tier an invalid input of the class is judged in (a class no table row names: must-reject). */
export function tierOf(inputClass: string | undefined): InputTier {
  const rule = inputClass !== undefined && Object.hasOwn(INPUT_CLASSES, inputClass) ? INPUT_CLASSES[inputClass as InputClass] : 'must-reject';
  return rule === 'lenient' ? 'lenient' : 'must-reject';
}

/** A profile's promise of strict validation: every lenient class held strictly, or the ones it lists. */
export type StrictInput = boolean | string[];

/** True when accepting an invalid input of this class is an error under the profile. */
export function mustReject(inputClass: string | undefined, strictInput: StrictInput | undefined): boolean {
  if (tierOf(inputClass) === 'must-reject') return true;
  return strictInput === true || (Array.isArray(strictInput) && inputClass !== undefined && strictInput.includes(inputClass));
}

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as Kind;
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The tier of a JSON value sent where a schema declares `types` (undefined when its kind is one of them): a
 * kind no mainstream parser (System.Text.Json, encoding/json, Jackson, pydantic in lax mode) turns into any
 * declared type is must-reject: an object or an array for a scalar, a scalar for an object or an array, an array
 * for an object and back, a string that is no number for a number, no boolean text for a boolean, a fraction for
 * an integer. A scalar one of them coerces (a number or a boolean for a string, a numeric string for a number,
 * `true` for a number, 0, 1 or "true" for a boolean) and `null` are lenient.
 */
export function kindTier(value: unknown, types: readonly string[]): InputTier | undefined {
  const kind = kindOf(value);
  const declared = types.filter((t) => t !== 'null');
  if (declared.length === 0) return undefined;
  if (types.includes(kind) || (kind === 'integer' && types.includes('number'))) return undefined;
  if (kind === 'null') return 'lenient';
  const lenient = declared.some((t) => coerces(value, kind, t));
  return lenient ? 'lenient' : 'must-reject';
}

function coerces(value: unknown, kind: Kind, to: string): boolean {
  if (!SCALARS.has(kind) || !SCALARS.has(to)) return false;
  switch (to) {
    case 'string':
      return true;
    case 'number':
      return kind === 'boolean' || (kind === 'string' && isNumericText(value as string));
    case 'integer':
      return kind === 'boolean' || (kind === 'string' && /^-?\d+$/.test((value as string).trim()));
    case 'boolean':
      return (kind === 'integer' && (value === 0 || value === 1 || value === 0n || value === 1n)) || (kind === 'string' && /^(true|false|0|1)$/i.test(value as string));
    default:
      return false;
  }
}

function isNumericText(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}
