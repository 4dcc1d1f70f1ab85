/** Reads the results.json of an earlier run for --baseline (a file, or the report directory holding it). */
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { RunResults } from '../model.ts';
import { readResultsDir, ResultsInputError } from './merge.ts';
import { expandResults, READABLE_SCHEMA_VERSIONS } from './results-format.ts';
import { RESULTS_FILE } from './write.ts';

export async function readBaseline(path: string): Promise<RunResults> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch {
    throw new ResultsInputError(`--baseline ${path}: no such file; give the results.json of an earlier run (or its report directory)`);
  }
  if (isDir) return readResultsDir(path);
  if (basename(path) === RESULTS_FILE) return readResultsDir(dirname(path));
  // Another name (e.g. a downloaded baseline.json): the same checks, on this file.
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ResultsInputError(`--baseline ${path}: not valid JSON (${(error as Error).message.split('\n')[0] ?? ''})`);
  }
  const results = data as Partial<RunResults> | null;
  if (!READABLE_SCHEMA_VERSIONS.includes(results?.schemaVersion as number) || !Array.isArray(results?.operations)) {
    throw new ResultsInputError(
      `--baseline ${path}: not a results.json of schemaVersion ${READABLE_SCHEMA_VERSIONS.join(' or ')} (see src/runner/schemas/results.schema.json)`,
    );
  }
  return expandResults(results);
}
