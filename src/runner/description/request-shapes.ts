import type { AuthScheme, JsonSchema, OperationLink, RequestBodySpec } from '../model.ts';

/**
 * What an operation says about the requests a client sends, beyond parameters: the security schemes it
 * accepts (resolved from components.securitySchemes), every request body media type it declares, and the
 * OpenAPI links of its responses. Pure functions over the dereferenced description.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The schemes of the first security requirement the tool can satisfy (bearer, basic, apiKey in header, query
 * or cookie); an empty list when the operation needs none or only schemes the tool cannot send.
 */
export function authSchemesOf(security: unknown[], api: Obj): AuthScheme[] {
  const components = isObj(api['components']) ? api['components'] : {};
  const schemes = isObj(components['securitySchemes']) ? components['securitySchemes'] : {};
  const candidates: AuthScheme[][] = [];
  for (const requirement of security) {
    if (!isObj(requirement) || Object.keys(requirement).length === 0) continue;
    const resolved = Object.keys(requirement).map((name) => toScheme(name, schemes[name]));
    if (resolved.every((s): s is AuthScheme => s !== undefined)) candidates.push(resolved);
  }
  return candidates[0] ?? [];
}

function toScheme(name: string, raw: unknown): AuthScheme | undefined {
  if (!isObj(raw)) return undefined;
  const type = String(raw['type'] ?? '').toLowerCase();
  if (type === 'http') {
    const scheme = String(raw['scheme'] ?? '').toLowerCase();
    if (scheme === 'basic') return { name, kind: 'basic' };
    if (scheme === 'bearer') return { name, kind: 'bearer' };
    return undefined;
  }
  if (type === 'apikey') {
    const location = raw['in'];
    if ((location === 'header' || location === 'query' || location === 'cookie') && typeof raw['name'] === 'string') {
      const prefix = location === 'header' ? valuePrefix(raw) : undefined;
      return { name, kind: 'apiKey', in: location, parameter: raw['name'], ...(prefix ? { prefix } : {}) };
    }
    return undefined;
  }
  // oauth2 and openIdConnect end in a bearer token in the Authorization header.
  if (type === 'oauth2' || type === 'openidconnect') return { name, kind: 'bearer' };
  return undefined;
}

