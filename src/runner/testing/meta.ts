import type { CaseResult } from '../model.ts';
import type { RunConfig } from '../execute/config.ts';

/** What one vitest test contributes to results.json: a case result for each operation it exercised. */
export interface ConformanceMeta {
  operationId: string;
  result: CaseResult;
}

/** How the skip note of a scenario whose operations the contract lacks begins (the reporters list it once). */
export const UNMET_OPERATIONS = 'the contract does not describe ';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: ConformanceMeta[];
  }
  interface ProvidedContext {
    conformance: RunConfig;
    /** The description file of each operation of the run's contract, by operation id. */
    conformanceOperations: Record<string, string>;
  }
}
