const { appendFileSync } = require('node:fs');

/**
 * Prints the run's totals as one plain line that any CI log reader understands:
 *   Tests: 42 passed, 0 failed, 1 skipped
 * Under tools/test/run-all.mjs (ARRBITER_TEST_SUMMARY set) it records them for the overall total instead.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const totals = {
      passed: results.numPassedTests,
      // Suites that failed to run (syntax errors, failing hooks) count as failures too.
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    const file = process.env.ARRBITER_TEST_SUMMARY;
    if (file) appendFileSync(file, `${JSON.stringify(totals)}\n`);
    else process.stdout.write(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  }
}

module.exports = SummaryReporter;
