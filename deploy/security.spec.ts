// Static checks of the trust boundaries in deploy/ (decisions.md "NATS trust boundary",
// docs/threat-model.md): NATS users and their generated permissions, who holds which secret, Redis
// users, and NetworkPolicies that select existing pods and name ports those pods have.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { natsServerConfig, NATS_SERVICES, passwordVariableOf, RPC_CONSUMERS, verifyKeysVariableOf } from '@crm/messaging';
import type { IDeployment, IStatefulSet } from 'kubernetes-models/apps/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { INetworkPolicy, INetworkPolicyPeer, INetworkPolicyPort } from 'kubernetes-models/networking.k8s.io/v1';
import type { IConfigMap, IContainer, IPodTemplateSpec, ISecret } from 'kubernetes-models/v1';

import { renderOverlay } from './render';

type ILabelSelector = NonNullable<INetworkPolicy['spec']>['podSelector'];

// The production overlay as `kubectl apply -k` renders it (the development overlay changes no
// secret, user or policy; deploy/manifests.spec.ts checks both).
const docs = renderOverlay('production');
const ofKind = <T>(kind: string) => docs.filter((d) => d.kind === kind) as unknown as T[];
const deployments = ofKind<IDeployment>('Deployment');
const statefulSets = ofKind<IStatefulSet>('StatefulSet');
const jobs = ofKind<IJob>('Job');
const configMaps = ofKind<IConfigMap>('ConfigMap');
const secrets = ofKind<ISecret>('Secret');
const policies = ofKind<INetworkPolicy>('NetworkPolicy');
const named = <T extends { metadata?: { name?: string } }>(list: T[], name: string): T => {
  const found = list.find((o) => o.metadata?.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};
const config = named(configMaps, 'crm-config').data!;
const pods: Array<{ name: string; template: IPodTemplateSpec }> = [
  ...deployments.map((d) => ({ name: d.metadata!.name!, template: d.spec!.template })),
  ...statefulSets.map((s) => ({ name: s.metadata!.name!, template: s.spec!.template })),
  ...jobs.map((j) => ({ name: j.metadata!.name!, template: j.spec!.template })),
];
const main = (app: string): IContainer => named(deployments, app).spec!.template.spec!.containers.find((c) => c.name === app)!;
const containersOf = (app: string): IContainer[] => {
  const spec = named(deployments, app).spec!.template.spec!;
  return [...(spec.initContainers ?? []), ...spec.containers];
};
const SIGNERS = ['api-gateway', 'auth-server'];
const REDIS_USERS = { 'api-gateway': 'crm-gateway', 'auth-server': 'crm-auth' } as const;

/** Whether a label selector (matchLabels and In expressions) selects `labels`. */
function selects(selector: ILabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) => e.operator === 'In' && (e.values ?? []).includes(labels[e.key]));
  return byLabels && byExpressions;
}
const podsSelectedBy = (selector: ILabelSelector | undefined) => pods.filter((p) => selects(selector, p.template.metadata?.labels));
const hasPort = (pod: { template: IPodTemplateSpec }, port: string | number | undefined) =>
  [...(pod.template.spec!.initContainers ?? []), ...pod.template.spec!.containers]
    .flatMap((c) => c.ports ?? [])
    .some((p) => (typeof port === 'string' ? p.name === port : p.containerPort === port));

/** The pods an ingress rule admits on `port` of `app`, by peer kind. */
function ingressPeers(app: string, port: string | number): INetworkPolicyPeer[][] {
  const pod = pods.find((p) => p.name === app)!;
  const portNumber = pod.template.spec!.containers.flatMap((c) => c.ports ?? []).find((p) => p.name === port || p.containerPort === port);
  return policies
    .filter((p) => p.spec!.policyTypes?.includes('Ingress') && selects(p.spec!.podSelector, pod.template.metadata?.labels))
    .flatMap((p) => p.spec!.ingress ?? [])
    .filter((rule) => (rule.ports ?? []).some((p) => p.port === portNumber?.name || p.port === portNumber?.containerPort))
    .map((rule) => rule.from ?? []);
}

/** Every pod allowed to open connections to `port` (a number) outside the cluster's pods. */
function egressTo(port: number): string[] {
  return pods
    .filter((pod) =>
      policies
        .filter((p) => p.spec!.policyTypes?.includes('Egress') && selects(p.spec!.podSelector, pod.template.metadata?.labels))
        .flatMap((p) => p.spec!.egress ?? [])
        .some(
          (rule) => (rule.to ?? []).some((peer) => peer.ipBlock) && (rule.ports ?? []).some((p: INetworkPolicyPort) => p.port === port),
        ),
    )
    .map((pod) => pod.name)
    .sort();
}

