import { isTransientDependencyError } from './transient-errors';

describe('isTransientDependencyError', () => {
  it('recognises PostgreSQL and Redis outages, also wrapped by TypeORM', () => {
    expect(isTransientDependencyError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );
    expect(
      isTransientDependencyError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    ).toBe(true);
    expect(
      isTransientDependencyError({ name: 'QueryFailedError', message: 'x', driverError: new Error('Connection terminated unexpectedly') }),
    ).toBe(true);
    expect(isTransientDependencyError(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
  });

  it('leaves programming and data errors alone', () => {
    expect(isTransientDependencyError(new TypeError('x is undefined'))).toBe(false);
    expect(isTransientDependencyError(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(
      false,
    );
    expect(isTransientDependencyError(undefined)).toBe(false);
  });
});

describe('a query runner released by a PostgreSQL restart', () => {
  it('is transient (503), not an internal error', () => {
    const error = Object.assign(new Error('Query runner already released. Cannot run queries anymore.'), {
      name: 'QueryRunnerAlreadyReleasedError',
    });
    expect(isTransientDependencyError(error)).toBe(true);
    expect(isTransientDependencyError(new Error('Query runner already released'))).toBe(false);
  });
});
