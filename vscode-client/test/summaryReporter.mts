// Prints "vitest: N passed, N failed" alone on a line after the default report, the plain closing
// line that CI reads to know tests ran (vitest's own summary has another shape).
import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest/node';

function count(tasks: readonly RunnerTask[], acc: { passed: number; failed: number; skipped: number }): void {
  for (const task of tasks) {
    if (task.type === 'suite') count(task.tasks, acc);
    else if (task.result?.state === 'pass') acc.passed += 1;
    else if (task.result?.state === 'fail') acc.failed += 1;
    else acc.skipped += 1;
  }
}

export default class SummaryReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = []): void {
    const acc = { passed: 0, failed: 0, skipped: 0 };
    count(files, acc);
    console.log(`vitest: ${acc.passed} passed, ${acc.failed} failed${acc.skipped ? `, ${acc.skipped} skipped` : ''}`);
  }
}
