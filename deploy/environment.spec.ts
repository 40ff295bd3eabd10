// deploy/environment.ts: the environment the kubelet would give each container, and the generated
// Secret values that stand in for the placeholders.
import { deriveConsumerKey, parseSigningKey } from '@crm/messaging';
import { environmentOf, expandReferences, generateSecretValues, secretKeysOf, workloadEnvironments } from './environment';
import { OVERLAYS } from './render';

describe('deploy/environment.ts', () => {
  it('expands $(VAR) from earlier variables as the kubelet does: $$ is a literal $, an unknown reference stays', () => {
    expect(expandReferences('nats://a:$(P)@n:4222', { P: 'secret' })).toBe('nats://a:secret@n:4222');
    expect(expandReferences('$$(P) $(UNKNOWN) $(P)', { P: 'x' })).toBe('$(P) $(UNKNOWN) x');
  });

  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    const secrets = generateSecretValues(overlay, { urls: { CRM_DATABASE_URL: 'postgres://crm_core:pw@127.0.0.1:5432/crm' } });
    const all = workloadEnvironments(overlay, secrets);

    it('lists every container of the Deployments, the Job and the StatefulSet, with the service each runs', () => {
      const of = (kind: string) => all.filter((w) => w.kind === kind).map((w) => [w.name, w.container, w.service, w.migrate]);
      expect(of('Deployment').sort()).toEqual([
        ['api-gateway', 'api-gateway', 'api-gateway', false],
        ['auth-server', 'auth-server', 'auth-server', false],
        ['crm-core', 'crm-core', 'crm-core', false],
        ['webhook-dispatcher', 'webhook-dispatcher', 'webhook-dispatcher', false],
      ]);
      expect(of('Job')).toEqual([
        ['crm-migrate', 'auth-server', 'auth-server', true],
        ['crm-migrate', 'crm-core', 'crm-core', true],
        ['crm-migrate', 'webhook-dispatcher', 'webhook-dispatcher', true],
      ]);
      expect(of('StatefulSet').map(([, container, service]) => [container, service])).toContainEqual(['nats', undefined]);
    });

    it('takes the ConfigMap, then Secret values, and expands NATS_URL with the NATS password', () => {
      const core = environmentOf(overlay, 'crm-core', 'crm-core', secrets);
      const password = secrets['crm-nats-users']!.NATS_PASSWORD_CRM_CORE!;
      expect(password).toMatch(/^p[0-9a-f]{64}$/);
      expect(core.env.NATS_URL).toBe(`nats://crm-core:${password}@nats:4222`);
      expect(core.env.DATABASE_URL).toBe('postgres://crm_core:pw@127.0.0.1:5432/crm');
      expect(core.env.CRM_NAMESPACE).toBe('crm');
      expect(core.env.SERVICE_INSTANCE).toBe('crm-core-0');
      expect(core.env.EVENTS_STREAM_REPLICAS).toBe(overlay === 'production' ? '3' : '1');
      expect(core.secretKeys).toContainEqual({ secret: 'crm-database-users', key: 'CRM_DATABASE_URL', as: 'DATABASE_URL' });
    });

    it("without secretValues, gives the rendered Secret's placeholders", () => {
      const core = workloadEnvironments(overlay).find((w) => w.name === 'crm-core' && w.container === 'crm-core')!;
      expect(core.env.DATABASE_URL).toContain('REPLACE_ME');
    });

    it('generates caller keys derived like scripts/caller-keys.mjs, and a value for every non-optional key', () => {
      const signing = secrets['crm-caller-signing-key']!.CALLER_SIGNING_KEY!;
      expect(parseSigningKey(signing)).toHaveLength(32);
      expect(secrets['crm-caller-verify-keys']!.CALLER_VERIFY_KEYS_CRM_CORE).toBe(deriveConsumerKey(signing, 'crm-core'));
      // An optional URL (the replica's) is left out unless given; an optional secret (OPERATOR_TOKEN) is made.
      for (const { secret, key, optional } of secretKeysOf(overlay))
        expect({ secret, key, set: secrets[secret]?.[key] !== undefined }).toEqual({
          secret,
          key,
          set: !(optional && key.endsWith('_URL')),
        });
      expect(secretKeysOf(overlay).find((k) => k.key === 'OPERATOR_TOKEN')?.optional).toBe(true);
      expect(secretKeysOf(overlay).find((k) => k.key === 'CRM_DATABASE_REPLICA_URL')?.optional).toBe(overlay === 'production');
      // Another draw is another secret.
      expect(generateSecretValues(overlay)['crm-caller-signing-key']!.CALLER_SIGNING_KEY).not.toBe(signing);
    });

    it('refuses a required Secret key the values lack, as the kubelet does, naming the container and the key', () => {
      const { CRM_DATABASE_URL: _dropped, ...rest } = secrets['crm-database-users']!;
      expect(() => workloadEnvironments(overlay, { ...secrets, 'crm-database-users': rest })).toThrow(
        /Deployment crm-core, container crm-core: DATABASE_URL refers to key CRM_DATABASE_URL of Secret crm-database-users/,
      );
    });
  });
});