describe('deploy/: NATS users', () => {
  const nats = named(statefulSets, 'nats').spec!.template.spec!;
  const server = nats.containers[0]!;

  it('runs nats-server with the nats.conf that libs/messaging generates (node scripts/nats-config.mjs), included by its configuration', () => {
    expect(named(configMaps, 'nats-config').data!['nats.conf']).toBe(natsServerConfig(config.CRM_NAMESPACE!));
    expect(server.args).toEqual(['--config', '/etc/nats/nats-server.conf']);
    expect(named(configMaps, 'nats-server').data!['nats-server.conf']).toMatch(/^include \.\/nats\.conf$/m);
    // No user, password or authorization is defined anywhere but in the generated file.
    const withoutComments = named(configMaps, 'nats-server')
      .data!['nats-server.conf']!.split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    expect(withoutComments).not.toMatch(/authorization|password|users|accounts/);
    const mount = server.volumeMounts!.find((m) => m.mountPath === '/etc/nats');
    const sources = nats.volumes!.find((v) => v.name === mount?.name)?.projected?.sources ?? [];
    expect(sources.map((source) => source.configMap?.name)).toEqual(['nats-server', 'nats-config']);
  });

  it("gives the server every service's password, and each service only its own, in its NATS_URL", () => {
    const users = named(secrets, 'crm-nats-users');
    expect(Object.keys(users.stringData!).sort()).toEqual(NATS_SERVICES.map(passwordVariableOf).sort());
    expect(server.envFrom).toEqual([{ secretRef: { name: 'crm-nats-users' } }]);
    const host = new URL(config.NATS_URL!).host;
    for (const app of NATS_SERVICES) {
      const env = main(app).env!;
      const password = env.findIndex((e) => e.name === 'NATS_PASSWORD');
      const url = env.findIndex((e) => e.name === 'NATS_URL');
      expect({ app, ref: env[password]?.valueFrom?.secretKeyRef }).toEqual({
        app,
        ref: { name: 'crm-nats-users', key: passwordVariableOf(app) },
      });
      // Kubernetes expands $(NATS_PASSWORD) only from variables defined before it.
      expect({ app, before: password < url, url: env[url]?.value }).toEqual({
        app,
        before: true,
        url: `nats://${app}:$(NATS_PASSWORD)@${host}`,
      });
    }
    for (const pod of pods)
      for (const c of pod.template.spec!.containers)
        expect({ pod: pod.name, c: c.name, whole: (c.envFrom ?? []).some((f) => f.secretRef?.name === 'crm-nats-users') }).toEqual({
          pod: pod.name,
          c: c.name,
          whole: pod.name === 'nats' && c.name === 'nats',
        });
  });
});

