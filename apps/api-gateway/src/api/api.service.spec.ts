import { type ApiError, type Caller, type Scope } from '@crm/contracts';
import { assertScope } from './api.service';

const caller = (scopes: Scope[]): Caller => ({ account_id: 'a', user_id: 'u', role: 'user', auth_method: 'oauth', scopes });

function errorOf(fn: () => void): ApiError | undefined {
  try {
    fn();
  } catch (error) {
    return error as ApiError;
  }
  return undefined;
}

describe('assertScope', () => {
  it('lets crm read and write', () => {
    expect(errorOf(() => assertScope(caller(['crm']), 'write', false))).toBeUndefined();
    expect(errorOf(() => assertScope(caller(['crm']), 'read', false))).toBeUndefined();
  });

  it('lets crm.readonly only read, naming the scope a write needs', () => {
    expect(errorOf(() => assertScope(caller(['crm.readonly']), 'read', false))).toBeUndefined();
    const error = errorOf(() => assertScope(caller(['crm.readonly']), 'write', false));
    expect(error).toMatchObject({ errorName: 'no_permission_to_complete_action', http: 403 });
    expect(error?.message).toContain('crm');
  });

  it('lets mcp read everything and write only where the route allows it', () => {
    expect(errorOf(() => assertScope(caller(['mcp']), 'read', false))).toBeUndefined();
    expect(errorOf(() => assertScope(caller(['mcp']), 'write', true))).toBeUndefined();
    expect(errorOf(() => assertScope(caller(['mcp']), 'write', false))).toMatchObject({ errorName: 'no_permission_to_complete_action' });
  });

  it('refuses a token without any CRM scope', () => {
    expect(errorOf(() => assertScope(caller([]), 'read', false))).toMatchObject({ errorName: 'no_permission_to_complete_action' });
  });
});
