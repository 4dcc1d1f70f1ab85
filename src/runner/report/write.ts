/** Writes the three reports of a run into one directory: results.json, junit.xml and index.html. */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResults } from '../model.ts';
import { renderHtml, type HtmlOptions } from './html.ts';
import { renderJunit, type JunitOptions } from './junit.ts';

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

/** results.json exactly as written: pretty JSON with a final newline. */
export function serialiseResults(results: RunResults): string {
  return `${JSON.stringify(results, null, 2)}\n`;
}

/**
 * Renders and writes the reports, creating outDir when needed. Each file is written to a temporary name and
 * renamed, so a reader never sees half a file. Returns the paths written.
 */
export async function writeReports(results: RunResults, outDir: string, options: WriteReportsOptions = {}): Promise<ReportFiles> {
  await mkdir(outDir, { recursive: true });
  const files: ReportFiles = {
    resultsJson: join(outDir, RESULTS_FILE),
    junitXml: join(outDir, JUNIT_FILE),
    html: join(outDir, HTML_FILE),
  };
  // Render everything before writing anything: a rendering bug leaves the previous reports intact.
  const contents: Array<[string, string]> = [
    [files.resultsJson, serialiseResults(results)],
    [files.junitXml, renderJunit(results, options.junit)],
    [files.html, renderHtml(results, options.html)],
  ];
  for (const [file, text] of contents) {
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, text, 'utf8');
    await rename(temp, file);
  }
  return files;
}
