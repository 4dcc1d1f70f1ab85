import SwaggerParser from '@apidevtools/swagger-parser';
import { isAbsolute, resolve } from 'node:path';
import type {
  Contract,
  HttpMethod,
  JsonSchema,
  Operation,
  ParameterSpec,
  RequestBodySpec,
  ResponseSpec,
  ServiceSpec,
} from '../model.ts';
import { readFile } from 'node:fs/promises';
import { ContractError } from './errors.ts';
import { compactIndexKeys } from './index-keys.ts';
import { cachedDescription, rememberDescription, type DescriptionFiles } from './description-cache.ts';
import { isKnownValid, rememberValid, validityKey } from './validity-cache.ts';
import { openapi30ToJsonSchema } from './json-schema.ts';
import { authSchemesOf, linksOf, parameterExample, requestBodiesOf } from './request-shapes.ts';
import { followRefs, resolvePointer, validationDocument } from './validation-document.ts';
import { movePointer, sourcePointer, type PointerMoves, type PointerSource } from './source-pointers.ts';
import { bundle32, dereference32, fromSwagger2, parseRaw, readAsOf, validate32, versionOf, type ReadAs } from './versions.ts';
import { additionalOperations, isSequentialMedia, querystringParameters, tagGroup, unexercised32 } from './openapi32.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace', 'query'] as const;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 6901 escaping of one reference token. */
export function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** A description as loaded: what `describe` reads, what was read and how, and the way back to the user's pointers. */
export interface LoadedDescription extends ReadAs {
  /** Dereferenced (a graph that may be cyclic). */
  api: Obj;
  /** The same description with its internal `$ref`s kept (a finite tree even when schemas are recursive). */
  bundled: Obj;
  source: string;
  /** The version the document declares (`2.0`, `3.2.0`). */
  declared: string;
  /** Where what was read moved from the user's file (Swagger 2.0's conversion); none for a description read as it is. */
  pointerMoves?: PointerMoves;
  /** A pointer into `api`/`bundled` as the pointer into the user's own file (the identity for 3.x). */
  sourcePointer: (pointer: string) => string;
  /** What the description says that the engine reads but cannot exercise yet (OpenAPI 3.2). */
  warnings: string[];
}

/**
 * Loads, validates and dereferences one description (YAML or JSON, file path or http(s) URL): OpenAPI 3.0 and 3.1
 * as they are, OpenAPI 3.2 natively, Swagger 2.0 as its OpenAPI 3.0 conversion (versions.ts). A broken description
 * is a ContractError naming the file and the JSON pointer in it.
 */
