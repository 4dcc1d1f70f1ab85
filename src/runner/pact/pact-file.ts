/**
 * Pact files (specification 1.x to 4.0) read into one normalised shape. Only what verification and the
 * contract check need is kept: names, each HTTP interaction's description, provider states, request and
 * expected response. Message interactions are listed apart (they are not HTTP and are not verified here).
 */
import { PactInputError } from './errors.ts';

export interface PactProviderState {
  name: string;
  params: Record<string, unknown>;
}

export interface PactRequest {
  method: string;
  /** Path as the consumer's example (provider-state expressions already replaced by their example values). */
  path: string;
  /** Query parameters, each with all its values. */
  query: Record<string, string[]>;
  /** Header names lower-cased, each with all its values. */
  headers: Record<string, string[]>;
  /** The body when there is one; JSON bodies parsed. */
  body?: PactBody;
}

export interface PactResponse {
  status: number;
  headers: Record<string, string[]>;
  body?: PactBody;
}

export interface PactBody {
  contentType?: string;
  /** Parsed JSON, or the text when the body is not JSON. */
  content: unknown;
  json: boolean;
}

export interface PactHttpInteraction {
  /** Index in the file's `interactions` array (for locations: `<file>#/interactions/<index>`). */
  index: number;
  description: string;
  providerStates: PactProviderState[];
  request: PactRequest;
  response: PactResponse;
  /** Request/response matching rules, kept verbatim (the check reads which paths have matchers). */
  matchingRules: { request?: unknown; response?: unknown };
  pending: boolean;
}

export interface PactMessageInteraction {
  index: number;
  description: string;
  type: string;
}

export interface PactDocument {
  consumer: string;
  provider: string;
  specification: string;
  interactions: PactHttpInteraction[];
  /** Non-HTTP interactions (messages): not verified, reported as skipped. */
  messages: PactMessageInteraction[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nameOf(v: unknown): string | undefined {
  return isObj(v) && typeof v['name'] === 'string' && v['name'] !== '' ? v['name'] : undefined;
}

/** Parses the text of a pact file. `where` names the file or URL in error messages. */
export function parsePact(text: string, where: string): PactDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PactInputError(`${where}: not valid JSON (${(error as Error).message.split('\n')[0] ?? ''})`);
  }
  return toPactDocument(raw, where);
}

export function toPactDocument(raw: unknown, where: string): PactDocument {
  if (!isObj(raw)) throw new PactInputError(`${where}: not a pact file (the document is not a JSON object)`);
  const consumer = nameOf(raw['consumer']);
  const provider = nameOf(raw['provider']);
  if (!consumer || !provider) {
    throw new PactInputError(`${where}: not a pact file (consumer.name and provider.name are required)`);
  }
  const list = raw['interactions'] ?? raw['messages'];
  if (!Array.isArray(list)) throw new PactInputError(`${where}: not a pact file (no "interactions" array)`);
  const specification = specificationOf(raw);
  const doc: PactDocument = { consumer, provider, specification, interactions: [], messages: [] };
  const v4 = specification.startsWith('4');
  list.forEach((item, index) => {
    if (!isObj(item)) throw new PactInputError(`${where}#/interactions/${index}: not an object`);
    const description = typeof item['description'] === 'string' ? item['description'] : '';
    const type = typeof item['type'] === 'string' ? item['type'] : 'Synchronous/HTTP';
    if (!isObj(item['request']) || !isObj(item['response']) || (v4 && type !== 'Synchronous/HTTP')) {
      doc.messages.push({ index, description, type: raw['messages'] !== undefined ? 'Message' : type });
      return;
    }
    doc.interactions.push(toInteraction(item, index, v4, `${where}#/interactions/${index}`));
  });
  return doc;
}

function specificationOf(raw: Obj): string {
  const meta = isObj(raw['metadata']) ? raw['metadata'] : {};
  for (const key of ['pactSpecification', 'pact-specification']) {
    const spec = meta[key];
    if (isObj(spec) && typeof spec['version'] === 'string') return spec['version'];
  }
  if (typeof meta['pactSpecificationVersion'] === 'string') return meta['pactSpecificationVersion'];
  return '2.0.0';
}

