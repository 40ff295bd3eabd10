import { Webhook } from 'standardwebhooks';
import { signDelivery } from './delivery-signature';

describe('Standard Webhooks signature', () => {
  const current = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const previous = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const body = JSON.stringify({ type: 'contact', reason: 'created', timestamp: 1, secretkey: '', data: { contact: { id: 'x' } } });

  it('is verified by the standardwebhooks package with either key during a rotation', () => {
    const ts = Math.floor(Date.now() / 1000);
    const signature = signDelivery('msg1', ts, body, [current, previous]);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg1', 'webhook-timestamp': String(ts), 'webhook-signature': signature };
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification when the body, id or key differ', () => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signDelivery('msg1', ts, body, [current]),
    };
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(current).verify(body, { ...headers, 'webhook-id': 'msg2' })).toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).toThrow();
  });
});