export async function loadDescription(source: string): Promise<LoadedDescription> {
  const location = isUrl(source) || isAbsolute(source) ? source : resolve(source);
  let api: unknown;
  let bundled: unknown;
  let declared = '';
  let moves: PointerMoves | undefined;
  try {
    // An unchanged local description is read back as loaded before (spec/description-cache.ts): a 2.0 one as converted.
    const cached = isUrl(location) ? undefined : await cachedDescription(location);
    if (cached) {
      ({ bundled, api } = cached);
      declared = cached.declared ?? String(cached.bundled['openapi']);
      moves = cached.pointerMoves;
    } else {
      const parser = new SwaggerParser();
      // The user named this location: a description served on this machine or a private network is allowed
      // (the parser's default refuses loopback and private addresses).
      const options = { resolve: { http: { safeUrlResolver: false } } };
      try {
        bundled = await parser.bundle(location, options as never);
      } catch (error) {
        // A version the parser does not take: 3.2 is read here, any other is said in one line.
        if (!/Unsupported OpenAPI version|Unrecognized Swagger version|not a valid Openapi API definition|version number must be a string/i.test(String((error as Error)?.message))) throw error;
        const raw = await parseRaw(location, options);
        if (versionOf(raw, source) !== '3.2.x') throw error;
        bundled = await bundle32(location, raw as Obj, options);
      }
      const version = versionOf(bundled, source);
      declared = String((bundled as Obj)['openapi'] ?? (bundled as Obj)['swagger']);
      if (version === '2.0') {
        // The user's own document is validated as 2.0 (its errors name their pointers); then converted.
        await SwaggerParser.validate(structuredClone(bundled) as never);
        const converted = await fromSwagger2(bundled as Obj);
        moves = converted.moves;
        bundled = converted.converted;
        api = await validateOrDereference(bundled as Obj, undefined).catch((error: unknown) => {
          throw movedError(toContractError(source, error), moves);
        });
        const paths = parser.$refs.paths();
        const files = isUrl(location) || paths.some(isUrl) ? undefined : await readAll(paths);
        if (files && isObj(api)) rememberDescription(location, { bundled: bundled as Obj, api, declared, pointerMoves: moves }, files);
      } else if (version === '3.2.x') {
        await validate32(bundled as Obj, source);
        api = await dereference32(bundled as Obj);
      } else {
        const paths = parser.$refs.paths();
        // The key covers the description and every local file it refers to (the bundling parser read them all).
        const files = isUrl(location) || paths.some(isUrl) ? undefined : await readAll(paths);
        api = await validateOrDereference(bundled as Obj, files);
        if (files && isObj(api)) rememberDescription(location, { bundled: bundled as Obj, api }, files);
      }
    }
  } catch (error) {
    if (error instanceof ContractError) throw error;
    throw toContractError(source, error);
  }
  if (!isObj(api) || !isObj(bundled)) throw new ContractError(source, '', 'not an OpenAPI or Swagger description');
  const version = moves ? '2.0' : versionOf(bundled, source);
  // Kept for the whole run: its number-keyed objects (responses) as dictionaries, a tenth of the memory.
  // The dereferenced description shares most of its objects with the bundled one: each is visited once.
  compactIndexKeys(api, bundled);
  const pointerSource: PointerSource = moves ? { pointerMoves: moves } : {};
  return {
    api,
    bundled,
    source,
    version,
    readAs: readAsOf(version),
    declared,
    ...(moves ? { pointerMoves: moves } : {}),
    sourcePointer: (pointer: string) => sourcePointer(pointerSource, pointer),
    warnings: version === '3.2.x' ? unexercised32(bundled, source) : [],
  };
}

/** A problem found in the conversion, said at its place in the user's 2.0 document. */
function movedError(error: ContractError, moves: PointerMoves | undefined): ContractError {
  const detail = error.message.slice(error.message.indexOf(': ') + 2);
  return new ContractError(error.file, movePointer(moves, error.pointer), detail);
}

/**
 * Validation (the OpenAPI meta-schema and the spec rules) costs most of the start-up; a local description whose
 * files are byte for byte ones that passed before is only dereferenced. URLs (files undefined) are always validated.
 */
async function validateOrDereference(bundled: Obj, files: DescriptionFiles | undefined): Promise<unknown> {
  const known = files ? validityKey('openapi', ...[...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => `${f.path}\0${f.text}`)) : undefined;
  // Bundled: every reference is internal, so there is nothing outside the document to look for.
  const dereference = () => new SwaggerParser().dereference(structuredClone(bundled) as never, { resolve: { external: false } } as never);
  if (known && isKnownValid(known)) return dereference();
  const odd = oddComponentNames(bundled);
  const metadata = oddMetadataKeys(bundled);
  if (odd.length === 0 && metadata.length === 0) {
    const api = await SwaggerParser.validate(structuredClone(bundled) as never);
    if (known) rememberValid(known);
    return api;
  }
  // Component names outside OpenAPI's ^[a-zA-Z0-9.\-_]+$ (a generic type's `Page[Pet]`) and keys OpenAPI does not
  // allow in the descriptive objects (springdoc's `info.license.extensions`): the rest of the description is
  // validated with those names renamed (and every reference to them) and those keys left out, then loaded.
  const renamed = odd.length > 0 ? renamedComponents(bundled, odd) : bundled;
  await SwaggerParser.validate(withoutOddMetadata(renamed, metadata) as never);
  if (known) rememberValid(known);
  return dereference();
}

/** The OpenAPI rule every key of a components map must follow. */
const COMPONENT_NAME = /^[a-zA-Z0-9.\-_]+$/;

