/** Writes the three reports of a run into one directory: results.json, junit.xml and index.html. */
import { collectNow } from '../http/large-bodies.ts';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResults } from '../model.ts';
import { renderHtmlTo, type HtmlOptions } from './html.ts';
import { renderJunitTo, type JunitOptions } from './junit.ts';
import { operationWithTexts } from './case-spool.ts';
import { storedOperation, storedResults } from './results-format.ts';

export interface ReportFiles {
  resultsJson: string;
  junitXml: string;
  html: string;
}

export interface WriteReportsOptions {
  junit?: JunitOptions;
  html?: HtmlOptions;
}

export const RESULTS_FILE = 'results.json';
export const JUNIT_FILE = 'junit.xml';
export const HTML_FILE = 'index.html';

/** results.json exactly as written (schemaVersion 2, see results-format.ts). */
export function serialiseResults(results: RunResults): string {
  const chunks: string[] = [];
  serialiseResultsTo(results, (chunk) => void chunks.push(chunk));
  return chunks.join('');
}

/**
 * results.json piece by piece, one operation at a time: compact JSON (no indentation) in schemaVersion 2, one
 * operation per line, with a final newline. The whole text of a large run is never held in memory.
 */
export function serialiseResultsTo(results: RunResults, write: (chunk: string) => void): void {
  const stored = storedResults({ ...results, operations: [] });
  if (results.operations.length === 0) {
    write(`${JSON.stringify(stored)}\n`);
    return;
  }
  const marker = `operations-${Math.random().toString(36).slice(2)}`;
  const frame = JSON.stringify({ ...stored, operations: marker });
  const at = frame.indexOf(`"${marker}"`);
  write(`${frame.slice(0, at)}[\n`);
  results.operations.forEach((op, i) => {
    // The cases' curl lines and reproduction scripts read back from the run's spool, one operation at a time.
    write(`${JSON.stringify(storedOperation(operationWithTexts(op)))}${i < results.operations.length - 1 ? ',' : ''}\n`);
  });
  write(`]${frame.slice(at + marker.length + 2)}\n`);
}

/** Output to a file descriptor through a buffer of about 1 MB (few system calls, little memory). */
function fileSink(fd: number): { write: (chunk: string) => void; flush: () => void } {
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length > 0) writeSync(fd, parts.join(''));
    parts = [];
    size = 0;
  };
  return {
    write(chunk) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= 1 << 20) flush();
    },
    flush,
  };
}

/**
 * Renders and writes the reports, creating outDir when needed. Each file is written to a temporary name as it
 * is rendered, and the three are renamed into place only once all are complete: a reader never sees half a
 * file, and a rendering bug leaves the previous reports intact.
 */
export async function writeReports(results: RunResults, outDir: string, options: WriteReportsOptions = {}): Promise<ReportFiles> {
  await mkdir(outDir, { recursive: true });
  const files: ReportFiles = {
    resultsJson: join(outDir, RESULTS_FILE),
    junitXml: join(outDir, JUNIT_FILE),
    html: join(outDir, HTML_FILE),
  };
  const renderers: Array<[string, (write: (chunk: string) => void) => void]> = [
    [files.resultsJson, (write) => serialiseResultsTo(results, write)],
    [files.junitXml, (write) => renderJunitTo(results, write, options.junit)],
    [files.html, (write) => renderHtmlTo(results, write, options.html)],
  ];
  const temps: string[] = [];
  try {
    for (const [file, render] of renderers) {
      const temp = `${file}.${process.pid}.tmp`;
      temps.push(temp);
      const fd = openSync(temp, 'w');
      try {
        const sink = fileSink(fd);
        render(sink.write);
        sink.flush();
      } finally {
        closeSync(fd);
      }
      // What one report's rendering made is garbage before the next renders: collected, not piled up.
      collectNow();
    }
  } catch (error) {
    await Promise.all(temps.map((t) => rm(t, { force: true })));
    throw error;
  }
  for (const [i, [file]] of renderers.entries()) await rename(temps[i]!, file);
  return files;
}
