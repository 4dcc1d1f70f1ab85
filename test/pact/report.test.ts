/**
 * A pact run's reports read as one: the console and the HTML lead with the interactions (what failed first,
 * with its mismatch and pact file), there is no empty operations section, and the banner counts interactions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { removeTemps, ROOT, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

describe('pact check reports', () => {
  test('one broken interaction: the console and the HTML speak of interactions, the failure first', async () => {
    const dir = await tempDir('pact-report-');
    const pact = JSON.parse(readFileSync(join(ROOT, 'contract/pacts/onboarding-portal-customer-service.json'), 'utf8')) as {
      interactions: Array<{ description: string; response: { status: number } }>;
    };
    const broken = pact.interactions[0]!;
    broken.response.status = 418;
    const file = join(dir, 'broken-pact.json');
    writeFileSync(file, JSON.stringify(pact));
    const total = pact.interactions.length;

    const run = await runCli(['pact', 'check', '--pacts', file]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    const summaryAt = lines.findIndex((l) => l.startsWith('NOT CONFORMANT'));
    expect(lines[summaryAt]).toMatch(new RegExp(`^NOT CONFORMANT {2}${total - 1} of ${total} interactions agree with the contract · pact check`));
    expect(lines[summaryAt + 1]).toBe(`Interactions: ${total - 1} passed · 1 failed · 0 errored · 0 skipped`);
    expect(lines[summaryAt + 3]).toContain(`failed   onboarding-portal › ${broken.description}`);
    expect(run.stdout).toContain(`pact: ${file}`);
    expect(run.stdout).not.toMatch(/^Operations:|^Coverage:/m);

    const html = await readFile(join(run.out, 'index.html'), 'utf8');
    expect(html).not.toContain('<section id="operations"');
    expect(html).not.toContain('broke the contract');
    expect(html).toContain(`<div class="verdict-explain">${total - 1} of ${total} interactions agree with the contract; 1 failed (see the interactions below).</div>`);
    const rows = [...html.matchAll(/<tr class="pact-row o-([a-z]+)"/g)].map((m) => m[1]);
    expect(rows[0]).toBe('failed');
    expect(rows.filter((r) => r === 'passed')).toHaveLength(total - 1);
  }, 120_000);
});