describe('deploy/: who holds which secret', () => {
  it('gives the request signing key to the gateway and the auth-server only, and each consumer its own verify key only', () => {
    for (const source of [...configMaps, ...secrets.filter((s) => s.metadata!.name !== 'crm-caller-signing-key')])
      expect(Object.keys({ ...(source as IConfigMap).data, ...(source as ISecret).stringData })).not.toContain('CALLER_SIGNING_KEY');
    // A consumer's key signs requests to it: a secret, never in a ConfigMap nor shared through envFrom.
    for (const source of configMaps) expect(Object.keys(source.data ?? {}).filter((k) => k.startsWith('CALLER_'))).toEqual([]);
    expect(Object.keys(named(secrets, 'crm-caller-verify-keys').stringData!).sort()).toEqual(
      RPC_CONSUMERS.map(verifyKeysVariableOf).sort(),
    );
    for (const app of NATS_SERVICES) {
      const env = main(app).env ?? [];
      const signing = env.find((e) => e.name === 'CALLER_SIGNING_KEY')?.valueFrom?.secretKeyRef;
      const verify = env.find((e) => e.name === 'CALLER_VERIFY_KEYS')?.valueFrom?.secretKeyRef;
      const consumer = RPC_CONSUMERS.find((c) => c === app);
      expect({ app, signing, verify }).toEqual({
        app,
        signing: SIGNERS.includes(app) ? { name: 'crm-caller-signing-key', key: 'CALLER_SIGNING_KEY' } : undefined,
        verify: consumer ? { name: 'crm-caller-verify-keys', key: verifyKeysVariableOf(consumer) } : undefined,
      });
      for (const c of containersOf(app))
        expect((c.envFrom ?? []).map((f) => f.secretRef?.name).filter((name) => name?.startsWith('crm-caller-'))).toEqual([]);
    }
  });

  it('gives each key of crm-secrets, key by key, only to the services that read it, and the whole Secret to no pod', () => {
    const holders = (key: string) =>
      pods
        .flatMap((pod) =>
          [...(pod.template.spec!.initContainers ?? []), ...pod.template.spec!.containers].flatMap((c) =>
            (c.env ?? [])
              .filter((e) => e.valueFrom?.secretKeyRef?.name === 'crm-secrets' && e.valueFrom.secretKeyRef.key === key)
              .map((e) => `${pod.name}/${c.name} as ${e.name}${e.valueFrom!.secretKeyRef!.optional ? ' (optional)' : ''}`),
          ),
        )
        .sort();
    expect(Object.keys(named(secrets, 'crm-secrets').stringData!).sort()).toEqual(['API_KEY_PEPPER', 'OPERATOR_TOKEN', 'STORAGE_SECRET']);
    expect(holders('API_KEY_PEPPER')).toEqual(['api-gateway/api-gateway as API_KEY_PEPPER', 'auth-server/auth-server as API_KEY_PEPPER']);
    // Optional: deleting the key turns the operator API off.
    expect(holders('OPERATOR_TOKEN')).toEqual(['auth-server/auth-server as OPERATOR_TOKEN (optional)']);
    // The two that sign and check the attachments' links (libs/storage).
    expect(holders('STORAGE_SECRET')).toEqual(['api-gateway/api-gateway as STORAGE_SECRET', 'crm-core/crm-core as STORAGE_SECRET']);
    for (const pod of pods)
      for (const c of [...(pod.template.spec!.initContainers ?? []), ...pod.template.spec!.containers])
        expect({ pod: pod.name, c: c.name, whole: (c.envFrom ?? []).map((f) => f.secretRef?.name).filter(Boolean) }).toEqual({
          pod: pod.name,
          c: c.name,
          whole: pod.name === 'nats' && c.name === 'nats' ? ['crm-nats-users'] : pod.name === 'crm-migrate' ? ['crm-migrator'] : [],
        });
  });

  it("gives crm-core its replica's URL as an optional key (unset: every read on the primary), and marks Redis as a cluster", () => {
    const replica = main('crm-core').env!.find((e) => e.name === 'DATABASE_REPLICA_URL');
    expect(replica?.valueFrom?.secretKeyRef).toEqual({ name: 'crm-database-users', key: 'CRM_DATABASE_REPLICA_URL', optional: true });
    expect(named(secrets, 'crm-database-users').stringData).toHaveProperty('CRM_DATABASE_REPLICA_URL');
    expect(config.REDIS_CLUSTER).toBe('true');
  });

  it('gives a Redis URL with its own ACL user to the two services that use Redis, and none to the others', () => {
    expect(named(secrets, 'crm-secrets').stringData).not.toHaveProperty('REDIS_URL');
    const acl = readFileSync(path.join(__dirname, 'redis', 'users.acl'), 'utf8')
      .trim()
      .split('\n');
    expect(acl[0]).toBe('user default off');
    for (const app of NATS_SERVICES) {
      const ref = main(app).env?.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef;
      const user = REDIS_USERS[app as keyof typeof REDIS_USERS];
      expect({ app, ref }).toEqual({
        app,
        ref: user ? { name: 'crm-redis-users', key: `REDIS_URL_${app.toUpperCase().replace(/-/g, '_')}` } : undefined,
      });
      if (user) expect(acl.find((line) => line.startsWith(`user ${user} on >`))).toMatch(/ resetkeys ~crm:/);
    }
    // The gateway reads the credential records but cannot write them.
    expect(acl.find((line) => line.startsWith('user crm-gateway '))).toMatch(/ %R~crm:auth:\* /);
  });
});

