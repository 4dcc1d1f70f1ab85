/**
 * The input classes, as data: one row per class the coverage phase (plan/coverage-classes.ts) and the negative
 * cases (plan/cases.ts) send, with its tier (plan/input-tiers.ts reads it), where it applies, the makers that make
 * it (functions of plan/coverage-makers.ts, plan/coverage-body-makers.ts, plan/body-shapes.ts, or of the negative
 * cases' plan/cases.ts, plan/media-negatives.ts, plan/refused-create.ts) and what it sends, with its validity rule
 * ("as judged" = whatever accepts() answers; "kept if" = the item is dropped when accepts() disagrees, so a label
 * never claims what the value is not). A new class is one row here and, where needed, one maker.
 *
 * Form fields and a text body: a form's fields get the classes of a query parameter (their values are text); a
 * text/* body is one value, with the classes of its schema. A body field is a top-level one, or a field of a
 * one-member envelope object (JSON:API's `data`).
 */

/** The tier an invalid input is judged in when a deployment takes it (plan/input-tiers.ts). */
export type InputTier = 'must-reject' | 'lenient';
/**
 * A class's rule: a tier, or `valid` (the class only ever sends schema-valid requests: judged as positives), or
 * `response-only` (nothing says how a server must take it: only the answer's conformance is judged).
 */
export type ClassRule = InputTier | 'valid' | 'response-only';

/** Where a class applies: the body as a whole, the request's headers, one input (a parameter or body field), a negative case. */
export type ClassLevel = 'body' | 'request' | 'input' | 'negative-case';
/** The places of an input class: a parameter's location, or a body field ('field': form fields and a text body too). */
export type ClassPlace = 'path' | 'query' | 'header' | 'cookie' | 'field';
/** The JSON types an input's schema declares for the class to apply ('any': whatever it declares). */
export type ClassKind = 'any' | 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

export interface ClassRow {
  readonly id: string;
  readonly tier: ClassRule;
  readonly level: ClassLevel;
  /** For an input class: the places it applies to. */
  readonly places?: readonly ClassPlace[];
  /** For an input class: the kinds it applies to. */
  readonly kinds?: readonly ClassKind[];
  /** The names of the functions that make its items. */
  readonly makers: readonly string[];
  readonly description: string;
}

const ALL_PLACES = ['path', 'query', 'header', 'cookie', 'field'] as const;

