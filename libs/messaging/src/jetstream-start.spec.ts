import pino from 'pino';
import { isJetStreamNotReady, whenJetStreamAnswers } from './jetstream-start';

const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name }, extra);
const logger = pino({ level: 'silent' });

describe('whenJetStreamAnswers', () => {
  it('tells a JetStream that is not answering yet from a refusal', () => {
    expect(isJetStreamNotReady(named('TimeoutError'))).toBe(true);
    expect(isJetStreamNotReady(named('NoRespondersError'))).toBe(true);
    expect(isJetStreamNotReady(named('JetStreamApiError', { status: 503, code: 10008 }))).toBe(true);
    expect(isJetStreamNotReady(named('JetStreamApiError', { status: 400, code: 10058 }))).toBe(false);
    expect(isJetStreamNotReady(named('PermissionViolationError'))).toBe(false);
    expect(isJetStreamNotReady('timeout')).toBe(false);
  });

  it('runs the step again while JetStream is not ready, then answers its result', async () => {
    let calls = 0;
    const result = await whenJetStreamAnswers(
      'events stream',
      async () => {
        calls += 1;
        if (calls < 3) throw named('TimeoutError');
        return 'made';
      },
      logger,
    );
    expect([result, calls]).toEqual(['made', 3]);
  });

  it('gives up at once on a refusal, and after its time on a JetStream that never answers', async () => {
    let refusals = 0;
    const refused = named('JetStreamApiError', { status: 400 });
    await expect(
      whenJetStreamAnswers(
        'events stream',
        () => {
          refusals += 1;
          return Promise.reject(refused);
        },
        logger,
      ),
    ).rejects.toBe(refused);
    expect(refusals).toBe(1);

    const silent = named('TimeoutError');
    await expect(whenJetStreamAnswers('events stream', () => Promise.reject(silent), logger, 300)).rejects.toBe(silent);
  });
});