/** Components keys (`schemas/Page[Pet]`) that break OpenAPI's name rule, as [kind, key] pairs. */
export function oddComponentNames(description: Obj): Array<[string, string]> {
  const components = isObj(description['components']) ? description['components'] : {};
  const out: Array<[string, string]> = [];
  for (const [kind, map] of Object.entries(components)) {
    if (kind.startsWith('x-') || !isObj(map)) continue;
    for (const key of Object.keys(map)) if (!COMPONENT_NAME.test(key)) out.push([kind, key]);
  }
  return out;
}

/** The warning each odd component name gets when its description loads. */
export function oddComponentWarnings(description: Obj, source: string): string[] {
  return oddComponentNames(description).map(
    ([kind, key]) => `${source}: #/components/${kind}/${pointerToken(key)}: the name "${key}" breaks OpenAPI's rule for component names (^[a-zA-Z0-9.\\-_]+$); loaded as it is, references to it resolve`,
  );
}

/** The keys OpenAPI allows (besides `x-` extensions) in the objects that only describe the document. */
const METADATA_KEYS = {
  info: ['title', 'summary', 'description', 'termsOfService', 'contact', 'license', 'version'],
  contact: ['name', 'url', 'email'],
  license: ['name', 'identifier', 'url'],
  tag: ['name', 'description', 'externalDocs'],
  externalDocs: ['description', 'url'],
} as const;

/**
 * Keys OpenAPI does not allow in the objects that only describe the document (info, its contact and license, the
 * tags, external docs), as JSON pointers: what generators add there (springdoc's `info.license.extensions`). No
 * test reads them.
 */
export function oddMetadataKeys(description: Obj): string[] {
  const out: string[] = [];
  // OpenAPI 3.2 tags have a summary, a parent and a kind.
  const is32 = String(description['openapi']).startsWith('3.2.');
  const check = (node: unknown, kind: keyof typeof METADATA_KEYS, at: string) => {
    if (!isObj(node)) return;
    const allowed: readonly string[] = is32 && kind === 'tag' ? [...METADATA_KEYS.tag, 'summary', 'parent', 'kind'] : METADATA_KEYS[kind];
    for (const key of Object.keys(node)) if (!key.startsWith('x-') && !allowed.includes(key)) out.push(`${at}/${pointerToken(key)}`);
  };
  const info = description['info'];
  check(info, 'info', '/info');
  if (isObj(info)) {
    check(info['contact'], 'contact', '/info/contact');
    check(info['license'], 'license', '/info/license');
  }
  check(description['externalDocs'], 'externalDocs', '/externalDocs');
  const tags = description['tags'];
  if (Array.isArray(tags)) {
    tags.forEach((tag, i) => {
      check(tag, 'tag', `/tags/${i}`);
      if (isObj(tag)) check(tag['externalDocs'], 'externalDocs', `/tags/${i}/externalDocs`);
    });
  }
  return out;
}

/** The warning each key OpenAPI does not allow in the document's descriptive objects gets when its description loads. */
export function oddMetadataWarnings(description: Obj, source: string): string[] {
  return oddMetadataKeys(description).map((pointer) => `${source}: #${pointer}: a key OpenAPI does not allow there; left out (it only describes the document)`);
}

/** A copy of the description without those keys. */
function withoutOddMetadata(description: Obj, pointers: string[]): Obj {
  const copy = structuredClone(description);
  for (const pointer of pointers) {
    const tokens = pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const key = tokens.pop()!;
    let node: unknown = copy;
    for (const t of tokens) node = Array.isArray(node) ? node[Number(t)] : isObj(node) ? node[t] : undefined;
    if (isObj(node)) delete node[key];
  }
  return copy;
}

