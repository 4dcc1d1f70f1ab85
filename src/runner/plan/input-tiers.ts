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
 * Every input class of the coverage phase and of the negative cases is in exactly one row. Two rows are no
 * tier: `valid` (the class only ever sends schema-valid requests: judged as positives) and `response-only`
 * (nothing says how a server must take it: only the answer's conformance is judged).
 */

export type InputTier = 'must-reject' | 'lenient';
export type ClassRule = InputTier | 'valid' | 'response-only';

export const INPUT_CLASSES = {
  // The body as a whole.
  'malformed-json': 'must-reject',
  /** Invalid only where the body is required. */
  'empty-body': 'must-reject',
  /** A scalar or an array for an object body (response-only where the schema names properties but no type). */
  'non-object-body': 'must-reject',
  /** An object for a body that is no object. */
  'wrong-type-body': 'must-reject',
  /** The object body's own values as a JSON array (`[5,"x",false]`): no JSON kind an object is read from by the contract. */
  'values-as-array': 'must-reject',
  /**
   * JSON nested thousands of levels deep: invalid only where the schema makes it so; otherwise only the answer is
   * judged (no server error, no dropped connection).
   */
  'deep-nesting': 'must-reject',
  /** `null` as the whole body where it is not nullable: many binders read it as no value. */
  'null-body': 'lenient',
  /** A well-formed body under a media type the operation does not declare: most JSON decoders do not look. */
  'undeclared-media-type': 'lenient',
  'not-utf8': 'response-only',
  'additional-property': 'valid',
  /** The positive request asking for a media type a successful answer declares. */
  'accept-declared': 'valid',
  /** Asking for a media type no answer declares: a 406 is right, documented or not (a warning when not). */
  'accept-undeclared': 'response-only',
  /** A Content-Type header no parser takes as it is (a multipart type without its boundary). */
  'malformed-content-type': 'response-only',
  // One parameter or body field.
  /** Invalid only under a declared format or bound. */
  'beyond-int64': 'must-reject',
  /** A JSON kind no mainstream parser turns into the declared type (plan/input-tiers.ts kindTier). */
  'wrong-type': 'must-reject',
  /** A scalar's valid value as an array of one (`["a@b.c"]`): validators that coerce types to arrays unwrap it. */
  'one-element-array': 'must-reject',
  /** A scalar mainstream parsers coerce: a number for a string, a numeric string for a number, 1 or "true" for a boolean. */
  'coercible-type': 'lenient',
  /**
   * An integer written with a fraction of zero (`2.0`): refused by .NET and Go. No integer in OpenAPI 3.0's dialect
   * (this row); JSON Schema 2020-12's integer, so valid, in a 3.1 description (plan/coverage-classes.ts CoverageOptions).
   */
  'integer-as-decimal': 'lenient',
  bound: 'must-reject',
  'invalid-format': 'must-reject',
  /**
   * Another spelling of a valid value of the format that the format's validator refuses (a uuid without hyphens, in
   * braces). One it takes is no lenient input: valid (an upper-case uuid), or, beyond the format's own definition
   * (a uuid's URN form, which ajv-formats takes), judged for its answer only (plan/coverage-classes.ts).
   */
  'format-respelling': 'lenient',
  'multiple-of': 'must-reject',
  /** `null` for a property or parameter that is not nullable (an optional .NET `string?` reads it as not given). */
  null: 'lenient',
  /** Invalid only under minLength, a format, a pattern or an enum; sent in the query only where both readings refuse it. */
  'empty-string': 'must-reject',
  /** An empty value for an optional query parameter without `allowEmptyValue` (read as left out by many binders). */
  'empty-optional-query': 'lenient',
  unicode: 'must-reject',
  'empty-array': 'must-reject',
  boolean: 'must-reject',
  pattern: 'must-reject',
  enum: 'valid',
  'outside-enum': 'must-reject',
  'no-match-filter': 'valid',
  /** A plain word or a numeric string in a URL string nothing constrains (a name or a number a server may read it as). */
  'identifier-like': 'response-only',
  // A path segment sent as it is, already percent-encoded (plan/path-classes.ts): no value of the parameter's schema.
  /** `%ZZ`, an overlong UTF-8 sequence (`%C0%AF`), a lone byte (`%FF`). */
  'invalid-percent-encoding': 'response-only',
  /** `%2F`, `%3F`, `%23` inside the value. */
  'encoded-separator': 'response-only',
  /** `..%2F` before the value (bare dot segments are resolved by the URL parser and never sent). */
  'dot-segment': 'response-only',
  /** Invalid only where another field depends on it. */
  'optional-left-out': 'must-reject',
  'optional-present': 'must-reject',
  'all-at-bound': 'valid',
  random: 'valid',
  // The negative cases of the examples phase.
  'missing-required': 'must-reject',
  /** A negative case written in the examples file: the user says it must be refused. */
  'example-negative': 'must-reject',
} as const satisfies Record<string, ClassRule>;

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
