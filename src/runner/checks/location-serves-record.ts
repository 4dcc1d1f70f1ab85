import { isRecordOf } from './created-resource-readable.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** A URL as a message quotes it: without its query (a signed URL carries its signature there). */
function quoted(url: string): string {
  const bare = url.split(/[?#]/)[0] ?? '';
  return bare.length < url.length ? `${bare}?…` : url;
}

/**
 * RFC 9110 §10.2.2, §15.3.2: the Location of a 201 names the resource the request created. A GET of it (resolved
 * against the request URL, with the credentials a read carries, on the target's origin only) serves that record:
 * a 2xx, and where its body is a record with an id, the created record's id. A Location on another origin is not
 * followed (a note). A redirect answered to the GET is not judged: a client may follow it on.
 */
export const locationServesRecord: Check = {
  id: 'location-serves-record',
  scope: 'intent',
  appliesTo: ['created-readable'],
  run(ctx) {
    const location = ctx.location;
    if (!location || ctx.exchange.response.status !== 201) return [];
    const call = `${ctx.exchange.request.method} ${new URL(ctx.exchange.request.url).pathname}`;
    const said = `${call} answered 201 with Location ${quoted(location.header)}`;
    if (!location.exchange) {
      return [finding(ctx, 'location-serves-record', 'info', `${said}, on another origin (${new URL(location.url).origin}) than the target's: not followed.`)];
    }
    const { status, json } = location.exchange.response;
    if (status >= 300 && status < 400) return [];
    if (status < 200 || status >= 300) {
      const missing = location.missingBase ? `: the Location leaves out the base path ${location.missingBase} the client sees` : '';
      return [finding(ctx, 'location-serves-record', 'error', `${said}, which answered ${status}${missing}.`, { expected: '2xx', actual: status })];
    }
    const record = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
    if (record && 'id' in record && location.createdId !== undefined && !isRecordOf(record, location.createdId)) {
      return [
        finding(ctx, 'location-serves-record', 'error', `${said}, which served the record ${JSON.stringify(record['id'])}, not the created ${location.createdId}.`, {
          expected: location.createdId,
          actual: record['id'],
        }),
      ];
    }
    // A URL that answers is not yet one that names the record: a documented read's URL names its record by its path
    // values, and the created id must be one of them (a collection's URL names none).
    const named = location.names;
    if (named && location.createdId !== undefined && !Object.values(named.pathParams).some((v) => v === location.createdId)) {
      const values = Object.entries(named.pathParams).map(([k, v]) => `{${k}} = ${v}`);
      const what = values.length > 0 ? `the URL of ${named.operationId} for ${values.join(', ')}` : `the URL of ${named.operationId}, which names no record`;
      return [
        finding(ctx, 'location-serves-record', 'error', `${said}, ${what}: not the created record ${location.createdId} (RFC 9110 §10.2.2: the Location of a 201 names the resource the request created).`, {
          expected: location.createdId,
          actual: values.length > 0 ? named.pathParams : location.header,
        }),
      ];
    }
    return [];
  },
};
