/**
 * Where a place in the description the engine reads is in the file the user gave. A 3.x description is read as it
 * is: every JSON pointer is the user's own. A Swagger 2.0 description is read as its OpenAPI 3.0 conversion; a
 * pointer into the conversion is taken back to the 2.0 document by the longest prefix of it that the conversion
 * moved (`/components/schemas/Pet/properties/name` → `/definitions/Pet/properties/name`; a body parameter's
 * `/paths/~1pets/post/requestBody/content/application~1json/schema` → `/paths/~1pets/post/parameters/1/schema`),
 * the rest of the pointer kept as it is. The moves are plain data (`PointerMoves`): they travel with a service's
 * description wherever the contract goes.
 */

import type { Finding } from '../model.ts';

type Obj = Record<string, unknown>;

/** Converted prefix → the user's prefix (JSON pointers, `''` the document). */
export type PointerMoves = Record<string, string>;

/** What the mapping needs of a loaded description: its moves (none for a description read as it is). */
export interface PointerSource {
  pointerMoves?: PointerMoves;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const token = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

/** The pointer in the user's own file that a pointer into the description as read stands for. */
export function sourcePointer(loaded: PointerSource, pointer: string): string {
  return movePointer(loaded.pointerMoves, pointer);
}

/** The pointer moved by the longest of the moves that is a prefix of it (token by token); itself without one. */
export function movePointer(moves: PointerMoves | undefined, pointer: string): string {
  if (!moves) return pointer;
  let prefix = pointer;
  for (;;) {
    const to = moves[prefix];
    if (to !== undefined) return `${to}${pointer.slice(prefix.length)}`;
    const cut = prefix.lastIndexOf('/');
    if (cut < 0) return pointer;
    prefix = prefix.slice(0, cut);
  }
}

/** A `file#pointer` location with its pointer in the user's terms. */
export function movedLocation(moves: PointerMoves | undefined, location: string): string {
  const at = location.indexOf('#');
  if (!moves || at < 0) return location;
  return `${location.slice(0, at)}#${movePointer(moves, location.slice(at + 1))}`;
}

/** The parameter an entry of a 2.0 parameter list is, through a `#/parameters/...` reference, and where it is. */
function resolved(doc: Obj, entry: unknown, at: string): { param: Obj; at: string } | undefined {
  if (!isObj(entry)) return undefined;
  const ref = entry['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/parameters/')) {
    const name = ref.slice('#/parameters/'.length).replace(/~1/g, '/').replace(/~0/g, '~');
    const shared = isObj(doc['parameters']) ? doc['parameters'][name] : undefined;
    return isObj(shared) ? { param: shared, at: `/parameters/${token(name)}` } : undefined;
  }
  return { param: entry, at };
}

/**
 * The moves from swagger2openapi's OpenAPI 3.0 conversion back to the Swagger 2.0 document it was made from: the
 * components (`definitions`, `parameters`, `responses`, `securityDefinitions`), each operation's parameters (body
 * and formData ones leave the list: the indices of the others shift) and request body, each response's schema,
 * media types (`produces`/`consumes`) and headers, and the server (`host`, `basePath`).
 */
export function swagger2Moves(source: Obj, converted: Obj): PointerMoves {
  const moves: PointerMoves = {};
  moves['/components/schemas'] = '/definitions';
  moves['/components/securitySchemes'] = '/securityDefinitions';
  if ('host' in source || 'basePath' in source || 'schemes' in source) moves['/servers'] = 'host' in source ? '/host' : 'basePath' in source ? '/basePath' : '/schemes';
  const components = isObj(converted['components']) ? converted['components'] : {};
  for (const name of Object.keys(isObj(components['parameters']) ? components['parameters'] : {})) {
    moves[`/components/parameters/${token(name)}`] = `/parameters/${token(name)}`;
    moves[`/components/parameters/${token(name)}/schema`] = `/parameters/${token(name)}`;
  }
  for (const [name, body] of Object.entries(isObj(components['requestBodies']) ? components['requestBodies'] : {})) {
    moves[`/components/requestBodies/${token(name)}`] = `/parameters/${token(name)}`;
    for (const type of Object.keys(isObj(body) && isObj(body['content']) ? body['content'] : {})) {
      moves[`/components/requestBodies/${token(name)}/content/${token(type)}/schema`] = `/parameters/${token(name)}/schema`;
    }
  }
  for (const [name, response] of Object.entries(isObj(components['responses']) ? components['responses'] : {})) {
    responseMoves(moves, `/components/responses/${token(name)}`, `/responses/${token(name)}`, response, Array.isArray(source['produces']) ? '/produces' : undefined);
  }
  const sourcePaths = isObj(source['paths']) ? source['paths'] : {};
  const paths = isObj(converted['paths']) ? converted['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    const from = sourcePaths[path];
    if (!isObj(item) || !isObj(from)) continue;
    const at = `/paths/${token(path)}`;
    const shared = Array.isArray(from['parameters']) ? from['parameters'] : [];
    parameterMoves(source, moves, `${at}/parameters`, shared, `${at}/parameters`);
    for (const [method, op] of Object.entries(item)) {
      const original = from[method];
      if (!isObj(op) || !isObj(original) || method === 'parameters') continue;
      const opAt = `${at}/${token(method)}`;
      const own = Array.isArray(original['parameters']) ? original['parameters'] : [];
      parameterMoves(source, moves, `${opAt}/parameters`, own, `${opAt}/parameters`);
      bodyMoves(source, moves, opAt, op, [
        ...own.map((p, i) => resolved(source, p, `${opAt}/parameters/${i}`)),
        ...shared.map((p, i) => resolved(source, p, `${at}/parameters/${i}`)),
      ], Array.isArray(original['consumes']) ? `${opAt}/consumes` : Array.isArray(source['consumes']) ? '/consumes' : undefined);
      const produces = Array.isArray(original['produces']) ? `${opAt}/produces` : Array.isArray(source['produces']) ? '/produces' : undefined;
      for (const [status, response] of Object.entries(isObj(op['responses']) ? op['responses'] : {})) {
        responseMoves(moves, `${opAt}/responses/${token(status)}`, `${opAt}/responses/${token(status)}`, response, produces);
      }
    }
  }
  return moves;
}

