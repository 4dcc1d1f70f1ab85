/**
 * Hidden endpoints at the scale of the catalog: the Customer pack's catalog counts 272 operations the contract does
 * not describe, most of them in groups it knows only by path prefix and count. The run asks each group of which the
 * contract describes no path at its prefix and tells the answer from an unknown route's: the reference deployment
 * serves none of them; a deployment that also serves /consents (12 operations in the catalog) is reported for that
 * group, a warning in console, results.json, JUnit and HTML, never a failure. The reference deployment's groups are
 * asked in the embedded default run (the CLI without a target starts that deployment itself).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { pool, removeTemps, requireResults, resultsSchemaErrors, runCli, startVariant, summary, tokenLeaks, type CliRun } from '../support/runs.ts';

const limit = pool(2);
const RUN_TIMEOUT = 300_000;

afterAll(removeTemps);

/** The 21 groups of the seed's table the contract describes no path of (all but /address-types and /caches). */
const ASKED = [
  '/batch', '/batch-catalog', '/blacklists', '/compensating-transactions', '/consent-items', '/consents', '/customer-configs', '/customer-groups',
  '/customer-number-citizenid-maps', '/customer-number-reserves', '/customer-rules', '/customer-segments-range', '/customers', '/data-migrations',
  '/identity-types', '/key-formats', '/localizations', '/naces', '/occupation-types', '/parameters', '/potential-persons',
];

async function runOnConsents(): Promise<{ run: CliRun; results: RunResults }> {
  return limit(async () => {
    const started = await startVariant({ extraRoutes: [{ method: 'GET', path: '/customer-service/consents', reply: { status: 200, body: { total: 0, data: [] } } }] });
    try {
      const { args, env } = started.target('flag');
      const run = await runCli([...args, '--quiet', '--seed', '1'], { env });
      return { run, results: requireResults(run) };
    } finally {
      await started.close();
    }
  });
}

function askedPrefixes(results: RunResults): string[] {
  return (results.catalogGroups?.groups ?? []).map((g) => g.prefix).sort();
}

describe.concurrent('the catalog groups the contract describes no path of, asked at their prefixes', () => {
  test(
    'the embedded default run (the reference deployment) asks them too and finds none of the 21 served: conformant, no warning, each group asked once',
    async () => {
      const run = await limit(() => runCli(['--quiet']));
      const results = requireResults(run);
      expect(run.code, summary(results).join('\n')).toBe(0);
      expect(results.verdict).toBe('conformant');
      expect(resultsSchemaErrors(results)).toEqual([]);
      expect(askedPrefixes(results)).toEqual([...ASKED].sort());
      expect(results.catalogGroups).toMatchObject({ asked: 21, served: 0 });
      expect(results.catalogGroups!.groups.every((g) => g.served === false && g.status === 404)).toBe(true);
      expect(results.catalogGroups!.groups.find((g) => g.prefix === '/customers')).toMatchObject({ count: 126, service: 'customer-service' });
      expect(run.stdout).toContain('Catalog groups served without a description: 0 of 21');
      expect(run.stdout).not.toMatch(/warning {2}\/consents/);
      const junit = await readFile(join(run.out, 'junit.xml'), 'utf8');
      expect(junit).toContain('name="/consents › not served"');
    },
    RUN_TIMEOUT,
  );

  test(
    'a deployment that also serves /consents: that group only, a warning with its curl line in every report; the verdict stays conformant',
    async () => {
      const { run, results } = await runOnConsents();
      expect(run.code, summary(results).join('\n')).toBe(0);
      expect(results.verdict).toBe('conformant');
      expect(resultsSchemaErrors(results)).toEqual([]);
      // The operations the contract describes were all tested, as without the extra group.
      expect(results.coverage.tested).toBe(15);
      expect(results.catalogGroups).toMatchObject({ asked: 21, served: 1 });
      const served = results.catalogGroups!.groups.filter((g) => g.served);
      expect(served.map((g) => [g.prefix, g.status, g.count])).toEqual([['/consents', 200, 12]]);
      const consents = served[0]!;
      expect(consents.message).toBe('GET /customer-service/consents answered 200, not as an unknown route is answered: the deployment serves the group /consents (12 operations in the catalog), which the contract does not describe.');
      expect(consents.curl).toMatch(/^curl -g .*\/customer-service\/consents' .*\$\{?CONFORMANCE_TOKEN/);
      expect(run.stdout).toContain('Catalog groups served without a description: 1 of 21');
      expect(run.stdout).toContain(`warning  /consents: ${consents.message}`);
      expect(run.stdout).toContain(consents.curl);
      const junit = await readFile(join(run.out, 'junit.xml'), 'utf8');
      expect(junit).toContain('name="/consents › served without a description"');
      expect(junit).not.toMatch(/<failure[^>]*consents/);
      const html = await readFile(join(run.out, 'index.html'), 'utf8');
      expect(html).toContain('Catalog groups served without a description: 1 of 21');
      expect(html).toContain('warning: served without a description');
      expect(await tokenLeaks(run)).toEqual([]);
    },
    RUN_TIMEOUT,
  );
});