/** A copy of the description with the odd component keys renamed to valid unique names, references included. */
function renamedComponents(description: Obj, odd: Array<[string, string]>): Obj {
  const copy = structuredClone(description);
  const components = copy['components'] as Obj;
  const refs = new Map<string, string>();
  for (const [kind, key] of odd) {
    const map = components[kind] as Obj;
    let name = key.replace(/[^a-zA-Z0-9.\-_]/g, '_');
    while (name in map) name = `${name}_`;
    map[name] = map[key];
    delete map[key];
    refs.set(`#/components/${kind}/${pointerToken(key)}`, `#/components/${kind}/${name}`);
  }
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (isObj(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') {
          let ref = v;
          try {
            ref = decodeURIComponent(v);
          } catch {
            // not percent-encoded
          }
          const at = [...refs.keys()].find((from) => ref === from || ref.startsWith(`${from}/`));
          if (at !== undefined) node[k] = `${refs.get(at)}${ref.slice(at.length)}`;
        } else visit(v);
      }
    }
  };
  visit(copy);
  return copy;
}

async function readAll(files: string[]): Promise<DescriptionFiles> {
  return Promise.all(files.map(async (path) => ({ path, text: await readFile(path, 'utf8') })));
}

function toContractError(source: string, error: unknown): ContractError {
  const err = error as { message?: string; details?: Array<{ instancePath?: string; message?: string }>; code?: string };
  const detail = err.details?.[0];
  if (detail) {
    return new ContractError(source, detail.instancePath ?? '', `invalid OpenAPI: ${detail.message ?? 'schema violation'}`);
  }
  const message = String(err.message ?? error).split('\n')[0] ?? 'unreadable';
  const pointer = /#(\/[^\s"']*)/.exec(message)?.[1] ?? '';
  if (/ENOENT|no such file/i.test(message)) return new ContractError(source, '', 'file not found');
  // The bundling parser's words for a document that is empty or not an object (e.g. /dev/null).
  if (/is not a valid JSON Schema/i.test(message)) {
    return new ContractError(source, '', 'not an OpenAPI or Swagger description (the document is empty or not an object)');
  }
  return new ContractError(source, pointer, message.replace(/\s+/g, ' ').trim());
}

/**
 * Turns a dereferenced description into services and operations. With the bundled description, responses
 * also name their schema by reference into its validation document (what response validation compiles).
 */
