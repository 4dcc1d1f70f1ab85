/**
 * Memory that does not grow with the run: the cases are on disk (NDJSON in the reports directory) while the
 * run goes, an interrupted run still writes its reports from them, and a compressed body far over the body
 * cap is cut while it is decoded (the case records a truncated body; the process stays small).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { readSpool, type SpooledCase } from '../../src/runner/report/case-spool.ts';
import { RECORDED_BODY_CAP } from '../../src/runner/report/assemble.ts';
import { readStoredResults, removeTemps, requireResults, resultsSchemaErrors, runCli, tempDir, TOKEN } from '../support/runs.ts';

const RUN_TIMEOUT = 180_000;
const servers: Server[] = [];

async function stub(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await removeTemps();
});

const spoolFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ndjson')) : []);

describe('cases on disk while the run goes', () => {
  test(
    'each finished case is a line of NDJSON in the reports directory during the run; interrupted, the run writes its reports with those cases and removes the file',
    async () => {
      // Everything answers 200 {} at once, except DELETE, which never answers: the run stalls part-way.
      const base = await stub((req, res) => {
        if (req.method === 'DELETE') return;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      const out = await tempDir();
      let spooled: SpooledCase[] = [];
      const run = await runCli(
        ['--base-url', `${base}/customer-service`, '--include', 'customer-service', '--allow-irreversible', '--token', TOKEN, '--timeout', '8000', '--concurrency', '2', '--quiet', '--out', out],
        {
          noOut: true,
          onSpawn: (child) => {
            const poll = setInterval(() => {
              const [file] = spoolFiles(out);
              if (!file) return;
              const text = readFileSync(join(out, file), 'utf8');
              // Only whole lines: the last one may be half written.
              spooled = [...readSpool(text.slice(0, text.lastIndexOf('\n') + 1))];
              if (spooled.length >= 5 && !existsSync(join(out, 'results.json'))) {
                clearInterval(poll);
                child.kill('SIGINT');
              }
            }, 100);
            child.once('close', () => clearInterval(poll));
          },
        },
      );
      expect(spooled.length, run.stderr).toBeGreaterThanOrEqual(5);
      const results = readStoredResults(readFileSync(join(out, 'results.json'), 'utf8'));
      expect(results.interrupted).toBe(true);
      // Failures already found make it not conformant (1); otherwise incomplete (2). Never conformant.
      expect(run.code).toBe(results.verdict === 'not-conformant' ? 1 : 2);
      expect(resultsSchemaErrors(results)).toEqual([]);
      // Every case that was on disk is in the reports, with the same outcome.
      for (const line of spooled) {
        const op = results.operations.find((o) => o.operationId === line.operationId);
        expect(op?.cases.find((c) => c.name === line.case.name)?.outcome, `${line.operationId} › ${line.case.name}`).toBe(line.case.outcome);
      }
      expect(spoolFiles(out)).toEqual([]);
      expect(readdirSync(out).sort()).toEqual(['index.html', 'junit.xml', 'results.json']);
    },
    RUN_TIMEOUT,
  );
});

describe('a compressed body far over the cap', () => {
  // 512 MiB of zeros as 32 gzip members of 16 MiB (about 500 KB on the wire).
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024));
  const bomb = Buffer.concat(Array.from({ length: 32 }, () => member));

  test(
    'is cut while it is decoded: the case records a truncated body of the recorded size, and the process stays far below the decoded size',
    async () => {
      const base = await stub((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb);
      });
      let peakKiB = 0;
      const run = await runCli(['--base-url', `${base}/customer-service`, '--include', 'get-address-type-field-list', '--token', TOKEN, '--quiet', '--keep-passed-exchanges'], {
        onSpawn: (child) => {
          // The kernel's high-water mark of the CLI's resident memory (Linux), read until it exits.
          const poll = setInterval(() => {
            try {
              const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
              if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
            } catch {
              // gone
            }
          }, 50);
          child.once('close', () => clearInterval(poll));
        },
      });
      const results = requireResults(run);
      expect(resultsSchemaErrors(results)).toEqual([]);
      const responses = results.operations.flatMap((o) => o.cases.flatMap((c) => c.exchanges.flatMap((e) => (e.response ? [e.response] : []))));
      expect(responses.length).toBeGreaterThan(0);
      for (const r of responses) {
        expect(r.truncated).toBe(true);
        // Decoding stopped a few caps (1 MiB each) in: never anywhere near the 512 MiB the body inflates to.
        expect(r.size).toBeGreaterThan(1024 * 1024);
        expect(r.size).toBeLessThan(8 * 1024 * 1024);
        expect(r.body.length).toBeLessThanOrEqual(RECORDED_BODY_CAP);
      }
      // The run judged the cut bodies (not a tool error) and its memory stayed far from one decoded body.
      expect(results.operations.find((o) => o.operationId === 'get-address-type-field-list')?.outcome).not.toBe('errored');
      if (existsSync('/proc/self/status')) expect(peakKiB / 1024).toBeLessThan(400);
    },
    RUN_TIMEOUT,
  );
});
