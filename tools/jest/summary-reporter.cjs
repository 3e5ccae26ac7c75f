/**
 * Prints the run's totals as one plain line that any CI log reader understands:
 *   Tests: 42 passed, 0 failed, 1 skipped
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    // Suites that failed to run (syntax errors, failing hooks) count as failures too.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\nTests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

module.exports = SummaryReporter;
