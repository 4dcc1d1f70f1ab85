/**
 * Keys a write of the run changed: an update answered with its record under another key than the path named (a
 * slug that follows the title: `PUT /articles/how-to` renamed the article `how-to-train`) renames the record, and
 * every later request of the run that names the old key (a case's own, the read back, the clean-up's delete) is
 * sent the key the answer gave. By value, per service; a key renamed twice is followed to its newest (each old key maps to it directly).
 */
import type { Exchange, JsonSchema, Operation } from '../../model.ts';
import { recordsIn } from '../../plan/answer-records.ts';
import { fieldNamedBy } from '../../plan/resources.ts';
import type { CallRequest } from '../request-builder.ts';

const WRITES = new Set(['PUT', 'PATCH', 'POST']);

function successSchema(op: Operation, status: number): JsonSchema | undefined {
  return op.responses.find((r) => r.status === String(status))?.schema ?? op.responses.find((r) => /^2/.test(r.status) && r.schema !== undefined)?.schema;
}

export class RenamedKeys {
  private readonly renamed = new Map<string, string>();

  private key(op: Operation, value: string): string {
    return `${op.service}\u0000${value}`;
  }

  /** Whether any key was renamed. */
  get any(): boolean {
    return this.renamed.size > 0;
  }

  /** The request with each path value the run saw renamed replaced by its newest key (the request itself where none is). */
  follow(op: Operation, request: CallRequest): CallRequest {
    if (this.renamed.size === 0 || !request.pathParams) return request;
    let changed = false;
    const pathParams = Object.fromEntries(
      Object.entries(request.pathParams).map(([name, value]) => {
        const now = this.renamed.get(this.key(op, value)) ?? value;
        changed ||= now !== value;
        return [name, now];
      }),
    );
    return changed ? { ...request, pathParams } : request;
  }

  /**
   * Notes a write's answer: where the record it wrote (the one its path's last parameter names) comes back with
   * another value in the field that parameter names (`slug` for `{slug}`, never a bare `id`), the old key is renamed.
   */
  note(op: Operation, request: CallRequest, exchange: Exchange): void {
    const status = exchange.response?.status ?? 0;
    if (!WRITES.has(request.method ?? op.method) || status < 200 || status > 299 || request.rawPathParams) return;
    const last = /\{([^}]+)\}\/?$/.exec(op.path)?.[1];
    const sent = last !== undefined ? request.pathParams?.[last] : undefined;
    if (last === undefined || sent === undefined) return;
    const [record, ...others] = recordsIn(exchange.response?.json, successSchema(op, status));
    if (others.length > 0 || typeof record !== 'object' || record === null || Array.isArray(record)) return;
    const field = fieldNamedBy(last, Object.keys(record));
    const value = field !== undefined ? (record as Record<string, unknown>)[field] : undefined;
    const now = typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
    if (now === undefined || now === sent) return;
    // Every older key of the record follows to the newest at once; the new key names a record now, not a rename.
    for (const [old, to] of this.renamed) if (to === sent && old.startsWith(`${op.service}\u0000`)) this.renamed.set(old, now);
    this.renamed.set(this.key(op, sent), now);
    this.renamed.delete(this.key(op, now));
  }
}
