/**
 * The gate over a comparison: the changes of each base/revision pair, the ignore file and the baseline applied,
 * the consumers named, the verdict (breaking or not) and the exit code; the console lines and JUnit testcases.
 */
import { readFile } from 'node:fs/promises';
import { compareDescriptions, loadForComparison, type LoadedDescription } from './compare.ts';
import { applyIgnores, readIgnoreFile } from './ignore.ts';
import { versionOf } from './sources.ts';
import type { Change, Compatibility } from './types.ts';
import { InputError } from '../description/errors.ts';

export interface GateOptions {
  /** Base files, each compared with the revision file at the same position. */
  bases: string[];
  revisions: string[];
  ignoreFile?: string;
  /** A results.json (or compatibility.json) of an earlier comparison: its changes are known, not new. */
  baseline?: string;
  /** Pacts (as read by the pact commands): their consumers are named on the changes they touch. */
  pacts?: Array<{ consumer: string; interactions: Array<{ method: string; path: string }> }>;
  now?: Date;
}

export async function compareContracts(options: GateOptions): Promise<Compatibility> {
  const now = options.now ?? new Date();
  const changes: Change[] = [];
  for (const [base, revision] of await pairs(options.bases, options.revisions)) changes.push(...compareDescriptions(base, revision, now));
  const expired = options.ignoreFile ? applyIgnores(changes, await readIgnoreFile(options.ignoreFile), now.toISOString().slice(0, 10)) : [];
  if (options.baseline) {
    const known = await baselineFingerprints(options.baseline);
    for (const c of changes) if (known.has(c.fingerprint) && !c.ignored) c.ignored = { reason: `in the baseline ${options.baseline}`, expires: '' };
  }
  if (options.pacts) nameConsumers(changes, options.pacts);
  const live = (level: Change['level']) => changes.filter((c) => c.level === level && !c.ignored).length;
  return {
    base: { source: options.bases.join(', '), ...(await label(options.bases[0])) },
    revision: { source: options.revisions.join(', '), ...(await label(options.revisions[0])) },
    breaking: live('breaking') > 0,
    proven: false,
    provenNote: 'not proven: no deployment was asked (a document comparison only)',
    changes,
    counts: { breaking: live('breaking'), warning: live('warning'), info: live('info'), ignored: changes.filter((c) => c.ignored).length },
    ...(expired.length > 0 ? { expiredIgnores: expired } : {}),
  };
}

/** The service a description is of: its x-service-id, else its title. */
const serviceOf = (d: LoadedDescription) => {
  const info = (d.bundled['info'] ?? {}) as Record<string, unknown>;
  return String(d.bundled['x-service-id'] ?? info['x-service-id'] ?? info['title'] ?? '');
};

/** Each revision with the base of the same service (one base and one revision: those two); revisions without one are left out. */
export async function pairs(bases: readonly string[], revisions: readonly string[]): Promise<Array<[LoadedDescription, LoadedDescription]>> {
  const b = await Promise.all([...new Set(bases)].map((f) => loadForComparison(f)));
  const r = await Promise.all(revisions.map((f) => loadForComparison(f)));
  if (b.length === 1 && r.length === 1) return [[b[0]!, r[0]!]];
  const out: Array<[LoadedDescription, LoadedDescription]> = [];
  for (const rev of r) {
    const base = b.find((x) => serviceOf(x) === serviceOf(rev));
    if (base) out.push([base, rev]);
  }
  if (out.length === 0) throw new InputError(`the base contract (${bases.join(', ')}) describes none of the revision's services (${r.map(serviceOf).join(', ')})`);
  return out;
}

async function label(file: string | undefined): Promise<{ version?: string }> {
  const v = file && !/^https?:/i.test(file) ? await versionOf(file) : undefined;
  return v ? { version: v } : {};
}

async function baselineFingerprints(file: string): Promise<Set<string>> {
  let data: { compatibility?: { changes?: Array<{ fingerprint?: string }> } };
  try {
    data = JSON.parse(await readFile(file.endsWith('.json') ? file : `${file}/results.json`, 'utf8'));
  } catch {
    throw new InputError(`--baseline ${file}: not a results.json with a compatibility object`);
  }
  return new Set((data.compatibility?.changes ?? []).map((c) => c.fingerprint).filter((f): f is string => typeof f === 'string'));
}

