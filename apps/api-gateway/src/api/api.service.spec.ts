import { API_ROUTES, ApiError, ErrorName, Subjects, type Caller, type Scope } from '@crm/contracts';
import { assertScope, writeOutcomeUnknown } from './api.service';

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

describe('writeOutcomeUnknown', () => {
  const route = (subject: string) => API_ROUTES.find((r) => r.subject === subject)!;
  const noAnswer = new ApiError(ErrorName.ServiceUnavailable, 'The service did not answer in time; retry shortly');
  const message = (subject: string, keyed: boolean) => (writeOutcomeUnknown(noAnswer, route(subject), keyed) as ApiError).message;

  it('says a write without an answer may have been applied, and how to retry it safely', () => {
    expect(message(Subjects.ContactsCreate, false)).toMatch(/may have been applied.*send an Idempotency-Key header/);
    expect(message(Subjects.ContactsCreate, true)).toMatch(/may have been applied.*Retry with the same Idempotency-Key/);
    // auth-server's write keeps the gateway's record alone: a retry may write again.
    expect(message(Subjects.ApiKeyRotate, true)).toMatch(/may have been applied.*Read the record/);
    expect(message(Subjects.ContactsPatch, false)).toMatch(/may have been applied.*Read the record/);
    expect((writeOutcomeUnknown(noAnswer, route(Subjects.ContactsCreate), false) as ApiError).http).toBe(503);
  });

  it('leaves any other error as it is', () => {
    const other = new ApiError(ErrorName.Conflict, 'no');
    expect(writeOutcomeUnknown(other, route(Subjects.ContactsCreate), false)).toBe(other);
  });
});
