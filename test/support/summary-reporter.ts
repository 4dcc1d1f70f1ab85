import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the output with the slowest ten test files and the plain line CI reads: "N passed, N failed, N skipped".
 * A file that failed before any of its tests ran counts as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const slowest = [...testModules].sort((a, b) => b.diagnostic().duration - a.diagnostic().duration).slice(0, 10);
    if (slowest.length > 0) {
      process.stdout.write('\nSlowest test files:\n');
      for (const mod of slowest) {
        const seconds = (mod.diagnostic().duration / 1000).toFixed(1).padStart(7);
        process.stdout.write(`${seconds} s  ${relative(process.cwd(), mod.moduleId)}\n`);
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
