import { ErrorName, type CreateWebhookRequest } from '@crm/contracts';
import { signingKey } from '../deliveries/delivery-signature';
import { assertWebhookAllowed, newSigningSecret, webhookLimitReached, webhookWrite } from './webhook.rules';

const request = (over: Partial<CreateWebhookRequest> = {}): CreateWebhookRequest => ({
  name: 'Hook',
  hook_url: 'https://hooks.example.com/in',
  secretkey: '',
  types: ['contact', 'deal'],
  status_id: null,
  active: true,
  ...over,
});

describe('webhook rules', () => {
  it('makes a Standard Webhooks secret of 32 random bytes, a new one each time', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKey(a)).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('refuses an entity listed twice, naming the field', () => {
    expect(() => assertWebhookAllowed(request({ types: ['contact', 'contact'] }), false)).toThrow(
      expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { types: 'lists each entity at most once' } }),
    );
    expect(() => assertWebhookAllowed(request(), false)).not.toThrow();
  });

  it('refuses a receiver at a literal private address unless private receivers are allowed', () => {
    const internal = request({ hook_url: 'http://10.0.0.5/hook' });
    expect(() => assertWebhookAllowed(internal, false)).toThrow(
      expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { hook_url: expect.any(String) } }),
    );
    expect(() => assertWebhookAllowed(internal, true)).not.toThrow();
  });

  it('names the cap and what to do in the 400 of one webhook too many', () => {
    expect(webhookLimitReached(25)).toMatchObject({
      errorName: ErrorName.InvalidRequestData,
      message: 'This account already has the maximum of 25 webhooks',
      errors: { webhooks: 'an account can have at most 25 webhooks; delete one before registering another' },
    });
  });

  it('writes the status filter in lower case, and none as null', () => {
    expect(webhookWrite(request({ status_id: 'ABCDEF0123456789ABCDEF01' }))).toEqual({
      name: 'Hook',
      hook_url: 'https://hooks.example.com/in',
      secretkey: '',
      types: ['contact', 'deal'],
      status_id: 'abcdef0123456789abcdef01',
      active: true,
    });
    expect(webhookWrite(request({ status_id: undefined })).status_id).toBeNull();
  });
});
