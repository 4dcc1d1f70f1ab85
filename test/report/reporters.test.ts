/**
 * Everything a run tells goes through its reporters: a reporter of the caller's own hears the start, each
 * operation as it finishes and the final results, after the file reporter wrote the reports; an aborted run still
 * reports (interrupted) with its files written; and the run itself writes nothing to the process's streams.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { runConformance, type RunOptions } from '../../src/runner/run.ts';
import { Session } from '../../src/runner/execute/session.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { filesReporter, type Reporter } from '../../src/runner/report/reporter.ts';
import { removeTemps, ROOT, tempDir } from '../support/runs.ts';
// @ts-expect-error: the pack is plain JavaScript, as a pack written outside the project would be
import notesPack from '../packs/notes/pack.mjs';

afterAll(removeTemps);
afterEach(() => vi.restoreAllMocks());

async function options(extra: Partial<RunOptions> = {}): Promise<RunOptions> {
  return {
    specs: [join(ROOT, 'test/packs/notes/notes.openapi.yaml')],
    packs: [notesPack as never],
    servers: {},
    timeoutMs: 10_000,
    concurrency: 4,
    include: [],
    exclude: [],
    readOnly: false,
    allowIrreversible: true,
    out: await tempDir(),
    seed: 1,
    failOn: 'error',
    quiet: true,
    ...extra,
  };
}

/** A reporter that writes down what it hears. */
function recorder(): Reporter & { heard: string[]; results?: RunResults } {
  const heard: string[] = [];
  const r: Reporter & { heard: string[]; results?: RunResults } = {
    heard,
    started: (n) => void heard.push(`started ${n}`),
    operationDone: (id, p) => void heard.push(`done ${id} ${p.done}`),
    notice: (text) => void heard.push(`notice ${text}`),
    finished: (results, finished) => {
      heard.push(`finished ${results.verdict} files:${Object.keys(finished.files).sort().join(',')}`);
      r.results = results;
    },
  };
  return r;
}

describe('reporters', () => {
  test('a reporter of its own hears the start, every operation and the results, after the report files', async () => {
    const opts = await options();
    const mine = recorder();
    const outcome = await runConformance({ ...opts, reporters: [filesReporter(opts.out), mine] });
    expect(outcome.exitCode).toBe(0);
    expect(mine.heard[0]).toBe('started 4');
    const done = mine.heard.filter((h) => h.startsWith('done '));
    expect(done.map((h) => h.split(' ')[1]).sort()).toEqual(['create-note', 'delete-note', 'get-note', 'list-notes']);
    expect(done.at(-1)).toMatch(/ 4$/);
    // The file reporter ran first: the files exist, and the next reporter is told where they are.
    expect(mine.heard.at(-1)).toBe('finished conformant files:html,junitXml,resultsJson');
    for (const f of ['results.json', 'junit.xml', 'index.html']) expect(existsSync(join(opts.out, f))).toBe(true);
    expect(mine.results?.operations).toHaveLength(4);
  });

  test('an aborted run still reports: interrupted results, files written', async () => {
    const opts = await options();
    const abort = new AbortController();
    const mine = recorder();
    // Aborted as soon as the first operation is done.
    const first: Reporter = { operationDone: () => abort.abort() };
    const outcome = await runConformance({ ...opts, signal: abort.signal, reporters: [first, filesReporter(opts.out), mine] });
    expect(outcome.exitCode).toBe(2);
    expect(mine.results?.interrupted).toBe(true);
    expect(existsSync(join(opts.out, 'results.json'))).toBe(true);
  });

  test('while the reporters write, the session the cases ran in is gone: what the cases needed (validators, records created, the value pool) is not kept for the reports', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let session: WeakRef<Session> | undefined;
    const from = Session.from.bind(Session);
    Session.from = (...args: Parameters<typeof Session.from>) => {
      const made = from(...args);
      session = new WeakRef(made);
      return made;
    };
    let alive: boolean | undefined;
    try {
      const opts = await options();
      const outcome = await runConformance({
        ...opts,
        reporters: [
          {
            finished: async () => {
              // A later turn: a WeakRef keeps its object for the rest of the job that read it.
              await new Promise((resolve) => setTimeout(resolve, 0));
              gc();
              alive = session?.deref() !== undefined;
            },
          },
        ],
      });
      expect(outcome.exitCode).toBe(0);
    } finally {
      Session.from = from;
    }
    expect(session).toBeDefined();
    expect(alive).toBe(false);
  });

  test('a run writes nothing to the process streams: all of it goes to its reporters', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const outcome = await runConformance(await options());
    const written = [...out.mock.calls, ...err.mock.calls].map((c) => String(c[0]));
    vi.restoreAllMocks();
    expect(outcome.exitCode).toBe(0);
    expect(written).toEqual([]);
  });
});
