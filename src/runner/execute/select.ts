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

/** An --include/--exclude pattern names an operationId, a group (with or without its slash) or a service. */
export function matchesSelector(op: Pick<Operation, 'operationId' | 'group' | 'service'>, pattern: string): boolean {
  return op.operationId === pattern || op.group === pattern || op.group === `/${pattern}` || op.service === pattern;
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
