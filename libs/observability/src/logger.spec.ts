import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { createLogger } from './logger';

/** A logger whose lines land in `lines` (parsed). */
function capture(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('test', 'info', sink), lines };
}

const SECRET = 'hunter2-correct-horse';

/** What PostgreSQL answers to a NOT NULL violation: its detail carries the whole row. */
function pgError(): Error {
  return Object.assign(new Error('null value in column "name" violates not-null constraint'), {
    code: '23502',
    table: 'users',
    column: 'name',
    detail: `Failing row contains (1, null, ${SECRET}).`,
  });
}

describe('createLogger: errors of failed statements', () => {
  it('logs the statement text, code and table of a TypeORM query failure, never its parameters or the row', () => {
    const { logger, lines } = capture();
    const error = new QueryFailedError('INSERT INTO users (id, name, password) VALUES ($1, $2, $3)', [1, null, SECRET], pgError());
    logger.error({ err: error }, 'unhandled error');
    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain(SECRET);
    expect(lines[0].err).toMatchObject({
      type: 'QueryFailedError',
      query: 'INSERT INTO users (id, name, password) VALUES ($1, $2, $3)',
      parameters: '[redacted: 3 values]',
      detail: '[redacted]',
      code: '23502',
      table: 'users',
      driverError: { code: '23502', detail: '[redacted]' },
    });
    // The error itself is left as it was (only its log line is scrubbed).
    expect(error.parameters).toEqual([1, null, SECRET]);
  });

  it('logs a raw driver error (crm-core runs statements on the pg client) with its statement but not its detail', () => {
    const { logger, lines } = capture();
    logger.error({ err: Object.assign(pgError(), { query: 'INSERT INTO users VALUES ($1, $2, $3)', statement: 'crm_abc' }) }, 'failed');
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
    expect(lines[0].err).toMatchObject({ query: 'INSERT INTO users VALUES ($1, $2, $3)', statement: 'crm_abc', detail: '[redacted]' });
  });

  it('still logs other errors whole, and values that are not errors as they are', () => {
    const { logger, lines } = capture();
    logger.error({ err: Object.assign(new Error('boom'), { code: 'E1' }) }, 'x');
    logger.error({ err: 'a plain reason' }, 'y');
    expect(lines[0].err).toMatchObject({ type: 'Error', message: 'boom', code: 'E1', stack: expect.stringContaining('boom') });
    expect(lines[1].err).toBe('a plain reason');
  });
});
