import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * A JSON body must validate against the documented response schema (ajv 2020-12 with formats; integers beyond
 * 2^53 judged on their exact digits). A schema the tool cannot compile throws SchemaCompileError: the case
 * errors (a tool problem), it never fails the service.
 */
export const responseSchemaConformance: Check = {
  id: 'response-schema-conformance',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    // Truncated, too deep or invalid JSON where JSON is declared: response-body-readable fails the case.
    if (!spec?.schema || response.truncated || response.jsonError || response.body.trim() === '') return [];
    const location = `${ctx.operation.specFile}#${spec.pointer}`;
    if (response.json === undefined) {
      return [finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} body is not JSON.`, { specLocation: location, expected: 'a JSON body', actual: response.body.slice(0, 200) })];
    }
    const errors = ctx.validator.validateResponse(spec, response.json, response.body);
    if (errors.length === 0) return [];
    return [
      finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} does not match the schema: ${errors[0]?.message}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}.`, {
        specLocation: location,
        schemaErrors: errors.slice(0, 20),
        ...(errors[0]?.expected !== undefined ? { expected: errors[0].expected } : {}),
        actual: response.json,
      }),
    ];
  },
};