/** A word, a space and a token's likeness: a JWT's three parts, <token>, {token}, xxxx... or $TOKEN. */
const SHOWN_VALUE = /(?:^|[\s'"`:(])([A-Z][A-Za-z-]{1,19}) +(?:[\w-]+\.[\w-]+\.[\w-]+|<[^>\s]+>|\{[^}\s]+\}|x{3,}\S*|\$[A-Z_]+)/;

/**
 * The word an apiKey header's value starts with, as its description or example shows it ("Token
 * xxxxxx.yyyyyyy.zzzzzz", `Bearer <jwt>`); undefined when neither shows one.
 */
export function valuePrefix(raw: Record<string, unknown>): string | undefined {
  for (const key of ['x-example', 'example', 'description']) {
    const text = raw[key];
    if (typeof text !== 'string') continue;
    const m = SHOWN_VALUE.exec(text);
    if (m && !/^(The|A|An|This|Your|Use|Pass)$/.test(m[1]!)) return m[1];
  }
  return undefined;
}

/**
 * The media types a declared one stands for when sent: itself, or for a range the real types a client sends in
 * it (`*\/*`: JSON, text and bytes; `text/*`: text/plain; `application/*`: JSON; `type/*`: one of the type). A
 * range is never sent as a Content-Type.
 */
export function concreteTypes(declared: string): string[] {
  const [type = '', sub = ''] = (declared.split(';')[0] ?? '').trim().toLowerCase().split('/');
  if (type === '*') return ['application/json', 'text/plain', 'application/octet-stream'];
  if (sub === '*') return [type === 'application' ? 'application/json' : type === 'text' ? 'text/plain' : type === 'multipart' ? 'multipart/form-data' : `${type}/octet-stream`];
  if (sub.startsWith('*+')) return [`application/${sub.slice(2)}`];
  return [declared];
}

/** Every media type of a request body (ranges as the types they stand for), JSON first, then form-urlencoded, multipart, and any other. */
export function requestBodiesOf(body: unknown, pointer: string, toSchema: (s: unknown) => JsonSchema): RequestBodySpec[] {
  if (!isObj(body) || !isObj(body['content'])) return [];
  const rank = (type: string) =>
    /^application\/(.+\+)?json/i.test(type) ? 0 : /^application\/x-www-form-urlencoded/i.test(type) ? 1 : /^multipart\/form-data/i.test(type) ? 2 : 3;
  const seen = new Set<string>();
  return Object.entries(body['content'])
    .filter((e): e is [string, Obj] => isObj(e[1]))
    .flatMap(([declared, media]) => concreteTypes(declared).map((type) => ({ type, declared, media })))
    .filter(({ type }) => !seen.has(type.toLowerCase()) && Boolean(seen.add(type.toLowerCase())))
    .sort((a, b) => rank(a.type) - rank(b.type))
    .map(({ type, declared, media }) => ({
      required: body['required'] === true,
      ...(body['x-required'] === 'not shown' ? { requiredNotShown: true as const } : {}),
      contentType: type,
      ...(type !== declared ? { range: declared } : {}),
      schema: toSchema(media['schema']),
      pointer: `${pointer}/content/${pointerToken(declared)}/schema`,
      ...mediaExamples(media),
    }));
}

/** An Example Object's value: `value`, or OpenAPI 3.2's `dataValue` (the value as data, before serialization). */
function exampleValue(e: unknown): unknown[] {
  return isObj(e) && 'value' in e ? [e['value']] : isObj(e) && 'dataValue' in e ? [e['dataValue']] : [];
}

/** The examples a media type gives of its body: `example`, then the value of each of `examples`. */
function mediaExamples(media: Obj): { examples?: unknown[] } {
  const named = isObj(media['examples']) ? Object.values(media['examples']).flatMap(exampleValue) : [];
  const examples = [...('example' in media ? [media['example']] : []), ...named];
  return examples.length > 0 ? { examples } : {};
}

/**
 * The links of an operation's responses that name a target operation (operationId, or operationRef to a local
 * path item) and say where the target's parameters come from ("$response.body#/id").
 */
export function linksOf(responses: unknown, api: Obj): OperationLink[] {
  if (!isObj(responses)) return [];
  const links: OperationLink[] = [];
  for (const [status, response] of Object.entries(responses)) {
    if (!isObj(response) || !isObj(response['links'])) continue;
    for (const [name, link] of Object.entries(response['links'])) {
      if (!isObj(link)) continue;
      const target = linkTarget(link, api);
      if (!target) continue;
      const parameters: Record<string, string> = {};
      if (isObj(link['parameters'])) {
        for (const [param, expression] of Object.entries(link['parameters'])) {
          if (typeof expression === 'string') parameters[param.replace(/^(path|query|header|cookie)\./, '')] = expression;
        }
      }
      links.push({ name, status, ...target, parameters });
    }
  }
  return links;
}

function linkTarget(link: Obj, api: Obj): { operationId?: string; method?: string; path?: string } | undefined {
  if (typeof link['operationId'] === 'string') return { operationId: link['operationId'] };
  const ref = link['operationRef'];
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/paths\/([^/]+)\/([a-z]+)$/.exec(ref);
  if (!match?.[1] || !match[2]) return undefined;
  const path = match[1].replace(/~1/g, '/').replace(/~0/g, '~');
  const paths = isObj(api['paths']) ? api['paths'] : {};
  return isObj(paths[path]) ? { path, method: match[2].toUpperCase() } : undefined;
}

/** The example value of a parameter: `example`, else the first of `examples`, else the schema's example. */
export function parameterExample(raw: Obj, schema: JsonSchema): unknown {
  if ('example' in raw) return raw['example'];
  if (isObj(raw['examples'])) {
    const first = Object.values(raw['examples']).map(exampleValue).find((v) => v.length > 0);
    if (first) return first[0];
  }
  if (typeof schema === 'object') {
    if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
    if ('example' in schema) return schema['example'];
  }
  return undefined;
}
