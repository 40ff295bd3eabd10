import type { RpcReply } from '@crm/contracts';
import { outcomeOfReply } from './rpc-outcome';

const failure = (name: string) => ({ ok: false, error: { error_name: name, error_message: '', errors: {} } }) as unknown as RpcReply;

describe('outcomeOfReply', () => {
  it('tells success, client errors and server errors apart', () => {
    expect(outcomeOfReply({ ok: true, data: {} })).toEqual({ outcome: 'ok' });
    expect(outcomeOfReply(failure('resource_not_found'))).toEqual({ outcome: 'client_error', errorName: 'resource_not_found' });
    expect(outcomeOfReply(failure('service_unavailable'))).toEqual({ outcome: 'server_error', errorName: 'service_unavailable' });
  });

  it('names an unknown error internal_server_error (a bounded label)', () => {
    expect(outcomeOfReply(failure('made_up_by_someone'))).toEqual({ outcome: 'server_error', errorName: 'internal_server_error' });
  });
});
