import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import { isSafeNumber, LosslessNumber, parse as parseLossless } from 'lossless-json';
import type { JsonSchema, ResponseSpec, SchemaErrorDetail } from '../model.ts';
import { INT64_KEYWORD, resolvePointer, schemaSize, type ValidationDocument } from '../description/validation-document.ts';
import { isBase64 } from './base64.ts';
import { schemaFragment } from './schema-fragment.ts';

// ajv-formats is CommonJS; its default export arrives as the module namespace under some loaders.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const INT32 = { min: -2147483648, max: 2147483647 };
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
/** Schema nodes one compile may work through (the response schema and everything it references). */
export const MAX_SCHEMA_NODES = 150_000;

/** A response schema the tool cannot compile: a tool problem (the operation errors), never the service's fault. */
export class SchemaCompileError extends Error {
  override readonly name = 'SchemaCompileError';
}

/** Patterns are ECMAScript regexes with the unicode flag; a pattern only valid without it is used without it. */
const regExp = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      if (!flags.includes('u')) throw error;
      return new RegExp(pattern, flags.replace('u', ''));
    }
  },
  { code: 'new RegExp' },
);

/**
 * JSON Schema 2020-12 validation with formats; each schema is compiled once and cached by key (a schema that
 * cannot be compiled is remembered as such). Response schemas of loaded descriptions are compiled by
 * reference into their validation document (ValidationDocument), so recursive schemas stay finite.
 */
export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction | SchemaCompileError>();
  /** Response schema reference -> the reference it compiles as (see target()). */
  private readonly targets = new Map<string, string>();
  /** Document id and schema text -> the first reference compiled for that content. */
  private readonly byContent = new Map<string, string>();
  private readonly documents = new Map<string, ValidationDocument>();
  private readonly added = new Set<string>();
  /** Per document: true when the whole document is within MAX_SCHEMA_NODES (then every schema in it is). */
  private readonly small = new Map<string, boolean>();
  /** Exact digits of the unsafe integers of the body being validated, by instance path. */
  private exact: Map<string, string> | undefined;

  constructor(documents: ValidationDocument[] = []) {
    for (const d of documents) this.documents.set(d.id, d);
    this.ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      validateFormats: true,
      // verbose: the failing keyword's schema (parentSchema) is shown as the expected fragment in reports.
      verbose: true,
      validateSchema: false,
      inlineRefs: false,
      logger: false,
      code: { regExp },
    });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max,
    });
    // Judged here to float precision; beyond 2^53 the INT64_KEYWORD judges the exact digits.
    this.ajv.addFormat('int64', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && (Number.isSafeInteger(n) || Math.abs(n) <= 2 ** 63),
    });
    this.ajv.addFormat('byte', { type: 'string', validate: isBase64 });
    // Formats OpenAPI names that carry no constraint here.
    for (const format of ['float', 'double', 'binary', 'password']) this.ajv.addFormat(format, true);
    const exact = () => this.exact;
    type KeywordFn = ((schema: unknown, data: number, parent?: unknown, cxt?: DataValidationCxt) => boolean) & { errors?: unknown[] };
    const int64Exact: KeywordFn = (_schema, data, _parent, cxt) => {
      if (Number.isSafeInteger(data)) return true;
      const digits = exact()?.get(cxt?.instancePath ?? '');
      if (digits === undefined) return true; // no exact text: the format judged the value as parsed
      const ok = /^-?\d+$/.test(digits) && BigInt(digits) >= INT64.min && BigInt(digits) <= INT64.max;
      if (!ok) int64Exact.errors = [{ keyword: INT64_KEYWORD, message: `must be an int64 (${digits} is not)`, params: { value: digits } }];
      return ok;
    };
    this.ajv.addKeyword({ keyword: INT64_KEYWORD, type: 'number', schemaType: 'boolean', errors: true, validate: int64Exact as never });
  }

  /** Validates data against the schema compiled under `key` (compiled on first use). */
  validate(key: string, schema: JsonSchema, data: unknown): SchemaErrorDetail[] {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.compile(() => this.ajv.compile(typeof schema === 'boolean' ? schema : stripIds(schema)));
      this.cache.set(key, fn);
    }
    if (fn instanceof SchemaCompileError) throw fn;
    return run(fn, data);
  }

  /**
   * Validates a response body against its documented schema: by reference into the description's validation
   * document when the response has one, else against `spec.schema`. `raw` (the body text) lets integers beyond
   * 2^53 be judged on their exact digits. Throws SchemaCompileError when the schema cannot be compiled.
   */
  validateResponse(spec: ResponseSpec, data: unknown, raw?: string): SchemaErrorDetail[] {
    const ref = spec.schemaRef;
    const docId = ref?.split('#')[0];
    const doc = docId ? this.documents.get(docId) : undefined;
    if (!ref || !doc) return spec.schema === undefined ? [] : this.validate(spec.pointer, spec.schema, data);
    // Responses whose schema is only a reference share the compile of what it names (one per component).
    const target = this.target(ref, doc);
    let fn = this.cache.get(target);
    if (!fn) {
      fn = this.compile(() => {
        if (!this.added.has(doc.id)) {
          this.ajv.addSchema(doc.document, doc.id);
          this.added.add(doc.id);
          this.small.set(doc.id, objectCount(doc.document, MAX_SCHEMA_NODES) <= MAX_SCHEMA_NODES);
        }
        // Only in a document larger than the bound can one schema's closure exceed it: count it there.
        if (!this.small.get(doc.id) && schemaSize(doc.document, ref.slice(ref.indexOf('#') + 1), MAX_SCHEMA_NODES) > MAX_SCHEMA_NODES) {
          throw new Error(`the schema and what it references exceed ${MAX_SCHEMA_NODES} nodes`);
        }
        return this.ajv.compile({ $ref: target });
      });
      this.cache.set(target, fn);
    }
    if (fn instanceof SchemaCompileError) throw fn;
    this.exact = raw !== undefined && /\d{16}/.test(raw) ? unsafeIntegers(raw) : undefined;
    try {
      return run(fn, data);
    } finally {
      this.exact = undefined;
    }
  }

  /**
   * The schema a response schema reference stands for: through schemas that are nothing but an internal
   * `$ref` (which validate exactly as their target does), so every response naming one component schema
   * shares its compile. Remembered per reference.
   */
  private target(ref: string, doc: ValidationDocument): string {
    let found = this.targets.get(ref);
    if (found === undefined) {
      found = ref;
      const seen = new Set<string>([ref]);
      for (;;) {
        const node = resolvePointer(doc.document, found.slice(found.indexOf('#') + 1));
        if (typeof node !== 'object' || node === null || Array.isArray(node)) break;
        const keys = Object.keys(node);
        const next = (node as Record<string, unknown>)['$ref'];
        if (keys.length !== 1 || typeof next !== 'string' || !next.startsWith('#')) break;
        const candidate = `${doc.id}${next}`;
        if (seen.has(candidate) || seen.size > 32) break;
        seen.add(candidate);
        found = candidate;
      }
      // Schemas of the same content validate alike wherever they sit, unless something in or above them
      // changes how references resolve: then they share one compile too (an inline schema repeated per operation).
      const text = locationFreeText(doc.document, found.slice(found.indexOf('#') + 1));
      if (text !== undefined) {
        const key = `${doc.id} ${text}`;
        const first = this.byContent.get(key);
        if (first !== undefined) found = first;
        else this.byContent.set(key, found);
      }
      this.targets.set(ref, found);
    }
    return found;
  }

  private compile(build: () => ValidateFunction): ValidateFunction | SchemaCompileError {
    try {
      return build();
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';
      return new SchemaCompileError(`the schema cannot be compiled: ${message}`);
    }
  }

  /** The validation document registered under this id (refs kept), for checks that read the schema itself. */
  documentOf(id: string): Record<string, unknown> | undefined {
    return this.documents.get(id)?.document;
  }

  get compiledCount(): number {
    return this.cache.size;
  }
}