export function describe(api: Obj, source: string, bundled?: Obj): { service: ServiceSpec; operations: Operation[] } {
  const openapi = String(api['openapi']);
  const is30 = openapi.startsWith('3.0.');
  const toSchema = (schema: unknown): JsonSchema => {
    const s: JsonSchema = isObj(schema) || typeof schema === 'boolean' ? (schema as JsonSchema) : {};
    return is30 ? openapi30ToJsonSchema(structuredClone(s)) : s;
  };
  const info = isObj(api['info']) ? api['info'] : {};
  const servers = Array.isArray(api['servers']) ? api['servers'].filter(isObj) : [];
  const serverTemplate = typeof servers[0]?.['url'] === 'string' ? (servers[0]['url'] as string) : '/';
  const serviceId =
    typeof api['x-service-id'] === 'string'
      ? api['x-service-id']
      : serverTemplate.replace(/\/+$/, '').split('/').pop() || String(info['title'] ?? 'service');
  const components = isObj(api['components']) ? api['components'] : {};
  const schemas = isObj(components['schemas'])
    ? Object.fromEntries(Object.entries(components['schemas']).map(([k, v]) => [k, toSchema(v)]))
    : {};
  const validation = bundled ? validationDocument(bundled, source) : undefined;
  const platform = info['x-platform'] ?? api['x-platform'];
  const service: ServiceSpec = {
    id: serviceId,
    file: source,
    title: String(info['title'] ?? ''),
    version: String(info['version'] ?? ''),
    openapi,
    serverTemplate,
    schemas,
    ...(validation ? { validationDocument: validation } : {}),
    ...(typeof platform === 'string' ? { platform } : {}),
  };

  const globalSecurity = Array.isArray(api['security']) ? api['security'] : [];
  const operations: Operation[] = [];
  const paths = isObj(api['paths']) ? api['paths'] : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isObj(pathItem)) continue;
    const pathParams = Array.isArray(pathItem['parameters']) ? pathItem['parameters'] : [];
    const pathPointer = `/paths/${pointerToken(path)}`;
    const found: Array<[string, unknown, string]> = [
      ...METHODS.map((m): [string, unknown, string] => [m, pathItem[m], `${pathPointer}/${m}`]),
      ...additionalOperations(pathItem, pathPointer),
    ];
    for (const [method, op, pointer] of found) {
      if (!isObj(op)) continue;
      const operationId = typeof op['operationId'] === 'string' ? op['operationId'] : `${method.toUpperCase()} ${path}`;
      const parameters = mergeParameters(pathParams, Array.isArray(op['parameters']) ? op['parameters'] : [], pointer, toSchema, pathPointer);
      const security = Array.isArray(op['security']) ? op['security'] : globalSecurity;
      const tags = Array.isArray(op['tags']) ? op['tags'] : [];
      // The body a request sends first: a JSON media type where one is declared, else the first other.
      const requestBodies = requestBodiesOf(op['requestBody'], `${pointer}/requestBody`, toSchema);
      operations.push({
        operationId,
        method: method.toUpperCase() as HttpMethod,
        path,
        group: tagGroup(api, tags) ?? groupOf(path, tags),
        service: serviceId,
        specFile: source,
        pointer,
        parameters,
        ...(requestBodies[0] ? { requestBody: requestBodies[0] } : {}),
        requestBodies,
        responses: responsesOf(op['responses'], `${pointer}/responses`, toSchema, validation),
        auth: authSchemesOf(security, api),
        links: linksOf(op['responses'], api),
        // `security: [{}, …]` lets a caller without credentials through: such an operation need refuse none.
        secured: security.some((req) => isObj(req) && Object.keys(req).length > 0) && !security.some((req) => isObj(req) && Object.keys(req).length === 0),
        credentialed: security.some((req) => isObj(req) && Object.keys(req).length > 0),
        extensions: Object.fromEntries(Object.entries(op).filter(([k]) => k.startsWith('x-'))),
        tags: tags.filter((t): t is string => typeof t === 'string'),
        ...scopesOf(security, api),
        ...((op['x-ownership'] ?? pathItem['x-ownership']) === 'per-identity' ? { ownership: 'per-identity' as const } : {}),
      });
    }
  }
  return { service, operations };
}

/**
 * The scopes each security requirement of OAuth2 or OpenID Connect schemes names (`[{ oauth: ['orders:write'] }]`):
 * none when a requirement lets a caller through without any (`{}`, or a scheme listed without scopes).
 */
function scopesOf(security: unknown[], api: Obj): { scopes?: string[][] } {
  const components = isObj(api['components']) ? api['components'] : {};
  const schemes = isObj(components['securitySchemes']) ? components['securitySchemes'] : {};
  const lists: string[][] = [];
  for (const requirement of security) {
    if (!isObj(requirement)) continue;
    const scoped = Object.entries(requirement).filter(([name]) => {
      const scheme = schemes[name];
      return isObj(scheme) && /^(oauth2|openidconnect)$/i.test(String(scheme['type'] ?? ''));
    });
    const names = scoped.flatMap(([, value]) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []));
    // A requirement that needs no scope: the operation needs none.
    if (names.length === 0) return {};
    lists.push([...new Set(names)]);
  }
  return lists.length > 0 ? { scopes: lists } : {};
}

function groupOf(path: string, tags: unknown[]): string {
  const first = path.split('/').filter(Boolean)[0];
  if (first && !first.startsWith('{')) return `/${first}`;
  return typeof tags[0] === 'string' ? tags[0] : '/';
}

