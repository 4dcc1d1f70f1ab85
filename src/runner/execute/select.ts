import picomatch from 'picomatch';
import type { Operation } from '../model.ts';

export interface Selection {
  include: string[];
  exclude: string[];
  shard?: { index: number; count: number };
}

/** Canonical operation order: by service, group, operationId. Every run and every merge uses it. */
export function compareOperations(a: Pick<Operation, 'service' | 'group' | 'operationId'>, b: Pick<Operation, 'service' | 'group' | 'operationId'>): number {
  return COLLATOR.compare(a.service, b.service) || COLLATOR.compare(a.group, b.group) || COLLATOR.compare(a.operationId, b.operationId);
}

/** The order of String#localeCompare, with one collator instead of one per comparison. */
const COLLATOR = new Intl.Collator();

type Selectable = Pick<Operation, 'operationId' | 'group' | 'service' | 'method' | 'path'> & { tags?: string[] | undefined };

const METHODS = /^(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE)$/i;

/**
 * An --include/--exclude selector: an operationId, a group (with or without its slash), a service, an HTTP
 * method (GET), a path glob (`/orders/*`, `**` spans segments), or an explicit `operation:`, `group:`,
 * `service:`, `tag:`, `method:` or `path:` prefix.
 */
export function matchesSelector(op: Selectable, pattern: string): boolean {
  const m = /^(operation|group|service|tag|method|path):(.+)$/.exec(pattern);
  if (m) {
    const value = m[2]!;
    switch (m[1]) {
      case 'operation':
        return op.operationId === value;
      case 'group':
        return op.group === value || op.group === `/${value}`;
      case 'service':
        return op.service === value;
      case 'tag':
        return (op.tags ?? []).some((t) => t.toLowerCase() === value.toLowerCase());
      case 'method':
        return op.method === value.toUpperCase();
      default:
        return picomatch.isMatch(op.path, value);
    }
  }
  if (op.operationId === pattern || op.group === pattern || op.group === `/${pattern}` || op.service === pattern) return true;
  if (METHODS.test(pattern)) return op.method === pattern.toUpperCase();
  if (/[*?[{]/.test(pattern.replace(/\{[A-Za-z0-9_.-]+\}/g, ''))) return picomatch.isMatch(op.path, pattern);
  return pattern.startsWith('/') && op.path === pattern;
}

/** Applies --include/--exclude (operationId, group or service) and --shard i/n (round-robin in canonical order). */
export function selectOperations(operations: Operation[], selection: Selection): Operation[] {
  const selected = [...operations]
    .sort(compareOperations)
    .filter((op) => selection.include.length === 0 || selection.include.some((p) => matchesSelector(op, p)))
    .filter((op) => !selection.exclude.some((p) => matchesSelector(op, p)));
  const shard = selection.shard;
  return shard ? selected.filter((_, i) => i % shard.count === shard.index - 1) : selected;
}
