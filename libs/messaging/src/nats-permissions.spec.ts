import { API_ROUTES, Subjects } from '@crm/contracts';
import { parseNatsUrl, redactUrl } from './nats-connection';
import { natsAuthorizationConfig, natsPermissions, senderOf } from './nats-permissions';
import { consumerOf } from './rpc-consumers';

describe('NATS permissions', () => {
  const byUser = Object.fromEntries(natsPermissions('crm').map((p) => [p.user, p]));

  it('knows a sender and a consumer for every subject in libs/contracts', () => {
    for (const subject of Object.values(Subjects)) {
      expect(() => senderOf(subject)).not.toThrow();
      expect(() => consumerOf(subject)).not.toThrow();
    }
    expect(() => senderOf('crm.unknown.v1')).toThrow(/INTERNAL_SENDERS/);
    expect(() => consumerOf('billing.x.v1')).toThrow(/CONSUMER_BY_PREFIX/);
  });

  it('lets each request subject be published by its sender only and read by its consumer only', () => {
    for (const subject of Object.values(Subjects)) {
      const full = `crm.${subject}`;
      const publishers = Object.values(byUser).filter((p) => p.publish.includes(full));
      const subscribers = Object.values(byUser).filter((p) => p.subscribe.includes(full));
      expect({ subject, publishers: publishers.map((p) => p.user), subscribers: subscribers.map((p) => p.user) }).toEqual({
        subject,
        publishers: [senderOf(subject)],
        subscribers: [consumerOf(subject)],
      });
    }
    expect(byUser['api-gateway']!.publish).toEqual(expect.arrayContaining(API_ROUTES.map((r) => `crm.${r.subject}`)));
    expect(byUser['api-gateway']!.publish).not.toContain(`crm.${Subjects.UsersProvision}`);
  });

  it('uses no wildcard but for inboxes, events and acknowledgements, each under its owner', () => {
    for (const p of Object.values(byUser))
      for (const subject of [...p.publish, ...p.subscribe].filter((s) => /[*>]/.test(s)))
        expect([p.user, subject]).toEqual([
          p.user,
          expect.stringMatching(
            new RegExp(
              `^(_INBOX\\.${p.user}\\.>|crm\\.events\\.>|\\$JS\\.(API\\.CONSUMER\\.CREATE|ACK)\\.crm_EVENTS\\.webhook-dispatcher\\.>)$`,
            ),
          ),
        ]);
    expect(byUser['crm-core']!.publish).toContain('crm.events.>');
    expect(byUser['webhook-dispatcher']!.publish).not.toContain('crm.events.>');
    expect(byUser['api-gateway']!.allowResponses).toBe(false);
    expect(byUser['crm-core']!.allowResponses).toBe(true);
  });

  it('writes one user per service whose password comes from the environment', () => {
    const config = natsAuthorizationConfig('crm');
    expect(config.match(/user: "/g)).toHaveLength(4);
    expect(config).toContain('password: $NATS_PASSWORD_API_GATEWAY');
    expect(config).toContain('password: $NATS_PASSWORD_WEBHOOK_DISPATCHER');
  });

  it('reads the NATS user and password from NATS_URL and keeps them out of the server list and logs', () => {
    expect(parseNatsUrl('nats://nats:4222')).toEqual({ servers: ['nats://nats:4222'] });
    expect(parseNatsUrl('nats://crm-core:p%40ss:w@a:4222, nats://b:4222')).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'crm-core',
      pass: 'p@ss:w',
      inboxPrefix: '_INBOX.crm-core',
    });
    expect(() => parseNatsUrl('nats://a.b:x@host:4222')).toThrow(/user name/);
    expect(redactUrl('nats://crm-core:secret@nats:4222')).toBe('nats://[redacted]@nats:4222');
  });
});
