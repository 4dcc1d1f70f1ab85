/**
 * The closing console summary of a pact run that tested no operations: it leads with the interactions
 * (what failed first, with its mismatch and the pact file it comes from), and speaks of interactions, not of
 * operations.
 */
import type { RunResults } from '../model.ts';
import { sortPactInteractions } from './outcomes.ts';
import { formatDuration } from './text.ts';

type Painter = (s: string) => string;
interface Painters {
  red: Painter;
  green: Painter;
  yellow: Painter;
  blue: Painter;
  dim: Painter;
  bold: Painter;
}

const RANK: Record<string, number> = { failed: 0, errored: 1, skipped: 2, passed: 3 };

/** "8 of 10 interactions verified" (verify) or "checked against the contract" (check). */
export function pactHeadline(pact: NonNullable<RunResults['pact']>): string {
  const total = pact.interactions.length;
  const passed = pact.interactions.filter((i) => i.outcome === 'passed').length;
  const verb = pact.mode === 'check' ? 'agree with the contract' : 'verified';
  return `${passed} of ${total} interaction${total === 1 ? '' : 's'} ${verb}`;
}

export function pactSummaryLines(results: RunResults, paths: { resultsJson?: string; junitXml?: string; html?: string }, c: Painters): string[] {
  const pact = results.pact;
  if (!pact) return [];
  const interactions = sortPactInteractions(pact.interactions).sort((a, b) => (RANK[a.outcome] ?? 9) - (RANK[b.outcome] ?? 9));
  const tally = (o: string) => interactions.filter((i) => i.outcome === o).length;
  const verdictPaint = results.verdict === 'conformant' ? c.green : results.verdict === 'not-conformant' ? c.red : c.yellow;
  const lines = [
    `${c.bold(verdictPaint(results.verdict.replace('-', ' ').toUpperCase()))}  ${pactHeadline(pact)} · pact ${pact.mode} · ${formatDuration(results.durationMs)}`,
    `Interactions: ${tally('passed')} passed · ${tally('failed')} failed · ${tally('errored')} errored · ${tally('skipped')} skipped`,
    '',
  ];
  for (const i of interactions) {
    const paint = i.outcome === 'passed' ? c.green : i.outcome === 'skipped' ? c.dim : i.outcome === 'errored' ? c.yellow : c.red;
    lines.push(`  ${paint(i.outcome.padEnd(7))}  ${i.consumer} › ${i.description}${i.operationId ? `  ${c.dim(i.operationId)}` : ''}`);
    if (i.outcome !== 'passed') {
      for (const m of i.mismatches.slice(0, 3)) lines.push(`           ${m.message.split('\n')[0]}${m.location ? c.dim(`  (${m.location})`) : ''}`);
      if (i.mismatches.length > 3) lines.push(`           … ${i.mismatches.length - 3} more`);
      lines.push(`           ${c.dim(`pact: ${i.pactFile}`)}`);
    }
  }
  if (results.expiredWaivers.length > 0) {
    lines.push('', c.bold(c.red('Expired waivers (each fails the run; remove or renew them):')));
    for (const w of results.expiredWaivers) lines.push(`  ${w.operationId} / ${w.check}  expired ${w.expires}: ${w.reason}`);
  }
  const written: Array<[string, string]> = [];
  for (const [label, path] of [['results.json', paths.resultsJson], ['junit.xml', paths.junitXml], ['index.html', paths.html]] as Array<[string, string | undefined]>) {
    if (path !== undefined) written.push([label, path]);
  }
  if (written.length > 0) {
    lines.push('', c.bold('Reports:'));
    for (const [label, path] of written) lines.push(`  ${label.padEnd(13)}${c.blue(path)}`);
  }
  return lines;
}
