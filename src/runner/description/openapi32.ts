/**
 * What OpenAPI 3.2 adds, as the model reads it: the operations of `additionalOperations` (QUERY is a method of
 * the Path Item itself), a `querystring` parameter (the whole query string, one value of its media type), the
 * sequential media types whose `itemSchema` describes each item of a stream, tags nested by `parent`. What the
 * engine reads but does not exercise yet is named as a warning of the run, never dropped silently.
 */
type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const token = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

/** Media types whose body is a sequence of items (OpenAPI 3.2 §4.14.3): each item is judged by `itemSchema`. */
export const SEQUENTIAL_MEDIA = /^(application\/(jsonl|x-ndjson|json-seq|x-jsonlines)|text\/event-stream)$/i;

export function isSequentialMedia(type: string): boolean {
  return SEQUENTIAL_MEDIA.test(type.split(';')[0]!.trim());
}

/** The operations a Path Item lists under `additionalOperations` (3.2): [method, operation, pointer]. */
export function additionalOperations(pathItem: Obj, pathPointer: string): Array<[string, Obj, string]> {
  const extra = pathItem['additionalOperations'];
  if (!isObj(extra)) return [];
  return Object.entries(extra)
    .filter((e): e is [string, Obj] => isObj(e[1]))
    .map(([method, op]) => [method.toUpperCase(), op, `${pathPointer}/additionalOperations/${token(method)}`]);
}

/**
 * A `querystring` parameter whose content is a form (`application/x-www-form-urlencoded`) of an object: the query
 * parameters it stands for, one per property (what a form-exploded query is). Any other: undefined.
 */
export function querystringParameters(p: Obj, pointer: string): Array<{ name: string; required: boolean; schema: unknown; pointer: string }> | undefined {
  const content = isObj(p['content']) ? p['content'] : {};
  const form = Object.entries(content).find(([type]) => /^application\/x-www-form-urlencoded\b/i.test(type));
  const schema = form && isObj(form[1]) ? form[1]['schema'] : undefined;
  if (!isObj(schema) || !isObj(schema['properties'])) return undefined;
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const at = `${pointer}/content/${token(form![0])}/schema/properties`;
  return Object.entries(schema['properties']).map(([name, s]) => ({ name, required: required.includes(name), schema: s, pointer: `${at}/${token(name)}` }));
}

/** The group of an operation whose first tag is nested (3.2 `parent`): its tags from the top, "pets › cats". */
export function tagGroup(api: Obj, tags: unknown[]): string | undefined {
  const declared = Array.isArray(api['tags']) ? api['tags'].filter(isObj) : [];
  const first = tags[0];
  if (typeof first !== 'string' || !declared.some((t) => typeof t['parent'] === 'string')) return undefined;
  const byName = new Map(declared.map((t) => [String(t['name']), t]));
  const chain = [first];
  for (let tag = byName.get(first); tag && typeof tag['parent'] === 'string' && !chain.includes(tag['parent']); tag = byName.get(tag['parent'])) {
    chain.unshift(tag['parent']);
  }
  return chain.join(' › ');
}

/**
 * What a 3.2 description says that the engine cannot exercise yet, one warning each: a `querystring` parameter
 * that is not a form of an object (not sent), a request body that is a sequence (`itemSchema`: not sent as a
 * stream), a discriminator's `defaultMapping` (not used to pick a schema).
 */
export function unexercised32(bundled: Obj, source: string): string[] {
  const out: string[] = [];
  const paths = isObj(bundled['paths']) ? bundled['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const at = `/paths/${token(path)}`;
    const ops: Array<[Obj, string]> = Object.entries(item)
      .filter(([k, v]) => isObj(v) && !['parameters', 'servers', 'additionalOperations'].includes(k) && !k.startsWith('x-') && !k.startsWith('$'))
      .map(([k, v]) => [v as Obj, `${at}/${token(k)}`]);
    ops.push(...additionalOperations(item, at).map(([, op, p]) => [op, p] as [Obj, string]));
    const lists: Array<[unknown, string]> = [[item['parameters'], `${at}/parameters`], ...ops.map(([op, p]) => [op['parameters'], `${p}/parameters`] as [unknown, string])];
    for (const [list, p] of lists) {
      if (!Array.isArray(list)) continue;
      list.forEach((param, i) => {
        if (isObj(param) && param['in'] === 'querystring' && !querystringParameters(param, `${p}/${i}`)) {
          out.push(`${source}: #${p}/${i}: a querystring parameter whose content is not a form of an object: not sent (the operation is tested without it)`);
        }
      });
    }
    for (const [op, p] of ops) {
      const content = isObj(op['requestBody']) && isObj(op['requestBody']['content']) ? op['requestBody']['content'] : {};
      for (const [type, media] of Object.entries(content)) {
        if (isObj(media) && media['itemSchema'] !== undefined && media['schema'] === undefined) {
          out.push(`${source}: #${p}/requestBody/content/${token(type)}: a request body sent as a sequence (itemSchema) is not generated yet: the operation's requests carry no such body`);
        }
      }
    }
  }
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((v, i) => visit(v, `${at}/${i}`));
    else if (isObj(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'discriminator' && isObj(v) && v['defaultMapping'] !== undefined) out.push(`${source}: #${at}/discriminator/defaultMapping: not used to choose a schema yet (every alternative is tried)`);
        else visit(v, `${at}/${token(k)}`);
      }
    }
  };
  visit(bundled['components'], '/components');
  return out;
}
