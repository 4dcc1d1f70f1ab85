import type { JsonSchema } from '../model.ts';
import { responseFor } from '../description/load.ts';
import { schemaProperties } from '../description/json-schema.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** Collects response keys that match a documented property only when case is ignored ("ID" for "Id"). */
function mismatches(schema: JsonSchema, value: unknown, path: string, out: string[], depth = 0): void {
  if (depth > 8 || typeof schema !== 'object' || value === null || typeof value !== 'object') return;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches as JsonSchema[]) mismatches(b, value, path, out, depth + 1);
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (items !== undefined) value.forEach((v, i) => mismatches(items as JsonSchema, v, `${path}/${i}`, out, depth + 1));
    return;
  }
  const props = schemaProperties(schema);
  const byLower = new Map(Object.keys(props).map((k) => [k.toLowerCase(), k]));
  for (const [key, child] of Object.entries(value)) {
    const documented = props[key];
    if (documented !== undefined) {
      mismatches(documented, child, `${path}/${key}`, out, depth + 1);
      continue;
    }
    const spelled = byLower.get(key.toLowerCase());
    if (spelled) out.push(`${path}/${key} (documented as "${spelled}")`);
  }
}

export const propertyCasing: Check = {
  id: 'property-casing',
  scope: 'response',
  run(ctx) {
    const rule = ctx.profile.propertyCasing;
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    if (!rule?.caseSensitive || !spec?.schema || response.json === undefined) return [];
    const found: string[] = [];
    mismatches(spec.schema, response.json, '', found);
    return [...new Set(found)].map((where) =>
      finding(ctx, 'property-casing', rule.mismatchSeverity, `Property ${where} differs from the contract only in case; field names are case-sensitive.`, {
        expected: where.replace(/.*documented as "(.*)"\)$/, '$1'),
        actual: where.replace(/ \(documented.*$/, ''),
        specLocation: `${ctx.operation.specFile}#${spec.pointer}`,
      }),
    );
  },
};
