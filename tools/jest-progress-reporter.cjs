// A jest reporter that appends one line per test file as it starts and ends to the file named by
// JEST_PROGRESS_FILE (no-op without it). .ci/run reads it when the suite passes its time limit, to
// name the files that were still running and to count what had finished.
const { appendFileSync } = require('node:fs');
const path = require('node:path');

class ProgressReporter {
  constructor() {
    this.file = process.env.JEST_PROGRESS_FILE || '';
  }

  write(line) {
    if (this.file) appendFileSync(this.file, `${line}\n`);
  }

  onTestFileStart(test) {
    this.write(`start\t${path.relative(process.cwd(), test.path)}`);
  }

  onTestFileResult(test, result) {
    const failed = result.numFailingTests + (result.testExecError ? 1 : 0);
    this.write(`done\t${path.relative(process.cwd(), test.path)}\t${result.numPassingTests}\t${failed}`);
  }
}

module.exports = ProgressReporter;
