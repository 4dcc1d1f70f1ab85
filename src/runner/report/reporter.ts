/**
 * The reporters: everything a run tells the world goes through this one interface. A run (runConformance, pact
 * verify, merge) calls each reporter in order; none of them is called by name. The built-in ones are the report
 * files (results.json, JUnit, HTML: written first, so that the console can name them) and the console (progress on
 * stderr, the summary on stdout). A run itself writes nothing to the process's streams.
 */
import type { RunResults } from '../model.ts';
import { ConsoleProgress, isInteractive, renderSummary, type ProgressStream, type ReportPaths } from './console.ts';

/** What the reporters hand on to the ones after them once the results are final. */
export interface Finished {
  /** The files the file reporter wrote (the console names them). */
  files: ReportPaths;
  /** Lines about the run that are not part of its results (the run id the requests carried). */
  lines: string[];
}

export interface Reporter {
  /** The run starts with this many operations. */
  started?(operations: number): void;
  /** Every case of an operation is done; `done` and `failing` count the operations so far. */
  operationDone?(operationId: string, progress: { done: number; failing: number }): void;
  /** Something a user should know while the run goes (an interruption, a stop on --max-failures). */
  notice?(text: string): void;
  /**
   * The run's final results. Called in order: a reporter sees what the ones before it added to `finished`. The
   * cases' curl lines and reproduction scripts stay on disk until every reporter is done: a reporter that shows
   * them reads them back with `operationWithTexts` (case-spool.ts), one operation at a time.
   */
  finished?(results: RunResults, finished: Finished): Promise<void> | void;
}

/** Calls each reporter's `finished` in order, with what the earlier ones added. */
export async function reportFinished(reporters: readonly Reporter[], results: RunResults, lines: string[] = []): Promise<Finished> {
  const finished: Finished = { files: {}, lines };
  for (const reporter of reporters) await reporter.finished?.(results, finished);
  return finished;
}

/** results.json, junit.xml and index.html in a directory (each written aside and renamed into place). */
export function filesReporter(outDir: string): Reporter {
  return {
    async finished(results, finished) {
      const { writeReports } = await import('./write.ts');
      finished.files = await writeReports(results, outDir);
    },
  };
}

export interface ConsoleStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Progress on stderr (none when quiet), notices on stderr, and the summary with the files' paths on stdout. */
export function consoleReporter(streams: ConsoleStreams, options: { quiet?: boolean } = {}): Reporter {
  let progress: ConsoleProgress | undefined;
  return {
    started(operations) {
      if (options.quiet) return;
      progress = new ConsoleProgress(streams.stderr as unknown as ProgressStream, {});
      progress.start(operations);
    },
    operationDone(operationId, { done, failing }) {
      progress?.update(done, failing, operationId);
    },
    notice(text) {
      streams.stderr.write(`${text}\n`);
    },
    finished(results, finished) {
      progress?.finish();
      progress = undefined;
      streams.stdout.write(`${renderSummary(results, finished.files, { color: isInteractive(streams.stdout) })}\n`);
      for (const line of finished.lines) streams.stdout.write(`${line}\n`);
      if (results.deploymentDiff) {
        const { extra, lacking } = results.deploymentDiff;
        streams.stdout.write(
          `Deployment description: ${extra.length} operation(s) served that the contract lacks${extra.length ? ` (${extra.map((e) => `${e.method} ${e.path}`).join(', ')})` : ''}; ${lacking.length} contract operation(s) it lacks${lacking.length ? ` (${lacking.join(', ')})` : ''}.\n`,
        );
      }
    },
  };
}