function mergeParameters(
  pathLevel: unknown[],
  opLevel: unknown[],
  pointer: string,
  toSchema: (s: unknown) => JsonSchema,
  pathPointer: string,
): ParameterSpec[] {
  const byKey = new Map<string, ParameterSpec>();
  const add = (list: unknown[], base: string) =>
    list.forEach((p, i) => {
      if (!isObj(p) || typeof p['in'] !== 'string') return;
      // OpenAPI 3.2: the whole query string as one form: its properties are the query parameters it stands for.
      if (p['in'] === 'querystring') {
        for (const q of querystringParameters(p, `${base}/parameters/${i}`) ?? []) {
          byKey.set(`query:${q.name}`, { name: q.name, in: 'query', required: q.required, schema: toSchema(q.schema), pointer: q.pointer });
        }
        return;
      }
      if (typeof p['name'] !== 'string') return;
      const location = p['in'] as ParameterSpec['in'];
      // OpenAPI: a parameter has `schema` or `content` (a map with one media type).
      const media = p['schema'] === undefined && isObj(p['content']) ? jsonMedia(p['content']) : undefined;
      const schema = toSchema(media ? media[1]['schema'] : p['schema']);
      const example = parameterExample(media ? { ...media[1], ...p } : p, schema);
      byKey.set(`${location}:${p['name']}`, {
        name: p['name'],
        in: location,
        required: location === 'path' || p['required'] === true,
        schema,
        pointer: `${base}/parameters/${i}`,
        ...(example !== undefined ? { example } : {}),
        ...(location === 'query' && p['allowEmptyValue'] === true ? { allowEmptyValue: true as const } : {}),
        ...(media ? { contentType: media[0] } : {}),
        ...(location === 'query' ? joinedOf(p) : {}),
      });
    });
  add(pathLevel, pathPointer);
  add(opLevel, pointer);
  return [...byKey.values()];
}

/** How a query parameter's array is written (OpenAPI's style and explode; form explodes by default, the others not). */
function joinedOf(p: Obj): Pick<ParameterSpec, 'joined'> {
  // Swagger 2.0's `collectionFormat: tsv`, which OpenAPI 3 has no style for (kept by the conversion as is).
  if (p['x-collectionFormat'] === 'tsv' && p['style'] === undefined) return { joined: '\t' };
  const style = typeof p['style'] === 'string' ? p['style'] : 'form';
  const explode = typeof p['explode'] === 'boolean' ? p['explode'] : style === 'form';
  if (explode) return {};
  const joined = style === 'form' ? ',' : style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : undefined;
  return joined ? { joined } : {};
}

function jsonMedia(content: Obj): [string, Obj] | undefined {
  const entries = Object.entries(content).filter((e): e is [string, Obj] => isObj(e[1]));
  return entries.find(([type]) => /^application\/(.+\+)?json/i.test(type)) ?? entries[0];
}

function responsesOf(
  responses: unknown,
  pointer: string,
  toSchema: (s: unknown) => JsonSchema,
  validation?: { id: string; document: Obj },
): ResponseSpec[] {
  if (!isObj(responses)) return [];
  return Object.entries(responses)
    .filter((e): e is [string, Obj] => isObj(e[1]))
    .map(([status, response]) => {
      const content = isObj(response['content']) ? response['content'] : {};
      const spec: ResponseSpec = {
        status: status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase(),
        contentTypes: Object.keys(content),
        pointer: `${pointer}/${pointerToken(status)}`,
      };
      const schemaOf = (type: string, media: Obj): Pick<ResponseSpec, 'schema' | 'schemaRef'> => {
        if (media['schema'] === undefined) return {};
        const ref = validation && schemaPointer(validation.document, spec.pointer, type);
        return { schema: toSchema(media['schema']), ...(ref ? { schemaRef: `${validation.id}#${ref.split('/').map(encodeURIComponent).join('/')}` } : {}) };
      };
      // The JSON media type's schema (what most checks read), and each declared media type with its own.
      const entries = Object.entries(content).filter((e): e is [string, Obj] => isObj(e[1]));
      const json = entries.find((e) => isJsonLike(e[0])) ?? entries.find((e) => /^(\*\/\*|application\/\*)(\s*;.*)?$/.test(e[0].trim()));
      if (json) Object.assign(spec, schemaOf(json[0], json[1]));
      // A sequence (OpenAPI 3.2: JSON Lines, NDJSON, JSON text sequences, server-sent events): each item by `itemSchema`.
      const itemOf = (type: string, m: Obj) => (m['itemSchema'] !== undefined && isSequentialMedia(type) ? { itemSchema: toSchema(m['itemSchema']) } : {});
      const media = entries.map(([type, m]) => ({ type, ...(json?.[0] === type ? pick(spec) : schemaOf(type, m)), ...itemOf(type, m) }));
      if (media.some((m) => m.schema !== undefined || 'itemSchema' in m) && (media.length > 1 || !json)) spec.media = media;
      const headers = headersOf(response['headers'], spec.pointer, toSchema);
      if (headers.length > 0) spec.headers = headers;
      return spec;
    });
}

