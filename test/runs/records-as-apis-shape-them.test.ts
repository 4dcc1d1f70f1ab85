/**
 * Records as real APIs shape them, in whole runs of the CLI:
 *  - a server of the blogging contract in ../shared/realworld/openapi.yml (test/support/realworld.ts): records in
 *    envelopes (`{"article": {...}}`), articles named by a slug made from their title (unique; an update of the
 *    title renames the article), profiles named by username, comments under an article, favorites and follows, a
 *    login that answers a documented 401 to credentials it does not know, one record per caller (`/user`). A
 *    correct strict and a correct lenient server are green under seeds 1, 2 and 3, every operation tested and
 *    nothing left behind; faults planted on operations that need a made record (an article's update, a comment's
 *    delete, a follow, a favorite count) are each found on that operation by the right check.
 *    The run holds its credential as the contract's `Token` scheme's value (`--auth Token=Token <jwt>`): the
 *    server maps one preset token to a user registered before the run. (The server answers register and login
 *    with tokens of their own, for a run that gets its credential from the API.)
 *  - path parameters that name no record: `/math/sum/{a}/{b}` (numbers with a minimum) and `/{kind}/count` (an
 *    enum of user and group) are sent values of their schemas and tested; the id a create answered never fills
 *    `{kind}`.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { PRESET_TOKEN, realWorldContract, startRealWorld, type RealWorldFault, type RealWorldOptions } from '../support/realworld.ts';
import { allFindings, listening, pool, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';

afterAll(removeTemps);

const contract = realWorldContract();
const SEEDS = [1, 2, 3];
const FAULTS: Record<RealWorldFault, { operation: string; check: string }> = {
  'update-article': { operation: 'UpdateArticle', check: 'response-schema-conformance' },
  'delete-comment': { operation: 'DeleteArticleComment', check: 'status-code-conformance' },
  follow: { operation: 'FollowUserByUsername', check: 'response-schema-conformance' },
  'favorite-count': { operation: 'CreateArticleFavorite', check: 'response-schema-conformance' },
};
const limit = pool(2);

async function runOn(options: RealWorldOptions, seed: number) {
  const server = await startRealWorld(options);
  try {
    const cli = await limit(() => runCli(['--spec', contract!, '--base-url', server.url, '--auth', `Token=Token ${PRESET_TOKEN}`, '--seed', String(seed), '--quiet'], { killAfterMs: 280_000 }));
    return { cli, results: requireResults(cli), state: server.state };
  } finally {
    await server.close();
  }
}

function errors(results: RunResults): string[] {
  return allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.check}: ${f.message}`);
}

describe.skipIf(contract === undefined)('the blogging contract: envelopes, slugs, usernames, a Token credential', () => {
  const correct = (['strict', 'lenient'] as const).flatMap((mode) => SEEDS.map((seed) => [mode, seed] as const));
  test.concurrent.each(correct)('a correct %s server under seed %i: conformant, every operation tested, nothing left behind', async (mode, seed) => {
    const { cli, results, state } = await runOn({ mode }, seed);
    expect(errors(results)).toEqual([]);
    expect(summary(results)).toEqual([]);
    expect(results.verdict).toBe('conformant');
    expect(cli.code).toBe(0);
    expect(results.operations.filter((o) => o.method !== null).map((o) => `${o.operationId}: ${o.outcome}`).filter((o) => !o.endsWith('passed'))).toEqual([]);
    expect(results.operations.filter((o) => o.method !== null)).toHaveLength(19);
    // The records the contract lets the run delete (articles, and the comments under them) are gone.
    expect(results.leftBehind ?? []).toEqual([]);
    expect([...state.articles.keys()]).toEqual([]);
    expect(state.comments).toEqual([]);
    // The records were read out of their envelopes: the article's update, comment, favorite and follow were sent
    // on records the run made, and answered with success.
    for (const [method, path] of [['PUT', /^\/articles\/[^/]+$/], ['DELETE', /^\/articles\/[^/]+\/comments\/\d+$/], ['POST', /^\/profiles\/[^/]+\/follow$/], ['POST', /^\/articles\/[^/]+\/favorite$/]] as const) {
      expect(state.seen.some((s) => s.method === method && path.test(s.path) && s.status < 300), `${method} ${path}`).toBe(true);
    }
  }, 300_000);

  test.concurrent.each(SEEDS)('faults on operations that need a made record, seed %i: each found on its operation by its check', async (seed) => {
    const { cli, results } = await runOn({ mode: 'strict', faults: Object.keys(FAULTS) as RealWorldFault[] }, seed);
    expect(cli.code).toBe(1);
    expect(results.verdict).toBe('not-conformant');
    for (const { operation, check } of Object.values(FAULTS)) {
      const op = results.operations.find((o) => o.operationId === operation);
      expect(op?.outcome, operation).toBe('failed');
      expect(op?.cases.flatMap((c) => c.findings).some((f) => f.check === check && f.severity === 'error'), `${operation} ${check}`).toBe(true);
    }
  }, 300_000);
});

const json = (schema: unknown) => ({ 'application/json': { schema } });
const VALUES_SPEC = {
  openapi: '3.0.3',
  info: { title: 'Values in paths', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/math/sum/{a}/{b}': {
      get: {
        operationId: 'sum',
        parameters: ['a', 'b'].map((name) => ({ name, in: 'path', required: true, schema: { type: 'integer', minimum: 0, maximum: 1000 } })),
        responses: { '200': { description: 'the sum', content: json({ type: 'object', required: ['sum'], properties: { sum: { type: 'integer' } } }) }, '400': { description: 'not numbers' } },
      },
    },
    '/{kind}/count': {
      get: {
        operationId: 'countOfKind',
        parameters: [{ name: 'kind', in: 'path', required: true, schema: { type: 'string', enum: ['user', 'group'] } }],
        responses: { '200': { description: 'how many', content: json({ type: 'object', required: ['count'], properties: { count: { type: 'integer' } } }) }, '400': { description: 'no such kind' } },
      },
    },
    '/todos': {
      post: {
        operationId: 'addTodo',
        requestBody: { required: true, content: json({ type: 'object', required: ['title'], properties: { title: { type: 'string' } } }) },
        responses: { '201': { description: 'made', content: json({ type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } }) }, '400': { description: 'invalid' } },
      },
    },
  },
};

describe('path parameters that name no record', () => {
  test('/math/sum/{a}/{b} and an enum {kind} are sent values of their schemas and tested; a created id never fills {kind}', async () => {
    const seen: string[] = [];
    let next = 20;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const reply = (status: number, value?: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { ...headers, ...(value === undefined ? {} : { 'content-type': 'application/json' }) });
          res.end(value === undefined ? undefined : JSON.stringify(value));
        };
        const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/svc/, '');
        seen.push(`${req.method} ${path}`);
        const sum = /^\/math\/sum\/([^/]+)\/([^/]+)$/.exec(path);
        const kind = /^\/([^/]+)\/count$/.exec(path);
        const allowed = path === '/todos' ? 'POST' : sum || kind ? 'GET' : undefined;
        if (allowed === undefined) return reply(404);
        if (req.method !== allowed) return reply(405, undefined, { allow: allowed });
        if (sum) {
          const [a, b] = [Number(sum[1]), Number(sum[2])];
          return /^\d+$/.test(sum[1]!) && /^\d+$/.test(sum[2]!) && a <= 1000 && b <= 1000 ? reply(200, { sum: a + b }) : reply(400);
        }
        if (kind) return kind[1] === 'user' || kind[1] === 'group' ? reply(200, { count: 2 }) : reply(400);
        try {
          const parsed = JSON.parse(body) as { title?: unknown } | null;
          return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && typeof parsed.title === 'string' ? reply(201, { id: ++next, title: parsed.title }) : reply(400);
        } catch {
          return reply(400);
        }
      });
    });
    const { url, close } = await listening(server);
    try {
      const dir = await tempDir();
      const spec = join(dir, 'values.json');
      await writeFile(spec, JSON.stringify(VALUES_SPEC));
      const cli = await runCli(['--spec', spec, '--base-url', url, '--seed', '1', '--quiet']);
      const results = requireResults(cli);
      expect(summary(results)).toEqual([]);
      const outcome = (id: string) => results.operations.find((o) => o.operationId === id)?.outcome;
      expect([outcome('sum'), outcome('countOfKind')]).toEqual(['passed', 'passed']);
      expect(seen.some((s) => /^GET \/math\/sum\/\d+\/\d+$/.test(s))).toBe(true);
      expect(seen.filter((s) => /^GET \/(user|group)\/count$/.test(s)).length).toBeGreaterThan(0);
      // The ids the create answered (21, 22, ...) never stand for a kind.
      expect(seen.filter((s) => /^GET \/\d+\/count$/.test(s))).toEqual([]);
      expect(cli.code).toBe(0);
    } finally {
      await close();
    }
  }, 200_000);
});
