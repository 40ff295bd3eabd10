import { outcomeOfPacket } from './rpc-outcome';

describe('outcomeOfPacket', () => {
  it('classifies replies by the HTTP status of their error name: 4xx the caller, 5xx the service', () => {
    expect(outcomeOfPacket({ id: '1', response: { ok: true, data: {} }, isDisposed: true })).toEqual({ outcome: 'ok' });
    expect(outcomeOfPacket({ response: { ok: false, error: { error_name: 'resource_not_found' } } })).toEqual({
      outcome: 'client_error',
      errorName: 'resource_not_found',
    });
    expect(outcomeOfPacket({ response: { ok: false, error: { error_name: 'service_unavailable' } } })).toEqual({
      outcome: 'server_error',
      errorName: 'service_unavailable',
    });
  });

  it('counts a handler that failed without a reply, and an unknown error name, as internal_server_error (bounded labels)', () => {
    expect(outcomeOfPacket({ err: new Error('x') })).toEqual({ outcome: 'server_error', errorName: 'internal_server_error' });
    expect(outcomeOfPacket({ response: { ok: false, error: { error_name: 'made_up_by_someone' } } })).toEqual({
      outcome: 'server_error',
      errorName: 'internal_server_error',
    });
  });
});