export const COVERAGE_TABLE = [
  // The body as a whole (any operation that takes a body), first.
  {
    id: 'malformed-json',
    tier: 'must-reject',
    level: 'body',
    makers: ['malformedJson'],
    description: '`{"` sent as the JSON media type. Invalid.',
  },
  {
    id: 'empty-body',
    tier: 'must-reject',
    level: 'body',
    makers: ['emptyBody'],
    description: 'No body at all. Valid only where the request body is not required.',
  },
  {
    id: 'non-object-body',
    tier: 'must-reject',
    level: 'body',
    makers: ['wrongKindBodies'],
    description:
      '`[]`, `"conformance"`, `1`, `true` as the whole body (not the positive body\'s own JSON kind). Invalid where the schema says so; where it names properties but no type (any JSON kind is valid by the letter), only the answer\'s conformance is judged.',
  },
  {
    id: 'wrong-type-body',
    tier: 'must-reject',
    level: 'body',
    makers: ['wrongKindBodies'],
    description: '`{}` where the body schema is no object, the way non-object-body is.',
  },
  {
    id: 'values-as-array',
    tier: 'must-reject',
    level: 'body',
    makers: ['valuesAsArrayItem'],
    description:
      'The positive body\'s own values as a JSON array, in the schema\'s property order (`[5,"x",false]` for `{id, value, done}`; plan/body-shapes.ts): what a decoder building a record from a sequence takes, no JSON kind an object is read from by the contract. Invalid for an object body schema; where the schema names properties but no type, only the answer is judged.',
  },
  {
    id: 'deep-nesting',
    tier: 'must-reject',
    level: 'body',
    makers: ['deepNestingItems'],
    description:
      'JSON nested 5,000 levels deep in a few kilobytes (plan/body-shapes.ts), as the whole body (`[[[…]]]`) and at each object- or array-typed top-level field (`{"a":{"a":…}}`, `[[[…]]]`), sent as rawBody. Invalid where the schema makes it so; otherwise only the answer is judged (a recursive parser\'s stack overflow is a 5xx or a dropped connection; a depth limit\'s 4xx is right).',
  },
  {
    id: 'null-body',
    tier: 'lenient',
    level: 'body',
    makers: ['nullBody'],
    description: 'The JSON `null` as the whole body. As judged (valid where the body schema is nullable); where it is not nullable, many binders read it as no value.',
  },
  {
    id: 'undeclared-media-type',
    tier: 'lenient',
    level: 'body',
    makers: ['undeclaredMediaType'],
    description:
      'The positive body\'s JSON as text/plain (else application/xml, ...): a media type no declared one (wildcards included) matches. Invalid; a well-formed body under it is taken by most JSON decoders, which do not look.',
  },
  {
    id: 'not-utf8',
    tier: 'response-only',
    level: 'body',
    makers: ['notUtf8Body'],
    description:
      'The positive body\'s JSON with a byte that is not UTF-8 (0x80) in its first string, else in a key, sent as the JSON media type. RFC 8259 asks UTF-8 of the sender and nothing of the receiver (servers refuse it or decode leniently), so only the answer\'s conformance is judged.',
  },
  {
    id: 'additional-property',
    tier: 'valid',
    level: 'body',
    makers: ['additionalProperty'],
    description: 'The positive body with one property the schema does not list, where the schema lets others through (no `additionalProperties: false`). Kept if valid.',
  },
  // Accept and Content-Type (plan/accept-header.ts; every request asks for the declared media types, successes first).
  {
    id: 'accept-declared',
    tier: 'valid',
    level: 'request',
    makers: ['acceptItems'],
    description:
      'The positive request asking for each type a successful answer declares beyond the first (valid: an undocumented 406 is an error), and the first must-reject item asking for each type only error answers declare.',
  },
  {
    id: 'accept-undeclared',
    tier: 'response-only',
    level: 'request',
    makers: ['acceptItems'],
    description: 'The positive request asking for a plain type no answer declares. Its answer alone is judged (a 406 is right, documented or not: an undocumented one is a warning; a 5xx an error).',
  },
  {
    id: 'malformed-content-type',
    tier: 'response-only',
    level: 'request',
    makers: ['malformedContentTypes'],
    description:
      'A Content-Type no parser takes as it is (multipart/form-data without a boundary, a parameter without a value), with the positive body or, where the operation takes none, alone. Its answer alone is judged (an undocumented 400 or 415 is a warning, a 5xx an error).',
  },
  // One parameter or body field.
  {
    id: 'beyond-int64',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['integer', 'string', 'array'],
    makers: ['beyondInt64First', 'beyondInt64Rest', 'arrayItemProbes'],
    description:
      '2^63, -2^63-1, 2^64, -2^64 for integers (and an array item in the URL). As judged: valid where neither a format nor a bound limits them, invalid under int32/int64 or min/max. Bodies holding them go as rawBody (lossless-json). A string path parameter that takes digits gets 2^63, first, its answer alone judged (plan/path-classes.ts).',
  },
  {
    id: 'wrong-type',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['any'],
    makers: ['wrongTypes', 'planOperation', 'mediaNegatives', 'refusedBody'],
    description:
      'A value of another type: a JSON kind no mainstream parser turns into the declared type (body: plan/values.ts wrongKindValues, plan/input-tiers.ts kindTier); path, query, header and cookie: text that no declared type parses, e.g. "not-a-number" for an integer; none for a string parameter. Kept if invalid.',
  },
  {
    id: 'one-element-array',
    tier: 'must-reject',
    level: 'input',
    places: ['field'],
    kinds: ['string', 'number', 'integer', 'boolean'],
    makers: ['wrongTypes'],
    description:
      'For a scalar body field, its valid value (the positive one where it has one) as an array of one (`["a@b.c"]`), which validators coercing types to arrays (ajv\'s coerceTypes: \'array\') unwrap. Kept if invalid (the wrong-type class\'s array, under its own name).',
  },
  {
    id: 'coercible-type',
    tier: 'lenient',
    level: 'input',
    places: ['field'],
    kinds: ['string', 'number', 'integer', 'boolean'],
    makers: ['coercibleTypes'],
    description: 'For a body field, a scalar mainstream parsers coerce to the declared type: a number for a string, a numeric string for a number, 1 or "true" for a boolean. Kept if invalid.',
  },
  {
    id: 'integer-as-decimal',
    tier: 'lenient',
    level: 'input',
    places: ['field'],
    kinds: ['integer'],
    makers: ['decimalIntegers'],
    description:
      'An integer written with a fraction of zero (`2.0`): refused by .NET and Go. No integer in OpenAPI 3.0\'s dialect (this row\'s tier); JSON Schema 2020-12\'s integer, so valid, in a 3.1 description (plan/coverage-makers.ts CoverageOptions), where its refusal is a warning.',
  },
  {
    id: 'bound',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['number', 'integer', 'string', 'array'],
    makers: ['boundCandidates', 'edgeValues'],
    description:
      'Each declared bound and its neighbour outside, as plan/keywords.ts edges() lists them (minimum/maximum, exclusive ones honoured, int32 and int64 limits where no bound is declared, minLength/maxLength, minItems/maxItems). The edge is kept if valid, the neighbour kept if invalid. Other edge values of coverage.ts\'s boundaryValues (0, -1, 2^53-1, the largest double) are here too, as judged.',
  },
  {
    id: 'invalid-format',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['string'],
    makers: ['invalidFormats'],
    description: 'A string the format rejects ("not-a-uuid", "2026-02-30", ...; plan/formats.ts), then values close to valid ones. Kept if invalid.',
  },
  {
    id: 'format-respelling',
    tier: 'lenient',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['string'],
    makers: ['formatRespellings'],
    description:
      'Another spelling of a valid value of the format that the format\'s validator refuses (a uuid without hyphens, in braces). One it takes is no lenient input: valid (an upper-case uuid), or, beyond the format\'s own definition (a uuid\'s URN form, which ajv-formats takes), judged for its answer only.',
  },
  {
    id: 'multiple-of',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['number', 'integer'],
    makers: ['boundCandidates'],
    description: 'The lowest allowed integer plus one where multipleOf > 1. Kept if invalid.',
  },
  {
    id: 'null',
    tier: 'lenient',
    level: 'input',
    places: ['field'],
    kinds: ['any'],
    makers: ['nullValue'],
    description: 'null for a body field (or a JSON parameter). As judged (valid where nullable); where not, an optional .NET `string?` reads it as not given.',
  },
  {
    id: 'empty-string',
    tier: 'must-reject',
    level: 'input',
    places: ['query', 'header', 'cookie', 'field'],
    kinds: ['string'],
    makers: ['emptyString', 'edgeValues'],
    description:
      '"" (not for a path parameter: it changes the route). As judged: invalid only under minLength, a format, a pattern or an enum; sent in the query, a header or a cookie only where both readings (left out, the empty string) refuse it (plan/empty-values.ts).',
  },
  {
    id: 'empty-optional-query',
    tier: 'lenient',
    level: 'input',
    places: ['query'],
    kinds: ['any'],
    makers: ['withEmptyValues'],
    description: 'An empty value for an optional query parameter whose schema refuses "", without `allowEmptyValue`: invalid by OpenAPI, read as left out by many binders.',
  },
  {
    id: 'unicode',
    tier: 'must-reject',
    level: 'input',
    places: ['path', 'query', 'cookie', 'field'],
    kinds: ['string'],
    makers: ['unicodeValue', 'edgeValues'],
    description: 'A non-ASCII string (not for a header). As judged.',
  },
  {
    id: 'empty-array',
    tier: 'must-reject',
    level: 'input',
    places: ['field'],
    kinds: ['array'],
    makers: ['emptyArray', 'edgeValues'],
    description: '[] for a body field (or a JSON parameter). As judged.',
  },
  {
    id: 'boolean',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['boolean'],
    makers: ['edgeValues'],
    description: 'true and false (coverage.ts boundaryValues). As judged.',
  },
  {
    id: 'pattern',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['string'],
    makers: ['edgeValues'],
    description: 'A string matching the pattern (coverage.ts boundaryValues). As judged.',
  },
  {
    id: 'enum',
    tier: 'valid',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['any'],
    makers: ['enumValues'],
    description: 'Each enum (or const) value (no null in the URL). Kept if valid.',
  },
  {
    id: 'outside-enum',
    tier: 'must-reject',
    level: 'input',
    places: ALL_PLACES,
    kinds: ['string', 'number', 'integer', 'boolean'],
    makers: ['outsideEnumValue'],
    description: 'A value of the enum\'s own type outside it (none for a mixed enum). Kept if invalid.',
  },
  {
    id: 'no-match-filter',
    tier: 'valid',
    level: 'input',
    places: ['query'],
    kinds: ['string'],
    makers: ['noMatchFilter'],
    description: 'A string query parameter of a GET set to an unlikely value ("zz-nomatch-…", a fresh uuid, a new pattern match): a read whose filter nothing matches. Kept if valid.',
  },
  {
    id: 'identifier-like',
    tier: 'response-only',
    level: 'input',
    places: ['path', 'query'],
    kinds: ['string', 'array'],
    makers: ['identifierLike', 'arrayItemProbes'],
    description:
      'A plain word or a numeric string (0, beyond int64) in a URL string nothing constrains (no format, pattern or enum), alone or as an array\'s one item: a name or a number a server may read it as (a sort or filter field, a record it looks up, a number it casts). Only the answer is judged.',
  },
  // A path segment sent as it is, already percent-encoded (plan/path-classes.ts): no value of the parameter's schema.
  {
    id: 'invalid-percent-encoding',
    tier: 'response-only',
    level: 'input',
    places: ['path'],
    kinds: ['any'],
    makers: ['pathSegments'],
    description: '`%ZZ`, an overlong UTF-8 sequence (`%C0%AF`), a lone byte (`%FF`), sent as it is (rawPathParams). Its answer alone is judged.',
  },
  {
    id: 'encoded-separator',
    tier: 'response-only',
    level: 'input',
    places: ['path'],
    kinds: ['any'],
    makers: ['pathSegments'],
    description: '`%2F`, `%3F`, `%23` inside the value, sent as it is. Its answer alone is judged.',
  },
  {
    id: 'dot-segment',
    tier: 'response-only',
    level: 'input',
    places: ['path'],
    kinds: ['any'],
    makers: ['pathSegments'],
    description: '`..%2F` before the value, sent as it is; a bare dot segment (`.`, `..`, `%2E%2E`) is never sent: the URL parser resolves it into another route. Its answer alone is judged.',
  },
  {
    id: 'optional-left-out',
    tier: 'must-reject',
    level: 'input',
    places: ['query', 'field'],
    kinds: ['any'],
    makers: ['optionalPresence'],
    description:
      'An optional query parameter or body field the positive request has, left out. As judged (an optional query parameter left out is valid by its `required: false`; a body field another one depends on is not). Required ones are the negative cases\'.',
  },
  {
    id: 'optional-present',
    tier: 'must-reject',
    level: 'input',
    places: ['query', 'field'],
    kinds: ['any'],
    makers: ['optionalPresence'],
    description: 'An optional query parameter or body field the positive request lacks, added (drawn from its schema). As judged.',
  },
  // After the classes.
  {
    id: 'all-at-bound',
    tier: 'valid',
    level: 'body',
    makers: ['allAtBound'],
    description: 'Every numeric body field at its high, then its low end, together; then at opposite ends (the first high, the next low, and so on, then the other way round). Kept if valid.',
  },
  {
    id: 'random',
    tier: 'valid',
    level: 'input',
    places: ['query', 'header', 'cookie', 'field'],
    kinds: ['any'],
    makers: ['randomItems'],
    description: 'Then, up to `max`, fields drawn afresh from their schema one at a time. Kept if valid.',
  },
  // The negative cases of the examples phase.
  {
    id: 'missing-required',
    tier: 'must-reject',
    level: 'negative-case',
    makers: ['planOperation', 'mediaNegatives', 'refusedBody'],
    description: 'A required property or parameter left out.',
  },
  {
    id: 'example-negative',
    tier: 'must-reject',
    level: 'negative-case',
    makers: ['planOperation'],
    description: 'A negative case written in the examples file: the user says it must be refused.',
  },
] as const satisfies readonly ClassRow[];
