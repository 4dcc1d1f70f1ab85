/**
 * Pact specification 4 → 3, for verifiers that read only V3 pact files (older JVM, Ruby or .NET verifiers).
 *
 * What changes between the two for HTTP interactions:
 *  - V4 interactions carry `type`, `key`, `pending`, `comments`, `transport`, `interactionMarkup`; V3 has none.
 *  - V4 bodies are `{content, contentType, encoded}`; V3 bodies are the content itself (JSON as JSON,
 *    anything else as a string), its type told by the Content-Type header.
 *  - V4 header values are arrays; V3 header values are strings (several values joined with ", ").
 *  - Matching rules (`path`, `query`, `header`, `body` categories) and generators (`ProviderState` with its
 *    expression included) have the same shape in both, so `fromProviderState` injection survives.
 * A V4 pact with message or synchronous-message interactions has no V3 HTTP equivalent: refused.
 */
import { PactInputError } from './errors.ts';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const V4_ONLY = ['type', 'key', 'pending', 'comments', 'transport', 'interactionMarkup', 'pluginConfiguration'];

function headersV3(headers: unknown): Record<string, string> | undefined {
  if (!isObj(headers)) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(String).join(', ') : String(v)]));
}

function hasHeader(headers: Record<string, string> | undefined, name: string): boolean {
  return Object.keys(headers ?? {}).some((k) => k.toLowerCase() === name.toLowerCase());
}

/** One request or response part: body unwrapped, headers as strings. */
function partV3(part: unknown, where: string): Json {
  if (!isObj(part)) throw new PactInputError(`${where}: not an object`);
  const out: Json = { ...part };
  let headers = headersV3(part['headers']);
  const body = part['body'];
  if (isObj(body) && 'content' in body) {
    const contentType = typeof body['contentType'] === 'string' ? body['contentType'] : undefined;
    let content = body['content'];
    if (body['encoded'] === 'base64' || body['encoded'] === true) {
      content = Buffer.from(String(content), 'base64').toString('utf8');
      if (contentType && /json/i.test(contentType)) {
        try {
          content = JSON.parse(content as string);
        } catch {
          // stays text
        }
      }
    } else if (typeof content !== 'string' && !(contentType && /json/i.test(contentType))) {
      content = JSON.stringify(content);
    }
    out['body'] = content;
    if (contentType && !hasHeader(headers, 'content-type')) headers = { ...(headers ?? {}), 'Content-Type': contentType };
  }
  if (headers) out['headers'] = headers;
  else delete out['headers'];
  return out;
}

/** Converts a V4 pact document (parsed JSON) to V3. A V3 (or older) document is returned unchanged. */
export function pactToV3(doc: unknown, source: string): Json {
  if (!isObj(doc)) throw new PactInputError(`${source}: not a pact (expected a JSON object)`);
  const metadata = isObj(doc['metadata']) ? doc['metadata'] : {};
  const spec = isObj(metadata['pactSpecification']) ? String(metadata['pactSpecification']['version'] ?? '') : '';
  if (!spec.startsWith('4')) return doc;
  const interactions = Array.isArray(doc['interactions']) ? doc['interactions'] : [];
  const converted = interactions.map((raw, i) => {
    const where = `${source}#/interactions/${i}`;
    if (!isObj(raw)) throw new PactInputError(`${where}: not an object`);
    const type = typeof raw['type'] === 'string' ? raw['type'] : 'Synchronous/HTTP';
    if (type !== 'Synchronous/HTTP') {
      throw new PactInputError(`${where}: a ${type} interaction has no V3 HTTP form (V3 keeps messages in their own pact files)`);
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(raw)) if (!V4_ONLY.includes(k)) out[k] = v;
    out['request'] = partV3(raw['request'], `${where}/request`);
    out['response'] = partV3(raw['response'], `${where}/response`);
    return out;
  });
  return {
    consumer: doc['consumer'],
    provider: doc['provider'],
    interactions: converted,
    metadata: { ...metadata, pactSpecification: { version: '3.0.0' } },
  };
}