/** A path template as a pattern of concrete paths (`/pets/{id}` matches `/pets/42`). */
function templateMatcher(template: string): RegExp {
  const parts = template.split(/\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}/?$`);
}

function nameConsumers(changes: Change[], pacts: NonNullable<GateOptions['pacts']>): void {
  for (const c of changes) {
    if (!c.operation || c.level !== 'breaking') continue;
    const [method, template] = [c.operation.slice(0, c.operation.indexOf(' ')), c.operation.slice(c.operation.indexOf(' ') + 1)];
    const match = templateMatcher(template);
    const names = pacts.filter((p) => p.interactions.some((i) => i.method.toUpperCase() === method && match.test(i.path.split('?')[0]!))).map((p) => p.consumer);
    if (names.length > 0) c.consumers = [...new Set(names)].sort();
  }
}

/** Exit code of the gate: 1 on a live breaking change (or a warning with fail-on warning) or an expired ignore entry. */
export function gateExitCode(compat: Compatibility, failOn: 'breaking' | 'warning'): 0 | 1 {
  if (compat.breaking || (compat.expiredIgnores?.length ?? 0) > 0 || (compat.pacts?.broken ?? 0) > 0) return 1;
  return failOn === 'warning' && compat.counts.warning > 0 ? 1 : 0;
}

/** The console lines: one per change (info left out unless asked), then the verdict. */
export function compatLines(compat: Compatibility, withInfo = false): string[] {
  const lines = [`Compatibility of ${compat.revision.source}${compat.revision.version ? ` (${compat.revision.version})` : ''} with the base ${compat.base.source}${compat.base.version ? ` (${compat.base.version})` : ''}`];
  for (const c of compat.changes) {
    if (c.level === 'info' && !withInfo) continue;
    const tag = c.ignored ? 'ignored' : c.level;
    let line = `  ${tag.toUpperCase().padEnd(8)} ${c.rule}  ${c.sentence}`;
    if (c.deploymentDetail) line += ` — ${c.deploymentDetail}`;
    if (c.consumers) line += ` (consumers: ${c.consumers.join(', ')})`;
    if (c.ignored) line += ` [${c.ignored.reason}${c.ignored.expires ? ` until ${c.ignored.expires}` : ''}]`;
    lines.push(line);
  }
  for (const f of compat.pacts?.failures ?? []) {
    lines.push(`  ${f.alreadyFailing ? 'PACT    ' : 'BROKEN  '} ${f.consumer}: "${f.interaction}" (${f.request})${f.alreadyFailing ? ' fails against the base too' : ' no longer holds'}: ${f.mismatches[0]?.message ?? ''}${f.mismatches.length > 1 ? ` (+${f.mismatches.length - 1} more)` : ''}`);
  }
  if (compat.pacts) lines.push(`Consumers ${compat.pacts.consumers.join(', ') || '(none)'}: ${compat.pacts.checked} interaction(s) checked against the revision, ${compat.pacts.broken} no longer hold`);
  for (const e of compat.expiredIgnores ?? []) lines.push(`  EXPIRED  ignore entry ${e.entry} expired on ${e.expires}: remove or renew it`);
  const { breaking, warning, info, ignored } = compat.counts;
  const broken = compat.pacts?.broken ? `, ${compat.pacts.broken} consumer interaction(s) broken` : '';
  lines.push(`${compat.breaking ? 'BREAKING' : 'COMPATIBLE'}  ${breaking} breaking, ${warning} warning(s), ${info} info${ignored ? `, ${ignored} ignored` : ''}${broken}; ${compat.provenNote}`);
  return lines;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit: one testcase per breaking change and warning (a failure unless ignored), one passing case when there is none. */
export function compatJunit(compat: Compatibility): string {
  const shown = compat.changes.filter((c) => c.level !== 'info');
  const cases = shown.map((c) => {
    const name = xml(`${c.rule}: ${c.sentence}`);
    const body = c.ignored
      ? `<skipped message="${xml(`ignored: ${c.ignored.reason}`)}"/>`
      : c.level === 'breaking'
        ? `<failure type="${c.rule}" message="${xml(c.sentence)}">${xml([`fingerprint ${c.fingerprint}`, c.base && `base ${c.base}`, c.revision && `revision ${c.revision}`, c.deployment && `deployment: ${c.deployment}`].filter(Boolean).join('\n'))}</failure>`
        : '';
    return `<testcase classname="compatibility.${xml(c.operation ?? 'api')}" name="${name}">${body}</testcase>`;
  });
  for (const f of compat.pacts?.failures ?? []) {
    const detail = xml(f.mismatches.map((m) => `${m.message}${m.location ? ` (${m.location})` : ''}`).join('\n'));
    const body = f.alreadyFailing ? `<skipped message="${xml('fails against the base too')}"/>` : `<failure type="pact-interaction-broken" message="${xml(f.mismatches[0]?.message ?? '')}">${detail}</failure>`;
    cases.push(`<testcase classname="compatibility.pact.${xml(f.consumer)}" name="${xml(`${f.interaction} (${f.request})`)}">${body}</testcase>`);
  }
  if (cases.length === 0) cases.push('<testcase classname="compatibility" name="no breaking change"></testcase>');
  const failures = shown.filter((c) => c.level === 'breaking' && !c.ignored).length + (compat.pacts?.broken ?? 0);
  return `<testsuite name="compatibility" tests="${cases.length}" failures="${failures}" errors="0" skipped="${shown.filter((c) => c.ignored).length + (compat.pacts?.failures.filter((f) => f.alreadyFailing).length ?? 0)}">${cases.join('')}</testsuite>`;
}
