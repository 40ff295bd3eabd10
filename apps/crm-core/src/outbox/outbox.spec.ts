import { isPermanentPublishError, retryDelayMs } from './outbox';

const named = (name: string, message: string, extra: object = {}) => Object.assign(new Error(message), { name }, extra);

describe('outbox relay rules', () => {
  it('parks only what NATS refuses for good', () => {
    expect(isPermanentPublishError(named('InvalidArgumentError', "'payload' max_payload size exceeded"))).toBe(true);
    expect(isPermanentPublishError(named('InvalidSubjectError', 'illegal subject'))).toBe(true);
    expect(isPermanentPublishError(named('JetStreamApiError', 'message size exceeds maximum allowed', { code: 10054, status: 503 }))).toBe(
      true,
    );
    expect(isPermanentPublishError(named('JetStreamApiError', 'bad request', { code: 10003, status: 400 }))).toBe(true);
    for (const transient of [
      named('TimeoutError', 'timeout'),
      named('NoRespondersError', 'no responders'),
      named('JetStreamNotEnabled', 'jetstream is not enabled'),
      named('ClosedConnectionError', 'closed connection'),
      named('JetStreamApiError', 'insufficient resources', { code: 10023, status: 503 }),
      'not an error',
    ])
      expect(isPermanentPublishError(transient)).toBe(false);
  });

  it('waits longer after each failed publish, at most a minute', () => {
    expect([1, 2, 3, 4, 8, 20].map(retryDelayMs)).toEqual([500, 1000, 2000, 4000, 60_000, 60_000]);
  });
});
