import type fcModule from 'fast-check';
import type { Random } from './random.ts';

/**
 * The string formats the engine generates, one row each, feeding the three value generators: a plain value
 * drawn from the seeded Random (values.ts: positive requests), a fast-check arbitrary (arbitraries.ts: the
 * fuzzing phase; fast-check is passed in, so that this module does not load it) and a value the format
 * rejects (coverage-classes.ts: the coverage phase's invalid-format class, kept only where accepts() agrees).
 * A format without a row is generated from the rest of the schema (its pattern and lengths).
 */
export interface FormatRow {
  value(random: Random): string;
  /** Absent: the fuzzing phase draws the format's strings from the rest of the schema. */
  arbitrary?(fc: typeof fcModule): fcModule.Arbitrary<string>;
  /** Absent: the format constrains nothing the engine checks (binary). */
  invalid?: string;
  /** Values close to valid ones that the format refuses (a date-time for a date, a uuid one digit short). */
  near?: string[];
  /**
   * Other spellings of a valid value (a uuid without hyphens, in braces, upper-case, as a URN): what lenient
   * parsers take. Each is judged by the validator as any value is (plan/coverage-classes.ts): one it refuses is
   * input of the lenient tier (plan/input-tiers.ts format-respelling), one it takes is a valid value (an upper-case
   * uuid: RFC 9562 reads UUIDs case-insensitively, and so does ajv-formats).
   */
  respell?(valid: string): string[];
  /**
   * Whether the validator takes a spelling beyond the format's own definition: ajv-formats' uuid takes the URN
   * form (`urn:uuid:…`), which RFC 9562 names a URN of the UUID, not its string representation. Nothing says how a
   * server must take such a spelling: only its answer is judged.
   */
  beyondDefinition?(spelling: string): boolean;
}

const dates = (fc: typeof fcModule) => fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true });
const url: FormatRow = {
  value: (random) => `https://example.com/${random.word(6)}`,
  arbitrary: (fc) =>
    fc
      .tuple(fc.constantFrom('https', 'http'), fc.domain(), fc.array(fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'.split('')) }), { maxLength: 3 }))
      .map(([scheme, host, path]) => `${scheme}://${host}/${path.join('/')}`),
  invalid: 'not a uri',
};

const FORMATS: Record<string, FormatRow> = {
  uuid: {
    value: (random) => random.uuid(),
    arbitrary: (fc) => fc.uuid(),
    invalid: 'not-a-uuid',
    near: ['0f8fad5b-d9cb-469f-a165-70867728950', '0f8fad5b-d9cb-469f-a165-70867728950e1', '0f8fad5b-d9cb-469f-a165-70867728950g'],
    respell: (v) => [v.replace(/-/g, ''), `{${v}}`, v.toUpperCase(), `urn:uuid:${v}`],
    beyondDefinition: (s) => /^urn:uuid:/i.test(s),
  },
  'date-time': {
    value: (random) => new Date(Date.UTC(2026, 0, 1, 0, 0, random.int(0, 86_399))).toISOString(),
    arbitrary: (fc) => dates(fc).map((d) => d.toISOString()),
    invalid: '2026-02-30T25:61:00Z',
    // A date where a date-time is declared.
    near: ['2026-01-15'],
  },
  date: {
    value: (random) => `2026-01-${String(random.int(10, 28))}`,
    arbitrary: (fc) => dates(fc).map((d) => d.toISOString().slice(0, 10)),
    invalid: '2026-02-30',
    // A date-time (with and without an offset) where a date is declared.
    near: ['2020-01-01T00:00:00', '2020-01-01T00:00:00Z'],
  },
  time: { value: (random) => `${String(random.int(10, 23))}:${String(random.int(10, 59))}:00Z`, arbitrary: (fc) => dates(fc).map((d) => `${d.toISOString().slice(11, 19)}Z`), invalid: '25:61:00Z', near: ['2026-01-15T10:00:00Z'] },
  email: { value: (random) => `conformance.${random.word(6)}@example.com`, arbitrary: (fc) => fc.emailAddress(), invalid: 'not-an-email', near: ['conformance@', 'conformance.example.com', '@example.com'] },
  uri: url,
  url,
  hostname: { value: (random) => `${random.word(6)}.example.com`, arbitrary: (fc) => fc.domain(), invalid: '-not_a-host-.' },
  ipv4: { value: (random) => `192.0.2.${random.int(1, 254)}`, arbitrary: (fc) => fc.ipV4(), invalid: '256.0.0.1', near: ['192.0.2.1.5', '192.0.2'] },
  ipv6: { value: (random) => `2001:db8::${random.int(1, 9999).toString(16)}`, arbitrary: (fc) => fc.ipV6(), invalid: '2001:db8::g' },
  byte: { value: (random) => Buffer.from(`conformance-${random.word(4)}`).toString('base64'), arbitrary: (fc) => fc.base64String(), invalid: 'not base64!' },
  binary: { value: (random) => `conformance-${random.word(8)}` },
};

/** The row of a format, undefined for one the engine does not generate. */
export function formatRow(format: string | undefined): FormatRow | undefined {
  return format !== undefined && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
}