/** The parameters still in the list after conversion (neither body nor formData), each to its place in the 2.0 list. */
function parameterMoves(source: Obj, moves: PointerMoves, convertedAt: string, list: unknown[], sourceAt: string): void {
  let index = 0;
  list.forEach((entry, i) => {
    const found = resolved(source, entry, `${sourceAt}/${i}`);
    if (!found || found.param['in'] === 'body' || found.param['in'] === 'formData') return;
    moves[`${convertedAt}/${index}`] = `${sourceAt}/${i}`;
    // A 2.0 parameter carries its schema keywords itself.
    moves[`${convertedAt}/${index}/schema`] = `${sourceAt}/${i}`;
    index++;
  });
}

/** The request body: the body parameter (its schema), or each formData parameter as a property of the form. */
function bodyMoves(source: Obj, moves: PointerMoves, opAt: string, op: Obj, params: Array<{ param: Obj; at: string } | undefined>, consumes: string | undefined): void {
  const requestBody = op['requestBody'];
  if (!isObj(requestBody)) return;
  const body = params.find((p) => p?.param['in'] === 'body');
  const form = params.filter((p): p is { param: Obj; at: string } => p?.param['in'] === 'formData');
  const first = body ?? form[0];
  if (!first) return;
  moves[`${opAt}/requestBody`] = first.at;
  if (consumes) moves[`${opAt}/requestBody/content`] = consumes;
  const content = isObj(requestBody['content']) ? requestBody['content'] : {};
  for (const type of Object.keys(content)) {
    const schemaAt = `${opAt}/requestBody/content/${token(type)}/schema`;
    if (body) {
      moves[schemaAt] = `${body.at}/schema`;
      continue;
    }
    moves[schemaAt] = first.at;
    for (const p of form) moves[`${schemaAt}/properties/${token(String(p.param['name']))}`] = p.at;
  }
}

/** A response: its media types' schemas to its one `schema`, its content to `produces`, its headers' schemas to the headers. */
function responseMoves(moves: PointerMoves, convertedAt: string, sourceAt: string, response: unknown, produces: string | undefined): void {
  if (!isObj(response) || typeof response['$ref'] === 'string') return;
  moves[convertedAt] = sourceAt;
  const content = isObj(response['content']) ? response['content'] : {};
  if (Object.keys(content).length > 0) moves[`${convertedAt}/content`] = produces ?? `${sourceAt}/schema`;
  for (const type of Object.keys(content)) {
    moves[`${convertedAt}/content/${token(type)}`] = `${sourceAt}/schema`;
    moves[`${convertedAt}/content/${token(type)}/schema`] = `${sourceAt}/schema`;
  }
  for (const name of Object.keys(isObj(response['headers']) ? response['headers'] : {})) {
    moves[`${convertedAt}/headers/${token(name)}/schema`] = `${sourceAt}/headers/${token(name)}`;
  }
}

/** Each description file's moves, by the file name findings give (`Finding.specLocation`'s part before `#`). */
export function movesByFile(services: ReadonlyArray<{ file: string; pointerMoves?: PointerMoves }>): Map<string, PointerMoves> {
  return new Map(services.filter((s) => s.pointerMoves).map((s) => [s.file, s.pointerMoves!]));
}

/**
 * A case's findings with their contract locations in the user's own file: what every report shows of them. The
 * case itself when nothing moved (every 3.x description).
 */
export function findingsInSource<T extends { findings: Finding[] }>(result: T, moves: ReadonlyMap<string, PointerMoves>): T {
  if (moves.size === 0 || result.findings.length === 0) return result;
  let changed = false;
  const findings = result.findings.map((f) => {
    const at = f.specLocation?.indexOf('#') ?? -1;
    const fileMoves = at >= 0 ? moves.get(f.specLocation!.slice(0, at)) : undefined;
    if (!fileMoves) return f;
    const specLocation = movedLocation(fileMoves, f.specLocation!);
    if (specLocation === f.specLocation) return f;
    changed = true;
    return { ...f, specLocation };
  });
  return changed ? { ...result, findings } : result;
}