function toInteraction(item: Obj, index: number, v4: boolean, where: string): PactHttpInteraction {
  const req = item['request'] as Obj;
  const res = item['response'] as Obj;
  const method = typeof req['method'] === 'string' ? req['method'].toUpperCase() : '';
  const path = typeof req['path'] === 'string' ? req['path'] : '';
  if (method === '' || path === '') throw new PactInputError(`${where}: the request needs a method and a path`);
  const status = typeof res['status'] === 'number' ? res['status'] : Number(res['status'] ?? 200);
  if (!Number.isInteger(status)) throw new PactInputError(`${where}: the response status is not a number`);
  const reqHeaders = headersOf(req['headers']);
  const resHeaders = headersOf(res['headers']);
  const request: PactRequest = { method, path, query: queryOf(req['query']), headers: reqHeaders };
  const reqBody = bodyOf(req, v4, reqHeaders);
  if (reqBody) request.body = reqBody;
  const response: PactResponse = { status, headers: resHeaders };
  const resBody = bodyOf(res, v4, resHeaders);
  if (resBody) response.body = resBody;
  return {
    index,
    description: typeof item['description'] === 'string' ? item['description'] : '',
    providerStates: statesOf(item),
    request,
    response,
    matchingRules: { request: req['matchingRules'], response: res['matchingRules'] },
    pending: item['pending'] === true,
  };
}

function statesOf(item: Obj): PactProviderState[] {
  const states = item['providerStates'];
  if (Array.isArray(states)) {
    return states.filter(isObj).flatMap((s) => {
      const name = typeof s['name'] === 'string' ? s['name'] : typeof s['description'] === 'string' ? s['description'] : '';
      return name === '' ? [] : [{ name, params: isObj(s['params']) ? s['params'] : {} }];
    });
  }
  const single = item['providerState'] ?? item['provider_state'];
  return typeof single === 'string' && single !== '' ? [{ name: single, params: {} }] : [];
}

function headersOf(raw: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isObj(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    (out[name.toLowerCase()] ??= []).push(...values);
  }
  return out;
}

function queryOf(raw: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (typeof raw === 'string') {
    for (const [k, v] of new URLSearchParams(raw)) (out[k] ??= []).push(v);
  } else if (isObj(raw)) {
    for (const [k, v] of Object.entries(raw)) out[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  }
  return out;
}

function isJsonType(contentType: string | undefined): boolean {
  return contentType === undefined || /^application\/(.+\+)?json\b/i.test(contentType.trim());
}

function bodyOf(part: Obj, v4: boolean, headers: Record<string, string[]>): PactBody | undefined {
  if (!('body' in part) || part['body'] === undefined) return undefined;
  const headerType = headers['content-type']?.[0];
  if (v4) {
    const body = part['body'];
    if (!isObj(body) || !('content' in body)) return undefined;
    const contentType = typeof body['contentType'] === 'string' ? body['contentType'] : headerType;
    const encoded = body['encoded'];
    let content = body['content'];
    if (typeof content === 'string' && encoded === 'base64') content = Buffer.from(content, 'base64').toString('utf8');
    if (typeof content === 'string' && (encoded === 'json' || encoded === 'base64') && isJsonType(contentType)) {
      try {
        content = JSON.parse(content);
      } catch {
        return { ...(contentType ? { contentType } : {}), content, json: false };
      }
    }
    return { ...(contentType ? { contentType } : {}), content, json: isJsonType(contentType) };
  }
  const content = part['body'];
  // Specification 1-3: the body is the JSON value itself unless a non-JSON content type says otherwise.
  const json = isJsonType(headerType);
  return { ...(headerType ? { contentType: headerType } : {}), content, json };
}

/** "GET /orders/{id}" style label of an interaction's request. */
export function requestLabel(interaction: PactHttpInteraction): string {
  return `${interaction.request.method} ${interaction.request.path}`;
}
