/**
 * The description versions the engine reads, and how: OpenAPI 3.0 and 3.1 as they are; OpenAPI 3.2 natively
 * (validated against the 3.2 schema, its `$ref`s bundled and resolved by the reference parser, which knows no
 * versions; what 3.1 means stays as it is); Swagger 2.0 converted to OpenAPI 3.0 by swagger2openapi once it has
 * passed the 2.0 schema, with the moves that take every pointer back to the 2.0 document (source-pointers.ts).
 * Any other version is a one-line error that says what to change.
 */
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { ContractError } from './errors.ts';
import { swagger2Moves, type PointerMoves } from './source-pointers.ts';

type Obj = Record<string, unknown>;

export type DescriptionVersion = '2.0' | '3.0.x' | '3.1.x' | '3.2.x';

/** What was read and how: `{ version: '2.0', readAs: 'OpenAPI 3.0' }`. */
export interface ReadAs {
  version: DescriptionVersion;
  readAs: string;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const READS = "this tool reads (it reads Swagger 2.0 and OpenAPI 3.0, 3.1 and 3.2)";

/** The version a parsed document declares, or the one-line error of one the engine does not read. */
export function versionOf(doc: unknown, source: string): DescriptionVersion {
  if (!isObj(doc)) throw new ContractError(source, '', 'not an OpenAPI or Swagger description (the document is empty or not an object)');
  const swagger = doc['swagger'];
  const openapi = doc['openapi'];
  if (swagger !== undefined && openapi === undefined) {
    if (String(swagger) === '2.0') {
      if (typeof swagger !== 'string') throw new ContractError(source, '/swagger', 'the version must be the string "2.0" (quote it in YAML), not a number');
      return '2.0';
    }
    throw new ContractError(source, '/swagger', `Swagger ${String(swagger)} is not a version ${READS}: convert the description to OpenAPI 3 or Swagger 2.0`);
  }
  if (openapi === undefined) {
    if (doc['swaggerVersion'] !== undefined) {
      throw new ContractError(source, '/swaggerVersion', `Swagger ${String(doc['swaggerVersion'])} is not a version ${READS}: convert the description to Swagger 2.0 or OpenAPI 3 (e.g. with api-spec-converter)`);
    }
    throw new ContractError(source, '', `no "openapi" or "swagger" version field: not an OpenAPI or Swagger description (${READS}); add "openapi: 3.1.0" or the version it is written in`);
  }
  if (typeof openapi !== 'string') throw new ContractError(source, '/openapi', `the version must be a string such as "3.1.0" (quote it in YAML), not ${JSON.stringify(openapi)}`);
  const minor = /^3\.([0-2])\.\d+(-.+)?$/.exec(openapi)?.[1];
  if (minor === undefined) throw new ContractError(source, '/openapi', `OpenAPI ${openapi} is not a version ${READS}: write the description in one of them and set "openapi" to it`);
  return `3.${minor}.x` as DescriptionVersion;
}

export function readAsOf(version: DescriptionVersion): string {
  return version === '2.0' ? 'OpenAPI 3.0' : `OpenAPI ${version.slice(0, 3)}`;
}

/** The text the console says once: "Swagger 2.0, read as OpenAPI 3.0" (nothing for a 3.0 or 3.1 description). */
export function readAsLine(read: ReadAs & { declared?: string }): string | undefined {
  if (read.version === '2.0') return `Swagger 2.0, read as ${read.readAs}`;
  if (read.version === '3.2.x') return `OpenAPI ${read.declared ?? '3.2'}, read as ${read.readAs}`;
  return undefined;
}

/**
 * A Swagger 2.0 description (bundled: its references internal) as OpenAPI 3.0, and the moves back. Its own
 * problems are found on the 2.0 document first (the caller validates it), so those speak the user's pointers.
 */
export async function fromSwagger2(bundled: Obj): Promise<{ converted: Obj; moves: PointerMoves }> {
  const { default: swagger2openapi } = await import('swagger2openapi');
  const { openapi } = await swagger2openapi.convertObj(structuredClone(bundled), { patch: true, warnOnly: true, resolve: false });
  fixConversion(openapi);
  return { converted: openapi, moves: swagger2Moves(bundled, openapi) };
}

/**
 * What the conversion leaves to be read: a `tsv` collectionFormat (OpenAPI 3 has no style for it) stays as its
 * `x-collectionFormat`, which the parameter reader takes for tab-separated values; the converter's own notes go.
 */
function fixConversion(doc: Obj): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (isObj(node)) {
      if (typeof node['x-s2o-warning'] === 'string' && node['x-collectionFormat'] === 'tsv') delete node['x-s2o-warning'];
      for (const v of Object.values(node)) visit(v);
    }
  };
  visit(doc['paths']);
  visit(doc['components']);
}

/** The parsed document at a location (a file or URL, YAML or JSON), without any version check. */
export async function parseRaw(location: string, options: object): Promise<unknown> {
  return new $RefParser().parse(location, options as never);
}

/**
 * An OpenAPI 3.2 description bundled (its `$ref`s internal). A reference through the document's own `$self`
 * URI (`https://example.com/api/openapi#/components/schemas/Pet`) is a reference into the document itself.
 */
export async function bundle32(location: string, raw: Obj, options: object): Promise<Obj> {
  const self = typeof raw['$self'] === 'string' ? raw['$self'] : undefined;
  const doc = self ? selfRefsInternal(structuredClone(raw), self) : raw;
  return (await new $RefParser().bundle(location, doc as never, options as never)) as unknown as Obj;
}

function selfRefsInternal(doc: Obj, self: string): Obj {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (isObj(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith(`${self}#`)) node[k] = v.slice(self.length);
        else visit(v);
      }
    }
  };
  visit(doc);
  return doc;
}

/** A 3.2 description's own problems against the OpenAPI 3.2 schema: the first, as a one-line error with its pointer. */
export async function validate32(bundled: Obj, source: string): Promise<void> {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(structuredClone(bundled) as never);
  if (result.valid) return;
  const errors = result.errors;
  if (typeof errors === 'string') throw new ContractError(source, '', `invalid OpenAPI 3.2: ${errors}`);
  const first = (errors as Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }> | undefined)?.[0];
  const extra = first?.params?.['additionalProperty'];
  throw new ContractError(source, first?.instancePath ?? '', `invalid OpenAPI 3.2: ${first?.message ?? 'schema violation'}${typeof extra === 'string' ? ` (${extra})` : ''}`);
}

/** A bundled 3.2 description dereferenced (a graph: shared and recursive schemas are the same objects). */
export async function dereference32(bundled: Obj): Promise<Obj> {
  return (await new $RefParser().dereference(structuredClone(bundled) as never, { resolve: { external: false } } as never)) as unknown as Obj;
}