/** application/json and the structured-syntax `+json` types (RFC 6839). */
function isJsonLike(type: string): boolean {
  return /^application\/(.+\+)?json(\s*;.*)?$/i.test(type);
}

function pick(spec: ResponseSpec): Pick<ResponseSpec, 'schema' | 'schemaRef'> {
  return { ...(spec.schema !== undefined ? { schema: spec.schema } : {}), ...(spec.schemaRef !== undefined ? { schemaRef: spec.schemaRef } : {}) };
}

/** The headers a response declares (Content-Type aside: OpenAPI says it is ignored there). */
function headersOf(headers: unknown, pointer: string, toSchema: (s: unknown) => JsonSchema): NonNullable<ResponseSpec['headers']> {
  if (!isObj(headers)) return [];
  return Object.entries(headers)
    .filter((e): e is [string, Obj] => isObj(e[1]) && e[0].toLowerCase() !== 'content-type')
    .map(([name, header]) => {
      const media = header['schema'] === undefined && isObj(header['content']) ? jsonMedia(header['content']) : undefined;
      return {
        name,
        required: header['required'] === true,
        schema: toSchema(media ? media[1]['schema'] : header['schema']),
        pointer: `${pointer}/headers/${pointerToken(name)}`,
        ...(media ? { contentType: media[0] } : {}),
      };
    });
}

/** Where the response's media schema sits in the bundled document, through Response Object `$ref`s. */
function schemaPointer(doc: Obj, responsePointer: string, mediaType: string): string | undefined {
  const response = followRefs(doc, responsePointer);
  if (response === undefined) return undefined;
  const pointer = `${response}/content/${pointerToken(mediaType)}/schema`;
  return resolvePointer(doc, pointer) === undefined ? undefined : pointer;
}

/**
 * Loads several descriptions into one contract. Each description is one service (bound later to its own base
 * URL). Operation ids must be unique across the contract.
 */
export async function loadContract(sources: string[]): Promise<Contract> {
  const loaded = await Promise.all(sources.map((s) => loadDescription(s)));
  const contract: Contract = { services: [], operations: [] };
  const seen = new Map<string, string>();
  for (const description of loaded) {
    const { api, bundled, source } = description;
    const { service, operations } = describe(api, source, bundled);
    service.read = { version: description.version, readAs: description.readAs, declared: description.declared };
    if (description.pointerMoves) service.pointerMoves = description.pointerMoves;
    if (contract.services.some((s) => s.id === service.id)) {
      throw new ContractError(source, '', `service id "${service.id}" is also used by another description`);
    }
    const warnings = [...oddComponentWarnings(bundled, source), ...oddMetadataWarnings(bundled, source), ...description.warnings];
    contract.services.push(warnings.length > 0 ? { ...service, warnings } : service);
    for (const op of operations) {
      const other = seen.get(op.operationId);
      if (other) throw new ContractError(source, description.sourcePointer(op.pointer), `operationId "${op.operationId}" is also used in ${other}`);
      seen.set(op.operationId, source);
      contract.operations.push(op);
    }
  }
  return contract;
}

/** Each media type a response declares, with its schema (the JSON one's where the response lists no others). */
export function mediaEntries(spec: ResponseSpec): NonNullable<ResponseSpec['media']> {
  return spec.media ?? spec.contentTypes.map((type) => ({ type, ...pick(spec) }));
}

/** Finds the documented response for a status: exact code, then range (4XX), then default. */
export function responseFor(op: Operation, status: number): ResponseSpec | undefined {
  const exact = op.responses.find((r) => r.status === String(status));
  if (exact) return exact;
  const range = op.responses.find((r) => r.status === `${Math.floor(status / 100)}XX`);
  return range ?? op.responses.find((r) => r.status === 'default');
}
