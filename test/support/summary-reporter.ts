import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the output with the slowest ten test files, the failed tests (file, name, first line of the error) and the plain line CI reads: "N passed, N failed, N skipped".
 * A file that failed before any of its tests ran counts as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const mod of testModules) {
      const file = relative(process.cwd(), mod.moduleId);
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) {
        failed++;
        failures.push(`${file}: ${mod.errors()[0]?.message?.split('\n')[0] ?? 'failed before its tests ran'}`);
      }
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          failures.push(`${file} > ${test.fullName}: ${result.errors?.[0]?.message?.split('\n')[0]?.slice(0, 300) ?? ''}`);
        } else skipped++;
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
    // Named again last, where a CI log's tail shows them.
    if (failures.length > 0) process.stdout.write(`\nFailed tests:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