function run(fn: ValidateFunction, data: unknown): SchemaErrorDetail[] {
  let valid: boolean;
  try {
    valid = fn(data) as boolean;
  } catch (error) {
    // A body ajv cannot walk (the call stack runs out) is not valid: say why, never throw.
    return [{ instancePath: '', schemaPath: '', message: `(root) could not be validated: ${(error as Error).message}` }];
  }
  if (valid) return [];
  const errors = fn.errors ?? [];
  // ajv keeps the last errors on the function, with the data they are about (verbose): let go of them here.
  fn.errors = null;
  return errors.map((e) => {
    const detail: SchemaErrorDetail = {
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      message: `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${
        e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : ''
      }`,
    };
    // The property the keyword is about, where the instance path stops at its object (what tells two such errors apart).
    const params = e.params as { missingProperty?: unknown; additionalProperty?: unknown };
    if (e.keyword === 'required' && typeof params.missingProperty === 'string') detail.missingProperty = params.missingProperty;
    if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') detail.additionalProperty = params.additionalProperty;
    // The schema the failing keyword belongs to (ajv's verbose parentSchema), compacted for reports.
    const expected = schemaFragment(e.parentSchema);
    if (expected !== undefined) detail.expected = expected;
    return detail;
  });
}

/** Keywords that give a schema a base URI or an anchor of its own: its meaning then depends on where it is. */
const LOCATION_KEYWORDS = new Set(['$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef']);

/**
 * The JSON text of the schema at `pointer` when its meaning does not depend on its place in the document (no
 * `$id` on the way to it, no base URI or anchor keywords inside, only document-internal `#...` references);
 * undefined otherwise.
 */
export function locationFreeText(doc: unknown, pointer: string): string | undefined {
  let current: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Array.isArray(current) && '$id' in current) return undefined;
    current = resolvePointer(current, `/${raw}`);
  }
  if (typeof current !== 'object' || current === null) return undefined;
  const stack: unknown[] = [current];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (LOCATION_KEYWORDS.has(key)) return undefined;
      if (key === '$ref' && (typeof value !== 'string' || !value.startsWith('#'))) return undefined;
      if (typeof value === 'object' && value !== null) stack.push(value);
    }
  }
  return JSON.stringify(current);
}

/** Objects in a JSON tree, counted up to just past `limit`. */
function objectCount(root: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    count++;
    for (const v of Array.isArray(node) ? node : Object.values(node)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  return count;
}

/** Instance paths (as ajv writes them) of the numbers in a JSON text that a double cannot hold exactly. */
export function unsafeIntegers(text: string): Map<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = parseLossless(text, null, (value: string) => (isSafeNumber(value) ? 0 : new LosslessNumber(value)));
  } catch {
    return undefined;
  }
  const found = new Map<string, string>();
  const walk = (node: unknown, path: string): void => {
    if (node instanceof LosslessNumber) found.set(path, node.value);
    else if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${path}/${i}`));
    else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  walk(parsed, '');
  return found;
}

/** Dereferenced schemas may carry $id/$schema from their source; drop them so one schema can be compiled twice. */
function stripIds(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
}