describe('deploy/: NetworkPolicies', () => {
  it('deny all ingress and egress in the namespace by default, DNS apart', () => {
    const deny = named(policies, 'default-deny').spec!;
    expect(deny).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const dns = named(policies, 'allow-dns').spec!;
    expect(dns.podSelector).toEqual({});
    expect(dns.egress![0]!.ports!.map((p) => p.port)).toEqual([53, 53]);
  });

  it('select existing pods and name ports those pods have', () => {
    for (const policy of policies) {
      const selected = podsSelectedBy(policy.spec!.podSelector);
      if (Object.keys(policy.spec!.podSelector).length > 0)
        expect({ policy: policy.metadata!.name, selected: selected.length > 0 }).toEqual({ policy: policy.metadata!.name, selected: true });
      for (const rule of policy.spec!.ingress ?? []) {
        for (const port of rule.ports ?? [])
          for (const pod of selected)
            expect({ policy: policy.metadata!.name, pod: pod.name, port: port.port, found: hasPort(pod, port.port) }).toEqual({
              policy: policy.metadata!.name,
              pod: pod.name,
              port: port.port,
              found: true,
            });
        for (const peer of rule.from ?? [])
          if (peer.podSelector && !peer.namespaceSelector) expect(podsSelectedBy(peer.podSelector).length).toBeGreaterThan(0);
      }
      for (const rule of policy.spec!.egress ?? [])
        for (const peer of rule.to ?? []) {
          if (!peer.podSelector || peer.namespaceSelector) continue;
          const targets = podsSelectedBy(peer.podSelector);
          expect(targets.length).toBeGreaterThan(0);
          for (const port of rule.ports ?? [])
            for (const target of targets)
              expect({ target: target.name, port: port.port, found: hasPort(target, port.port) }).toEqual({
                target: target.name,
                port: port.port,
                found: true,
              });
        }
    }
  });

  it('admit NATS clients from the four services only, and its monitor from the monitoring namespace', () => {
    const clients = ingressPeers('nats', 'client').flat();
    expect(clients.every((peer) => peer.podSelector && !peer.namespaceSelector && !peer.ipBlock)).toBe(true);
    expect(
      clients
        .flatMap((peer) => podsSelectedBy(peer.podSelector))
        .map((p) => p.name)
        .sort(),
    ).toEqual([...NATS_SERVICES].sort());
    for (const port of ['monitor', 'prom-metrics'])
      expect({ port, from: ingressPeers('nats', port).flat() }).toEqual({
        port,
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      });
  });

  it('admit the cluster routes between the NATS servers only, and let them reach one another there', () => {
    const peers = ingressPeers('nats', 'cluster').flat();
    expect(peers.length).toBeGreaterThan(0);
    for (const peer of peers) {
      expect(peer.namespaceSelector).toBeUndefined();
      expect(podsSelectedBy(peer.podSelector).map((p) => p.name)).toEqual(['nats']);
    }
    const egress = policies
      .filter((p) => p.spec!.policyTypes?.includes('Egress') && podsSelectedBy(p.spec!.podSelector).some((x) => x.name === 'nats'))
      .flatMap((p) => p.spec!.egress ?? []);
    expect(
      egress.some(
        (rule) =>
          (rule.ports ?? []).some((p) => p.port === 6222) &&
          (rule.to ?? []).some((t) => podsSelectedBy(t.podSelector).some((x) => x.name === 'nats')),
      ),
    ).toBe(true);
  });

  it("admit nobody on the auth-server's operator port (operators use kubectl port-forward)", () => {
    expect(ingressPeers('auth-server', 'operator')).toEqual([]);
  });

  it('admit anyone on the public ports of the gateway and the auth-server only; crm-core and the dispatcher have none', () => {
    expect(ingressPeers('api-gateway', 'http')).toEqual([[]]);
    expect(ingressPeers('auth-server', 'http')).toEqual([[]]);
    expect(ingressPeers('crm-core', 'http')).toEqual([]);
    expect(ingressPeers('webhook-dispatcher', 'http')).toEqual([]);
  });

  it('admit the metrics ports from the monitoring namespace only', () => {
    for (const app of NATS_SERVICES)
      expect({ app, from: ingressPeers(app, 'metrics').flat() }).toEqual({
        app,
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      });
  });

  it('let only the services that use them reach PostgreSQL and Redis', () => {
    expect(egressTo(5432)).toEqual(['auth-server', 'crm-core', 'crm-migrate', 'webhook-dispatcher']);
    expect(egressTo(6379)).toEqual(['api-gateway', 'auth-server']);
    // A rule on every port is the dispatcher's, to webhook receivers on the public internet only.
    const open = policies.flatMap((p) =>
      (p.spec!.egress ?? [])
        .filter((rule) => rule.ports === undefined)
        .map((rule) => ({ pods: podsSelectedBy(p.spec!.podSelector).map((x) => x.name), rule })),
    );
    expect(open.map((o) => o.pods)).toEqual([['webhook-dispatcher']]);
    for (const peer of open[0]!.rule.to!)
      expect(peer.ipBlock!.except).toEqual(
        expect.arrayContaining(
          peer.ipBlock!.cidr === '::/0' ? ['fc00::/7', 'fe80::/10'] : ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'],
        ),
      );
  });
});
