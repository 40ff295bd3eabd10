// Static checks of the deployment files: each kustomize overlay of deploy/k8s (development,
// production) is rendered as `kubectl apply -k` would (deploy/render.ts: needs kubectl or
// kustomize), every object is schema-valid (kubernetes-models) and consistent with the others and
// with the services (ports, probes, config variables, digests, the migration Job, the Ingress),
// and docker-compose.yml runs the same topology.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Deployment, StatefulSet, type IDeployment, type IStatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job, type IJob } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy, type IIngress, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Namespace,
  Secret,
  Service,
  type IConfigMap,
  type IContainer,
  type INamespace,
  type IPodSpec,
  type IPodTemplateSpec,
  type IProbe,
  type ISecret,
  type IService,
} from 'kubernetes-models/v1';
import { deriveConsumerKey, verifyKeysVariableOf } from '@crm/messaging';
import { parse } from 'yaml';
import { K8S_DIR, OVERLAYS, renderOverlay, type K8sObject, type Overlay } from './render';

const ROOT = path.resolve(__dirname, '..');
const NAMESPACE = 'crm';
const IMAGE = 'crm-platform';
/** name[:tag]@sha256:<64 hex>: every image is pinned by digest. */
const PINNED = /^[a-z0-9][a-z0-9./_-]*(:[\w][\w.-]*)?@sha256:[a-f0-9]{64}$/;

/** The four services: how each is told its HTTP port, the port, its METRICS_PORT, its schema's URL key. */
const APPS = {
  'api-gateway': { portVar: 'PORT', port: 3000, metricsPort: 9460, databaseKey: undefined, autoscaled: true },
  'auth-server': { portVar: 'AUTH_PORT', port: 3001, metricsPort: 9461, databaseKey: 'AUTH_DATABASE_URL', autoscaled: false },
  'crm-core': { portVar: 'HTTP_PORT', port: 3002, metricsPort: 9462, databaseKey: 'CRM_DATABASE_URL', autoscaled: true },
  'webhook-dispatcher': { portVar: 'HTTP_PORT', port: 3003, metricsPort: 9463, databaseKey: 'WEBHOOKS_DATABASE_URL', autoscaled: true },
} as const;
type AppName = keyof typeof APPS;
const APP_NAMES = Object.keys(APPS) as AppName[];
/** Deployment order of the migrations (tools/migrate.mjs). */
const MIGRATION_ORDER: AppName[] = ['auth-server', 'crm-core', 'webhook-dispatcher'];
/** The auth-server's internal operator API port (OPERATOR_PORT). */
const OPERATOR_PORT = 9470;

/** apiVersion/kind -> schema validation with kubernetes-models (throws on the first problem). */
const VALIDATORS: Record<string, (doc: K8sObject) => void> = {
  'v1/Namespace': (d) => new Namespace(d as unknown as INamespace).validate(),
  'v1/ConfigMap': (d) => new ConfigMap(d as unknown as IConfigMap).validate(),
  'v1/Secret': (d) => new Secret(d as unknown as ISecret).validate(),
  'v1/Service': (d) => new Service(d as unknown as IService).validate(),
  'apps/v1/Deployment': (d) => new Deployment(d as unknown as IDeployment).validate(),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d as unknown as IStatefulSet).validate(),
  'batch/v1/Job': (d) => new Job(d as unknown as IJob).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d as unknown as IHorizontalPodAutoscaler).validate(),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d as unknown as IPodDisruptionBudget).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as unknown as INetworkPolicy).validate(),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d as unknown as IIngress).validate(),
};

// ---- helpers ----------------------------------------------------------------------------------

const named = <T extends { metadata?: { name?: string } }>(list: T[], name: string): T | undefined =>
  list.find((o) => o.metadata?.name === name);
const allContainers = (spec: IPodSpec): IContainer[] => [...(spec.initContainers ?? []), ...spec.containers];
const isSubset = (sub: Record<string, string> | undefined, sup: Record<string, string> | undefined): boolean =>
  sub !== undefined && Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);
/** The containerPort a probe or Service targetPort points at (by name or number), if any. */
const findPort = (containers: IContainer[], port: string | number | undefined) =>
  containers.flatMap((c) => c.ports ?? []).find((p) => (typeof port === 'string' ? p.name === port : p.containerPort === port));
const probePath = (probe: IProbe | undefined): string | undefined => probe?.httpGet?.path;

/** One rendered overlay, by kind. */
function manifestsOf(overlay: Overlay) {
  const docs = renderOverlay(overlay);
  const ofKind = <T>(kind: string): T[] => docs.filter((d) => d.kind === kind) as unknown as T[];
  const deployments = ofKind<IDeployment>('Deployment');
  const statefulSets = ofKind<IStatefulSet>('StatefulSet');
  const jobs = ofKind<IJob>('Job');
  const m = {
    docs,
    deployments,
    statefulSets,
    jobs,
    services: ofKind<IService>('Service'),
    configMaps: ofKind<IConfigMap>('ConfigMap'),
    secrets: ofKind<ISecret>('Secret'),
    hpas: ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler'),
    pdbs: ofKind<IPodDisruptionBudget>('PodDisruptionBudget'),
    ingresses: ofKind<IIngress>('Ingress'),
    workloads: [
      ...deployments.map((d) => ({ kind: 'Deployment', name: d.metadata!.name!, template: d.spec!.template })),
      ...statefulSets.map((s) => ({ kind: 'StatefulSet', name: s.metadata!.name!, template: s.spec!.template })),
      ...jobs.map((j) => ({ kind: 'Job', name: j.metadata!.name!, template: j.spec!.template })),
    ] as Array<{ kind: string; name: string; template: IPodTemplateSpec }>,
  };
  const podSpecOf = (app: string): IPodSpec => {
    const deployment = named(deployments, app);
    if (!deployment) throw new Error(`no Deployment ${app}`);
    return deployment.spec!.template.spec!;
  };
  const mainContainer = (app: string): IContainer => {
    const container = podSpecOf(app).containers.find((c) => c.name === app);
    if (!container) throw new Error(`Deployment ${app} has no container named ${app}`);
    return container;
  };
  /** The value a container sees for `name`: its own env wins over envFrom (ConfigMaps, then Secrets in order). */
  const resolveEnv = (container: IContainer, name: string): string | undefined => {
    const own = container.env?.find((e) => e.name === name);
    if (own)
      return (
        own.value ??
        (own.valueFrom?.secretKeyRef ? `secret:${own.valueFrom.secretKeyRef.name}/${own.valueFrom.secretKeyRef.key}` : undefined)
      );
    let value: string | undefined;
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) value = named(m.configMaps, source.configMapRef.name!)?.data?.[name] ?? value;
      if (source.secretRef) value = named(m.secrets, source.secretRef.name!)?.stringData?.[name] ?? value;
    }
    return value;
  };
  return { ...m, podSpecOf, mainContainer, resolveEnv };
}

/** Every variable the services read: the property names of their config classes. */
function configVariables(): Set<string> {
  const files = [
    path.join(ROOT, 'libs/config/src/base.config.ts'),
    // settings mixed into the config of the services that store files
    path.join(ROOT, 'libs/storage/src/storage.settings.ts'),
    ...readdirSync(path.join(ROOT, 'apps')).flatMap((app) => {
      const dir = path.join(ROOT, 'apps', app, 'src', 'config');
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
            .map((f) => path.join(dir, f))
        : [];
    }),
  ];
  const names = new Set<string>();
  for (const file of files)
    for (const m of readFileSync(file, 'utf8').matchAll(/^[ \t]+(?:(?:override|readonly)[ \t]+)*([A-Z][A-Z0-9_]*)\??[ \t]*[:=]/gm))
      names.add(m[1]!);
  return names;
}

function preStopSeconds(container: IContainer): number {
  const command = container.lifecycle?.preStop?.exec?.command;
  if (!command) return 0;
  expect(command[0]).toBe('sleep');
  return Number(command[1]);
}

// ---- Kubernetes -------------------------------------------------------------------------------

describe('deploy/k8s/base', () => {
  it('lists exactly the files of deploy/k8s/base in its kustomization.yaml, the Namespace first', () => {
    const dir = path.join(K8S_DIR, 'base');
    const kustomization = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as {
      apiVersion: string;
      kind: string;
      namespace?: string;
      resources: string[];
    };
    expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.namespace).toBe(NAMESPACE);
    const files = readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
      .sort();
    expect([...kustomization.resources].sort()).toEqual(files);
    expect(kustomization.resources[0]).toBe('namespace.yaml');
  });

  it('has exactly the overlays development and production, each on the base', () => {
    expect(readdirSync(path.join(K8S_DIR, 'overlays')).sort()).toEqual([...OVERLAYS].sort());
    for (const overlay of OVERLAYS) {
      const k = parse(readFileSync(path.join(K8S_DIR, 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
      expect(k.resources).toContain('../../base');
    }
  });
});

describe.each(OVERLAYS)('deploy/k8s/overlays/%s, rendered', (overlay) => {
  const m = manifestsOf(overlay);
  const { deployments, statefulSets, services, configMaps, secrets, hpas, pdbs, workloads, jobs, ingresses } = m;

  it('renders Kubernetes objects, each named once per kind, all in namespace crm', () => {
    expect(m.docs.length).toBeGreaterThan(20);
    const keys = m.docs.map((d) => `${d.kind}/${d.metadata.name}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(named(m.docs, NAMESPACE)?.kind).toBe('Namespace');
    for (const doc of m.docs)
      if (doc.kind !== 'Namespace')
        expect({ object: `${doc.kind}/${doc.metadata.name}`, ns: doc.metadata.namespace }).toEqual({
          object: `${doc.kind}/${doc.metadata.name}`,
          ns: NAMESPACE,
        });
  });

  it('validates every object against the Kubernetes schema', () => {
    for (const doc of m.docs) {
      const validate = VALIDATORS[`${doc.apiVersion}/${doc.kind}`];
      if (!validate) throw new Error(`no validator for ${doc.apiVersion} ${doc.kind}: add it to VALIDATORS (or fix the apiVersion)`);
      expect({
        object: `${doc.kind}/${doc.metadata.name}`,
        problem: ((): string | undefined => {
          try {
            validate(doc);
            return undefined;
          } catch (error) {
            return (error as Error).message;
          }
        })(),
      }).toEqual({ object: `${doc.kind}/${doc.metadata.name}`, problem: undefined });
    }
  });

  it('pins every image by digest (name:tag@sha256:...)', () => {
    const images = workloads.flatMap((w) =>
      allContainers(w.template.spec!).map((c) => ({ where: `${w.kind}/${w.name}/${c.name}`, image: c.image })),
    );
    expect(images.length).toBeGreaterThan(8);
    for (const { where, image } of images)
      expect({ where, image, pinned: PINNED.test(image ?? '') }).toEqual({ where, image, pinned: true });
  });

  it('has a Deployment, a Service and a PodDisruptionBudget for each of the four services', () => {
    for (const app of APP_NAMES)
      expect({ app, deployment: !!named(deployments, app), service: !!named(services, app), pdb: !!named(pdbs, app) }).toEqual({
        app,
        deployment: true,
        service: true,
        pdb: true,
      });
  });

  it(
    overlay === 'production'
      ? 'autoscales api-gateway, crm-core and webhook-dispatcher (no replicas field), and runs two auth-servers'
      : 'runs one replica of each service, with no autoscaler',
    () => {
      for (const app of APP_NAMES) {
        const hpa = hpas.find((h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === app);
        const replicas = named(deployments, app)!.spec!.replicas;
        if (overlay !== 'production') {
          expect({ app, hpa: !!hpa, replicas }).toEqual({ app, hpa: false, replicas: 1 });
        } else if (APPS[app].autoscaled) {
          expect({ app, hpa: !!hpa, replicas }).toEqual({ app, hpa: true, replicas: undefined });
          expect(hpa!.spec!.scaleTargetRef.apiVersion).toBe('apps/v1');
          expect(hpa!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
          expect(hpa!.spec!.maxReplicas).toBeGreaterThan(hpa!.spec!.minReplicas!);
        } else {
          expect({ app, hpa: !!hpa, replicas }).toEqual({ app, hpa: false, replicas: 2 });
        }
      }
      for (const hpa of hpas) expect(named(deployments, hpa.spec!.scaleTargetRef.name)).toBeDefined();
    },
  );

  it('points every PodDisruptionBudget at one workload, with maxUnavailable 1 (NATS included)', () => {
    for (const pdb of pdbs) {
      const targets = workloads.filter((w) => isSubset(pdb.spec!.selector?.matchLabels, w.template.metadata?.labels));
      expect({
        pdb: pdb.metadata!.name,
        targets: targets.map((t) => t.name),
        maxUnavailable: pdb.spec!.maxUnavailable,
        minAvailable: pdb.spec!.minAvailable,
      }).toEqual({
        pdb: pdb.metadata!.name,
        targets: [pdb.metadata!.name],
        maxUnavailable: 1,
        minAvailable: undefined,
      });
    }
    expect(named(pdbs, 'nats')).toBeDefined();
  });

  it('selects each Service to exactly one workload, whose containers have every target port', () => {
    for (const service of services) {
      const name = service.metadata!.name!;
      const targets = workloads.filter((w) => isSubset(service.spec!.selector, w.template.metadata?.labels));
      expect({ service: name, targets: targets.length }).toEqual({ service: name, targets: 1 });
      const containers = targets[0]!.template.spec!.containers;
      for (const port of service.spec!.ports ?? []) {
        const target = port.targetPort ?? port.port;
        expect({ service: name, port: port.name, found: !!findPort(containers, target) }).toEqual({
          service: name,
          port: port.name,
          found: true,
        });
      }
    }
  });

  it('publishes no metrics, exporter or operator port on any Service', () => {
    for (const service of services) {
      const target = workloads.find((w) => isSubset(service.spec!.selector, w.template.metadata?.labels))!;
      for (const port of service.spec!.ports ?? []) {
        const container = findPort(target.template.spec!.containers, port.targetPort ?? port.port);
        expect({ service: service.metadata!.name, port: container?.name }).not.toEqual({
          service: service.metadata!.name,
          port: expect.stringMatching(/^(metrics|prom-metrics|operator)$/),
        });
        expect([9460, 9461, 9462, 9463, OPERATOR_PORT, 7777]).not.toContain(container?.containerPort);
      }
    }
  });

  it('matches every workload selector to its own pod template labels', () => {
    for (const w of [...deployments, ...statefulSets])
      expect({ name: w.metadata!.name, matches: isSubset(w.spec!.selector.matchLabels, w.spec!.template.metadata?.labels) }).toEqual({
        name: w.metadata!.name,
        matches: true,
      });
  });

  it('defines every ConfigMap and Secret that a container reads', () => {
    for (const { name, template } of workloads)
      for (const c of allContainers(template.spec!)) {
        for (const source of c.envFrom ?? []) {
          const ref = source.configMapRef?.name ?? source.secretRef?.name;
          const found = source.configMapRef ? !!named(configMaps, ref!) : !!named(secrets, ref!);
          expect({ container: `${name}/${c.name}`, ref, found }).toEqual({ container: `${name}/${c.name}`, ref, found: true });
        }
        for (const e of c.env ?? []) {
          const cm = e.valueFrom?.configMapKeyRef;
          const sec = e.valueFrom?.secretKeyRef;
          if (cm) expect(named(configMaps, cm.name!)?.data?.[cm.key]).toBeDefined();
          if (sec)
            expect({ ref: sec, found: named(secrets, sec.name!)?.stringData?.[sec.key] !== undefined }).toEqual({ ref: sec, found: true });
        }
      }
  });

  it('configures only variables the services read', () => {
    const known = configVariables();
    expect([...known]).toEqual(
      expect.arrayContaining([
        'NATS_URL',
        'DATABASE_URL',
        'PORT',
        'AUTH_PORT',
        'OPERATOR_PORT',
        'EVENTS_STREAM_REPLICAS',
        'API_KEY_PEPPER',
      ]),
    );
    const crmPods = workloads.filter((w) => w.name !== 'nats');
    const loaded = new Set(
      crmPods.flatMap((w) =>
        allContainers(w.template.spec!).flatMap((c) => (c.envFrom ?? []).map((f) => f.configMapRef?.name ?? f.secretRef?.name)),
      ),
    );
    const keys = [
      ...configMaps
        .filter((c) => loaded.has(c.metadata!.name))
        .flatMap((c) => Object.keys(c.data ?? {}).map((k) => `ConfigMap ${c.metadata!.name}: ${k}`)),
      ...secrets
        .filter((s) => loaded.has(s.metadata!.name))
        .flatMap((s) => Object.keys({ ...s.data, ...s.stringData }).map((k) => `Secret ${s.metadata!.name}: ${k}`)),
      // APP picks the service in the image's entrypoint; NODE_OPTIONS is Node's own; NATS_PASSWORD is
      // only expanded into NATS_URL (deploy/security.spec.ts).
      ...crmPods.flatMap((w) =>
        allContainers(w.template.spec!).flatMap((c) =>
          (c.env ?? [])
            .filter((e) => !['APP', 'NODE_OPTIONS', 'NATS_PASSWORD'].includes(e.name))
            .map((e) => `${w.name}/${c.name}: ${e.name}`),
        ),
      ),
    ];
    expect(keys.filter((k) => !known.has(k.split(': ')[1]!))).toEqual([]);
  });

  it('ships only placeholder secrets, as stringData', () => {
    expect(Object.keys(named(secrets, 'crm-secrets')?.stringData ?? {})).toEqual(
      expect.arrayContaining(['API_KEY_PEPPER', 'OPERATOR_TOKEN', 'STORAGE_SECRET']),
    );
    for (const s of secrets) {
      expect({ secret: s.metadata!.name, data: s.data }).toEqual({ secret: s.metadata!.name, data: undefined });
      for (const [key, value] of Object.entries(s.stringData ?? {}))
        expect({ key, value }).toEqual({ key, value: expect.stringContaining('REPLACE_ME') });
    }
  });

  it(`sets EVENTS_STREAM_REPLICAS to ${overlay === 'production' ? 3 : 1}, within the NATS cluster's size`, () => {
    const replicas = Number(named(configMaps, 'crm-config')!.data!.EVENTS_STREAM_REPLICAS);
    expect(replicas).toBe(overlay === 'production' ? 3 : 1);
    expect(replicas).toBeLessThanOrEqual(named(statefulSets, 'nats')!.spec!.replicas!);
  });

  describe('the migration Job', () => {
    const job = named(jobs, 'crm-migrate');

    it('migrates the three schemas in deployment order, each with the shared image and APP set', () => {
      expect(job).toBeDefined();
      const spec = job!.spec!.template.spec!;
      const steps = allContainers(spec);
      expect(steps.map((c) => c.env?.find((e) => e.name === 'APP')?.value)).toEqual(MIGRATION_ORDER);
      // The last step is the Job's container: the Job completes when all three did.
      expect(spec.containers.map((c) => c.name)).toEqual([MIGRATION_ORDER.at(-1)]);
      for (const c of steps) {
        expect({ step: c.name, args: c.args, command: c.command, image: c.image?.split('@')[0] }).toEqual({
          step: c.name,
          args: ['migrate'],
          command: undefined,
          image: m.mainContainer('crm-core').image!.split('@')[0],
        });
        expect(c.image).toBe(m.mainContainer('crm-core').image);
      }
      expect(spec.restartPolicy).toBe('Never');
      expect(job!.spec!.ttlSecondsAfterFinished).toBeGreaterThan(0);
      expect(job!.spec!.backoffLimit).toBeGreaterThan(0);
    });

    it("runs with the migrator's own credentials only: crm-config and crm-migrator, no service secret", () => {
      for (const c of allContainers(job!.spec!.template.spec!)) {
        expect(c.envFrom).toEqual([{ configMapRef: { name: 'crm-config' } }, { secretRef: { name: 'crm-migrator' } }]);
        expect(c.env?.filter((e) => e.valueFrom)).toEqual([]);
      }
      expect(Object.keys(named(secrets, 'crm-migrator')!.stringData!)).toEqual(['DATABASE_URL']);
      // Nobody else reads the migrator's Secret.
      for (const w of workloads.filter((x) => x.name !== 'crm-migrate'))
        for (const c of allContainers(w.template.spec!)) {
          expect((c.envFrom ?? []).map((f) => f.secretRef?.name)).not.toContain('crm-migrator');
          expect((c.env ?? []).map((e) => e.valueFrom?.secretKeyRef?.name)).not.toContain('crm-migrator');
        }
    });
  });

  describe('the Ingress', () => {
    it('exposes only /api/v3 on the gateway and /oauth, /.well-known on the auth-server, by their http ports', () => {
      expect(ingresses).toHaveLength(1);
      const routes = ingresses[0]!.spec!.rules!.flatMap((r) =>
        (r.http?.paths ?? []).map((p) => ({
          path: p.path,
          pathType: p.pathType,
          service: p.backend.service?.name,
          port: p.backend.service?.port?.name,
        })),
      );
      expect(routes.sort((a, b) => a.path!.localeCompare(b.path!))).toEqual([
        { path: '/.well-known', pathType: 'Prefix', service: 'auth-server', port: 'http' },
        { path: '/api/v3', pathType: 'Prefix', service: 'api-gateway', port: 'http' },
        { path: '/oauth', pathType: 'Prefix', service: 'auth-server', port: 'http' },
      ]);
      expect(ingresses[0]!.spec!.defaultBackend).toBeUndefined();
    });

    it("routes to Service ports that reach only the containers' http ports", () => {
      for (const rule of ingresses[0]!.spec!.rules!)
        for (const p of rule.http!.paths) {
          const service = named(services, p.backend.service!.name)!;
          const port = service.spec!.ports!.find((x) => x.name === p.backend.service!.port!.name)!;
          expect(port.targetPort).toBe('http');
        }
    });

    it('serves the hosts of the public origins in crm-config (AUTH_ISSUER, PUBLIC_URL)', () => {
      const config = named(configMaps, 'crm-config')!.data!;
      const hosts = ingresses[0]!.spec!.rules!.map((r) => r.host).sort();
      expect(hosts).toEqual([new URL(config.AUTH_ISSUER!).host, new URL(config.PUBLIC_URL!).host].sort());
      expect(ingresses[0]!.spec!.tls![0]!.hosts!.sort()).toEqual(hosts);
    });
  });

  describe.each(APP_NAMES)('Deployment %s', (app) => {
    const spec = m.podSpecOf(app);
    const container = m.mainContainer(app);
    const { port, portVar, metricsPort, databaseKey } = APPS[app];

    it('runs the shared image with APP set to the service, and no init container (the Job migrates)', () => {
      expect(spec.initContainers ?? []).toEqual([]);
      for (const c of spec.containers) {
        expect(c.image).toMatch(new RegExp(`^${IMAGE}:`));
        expect(c.env?.find((e) => e.name === 'APP')?.value).toBe(app);
      }
    });

    it(`listens on the container port it declares (${portVar}=${port})`, () => {
      expect(findPort([container], 'http')?.containerPort).toBe(port);
      expect(m.resolveEnv(container, portVar)).toBe(String(port));
    });

    it(databaseKey ? `connects as its own runtime role (crm-database-users ${databaseKey})` : 'gets no database URL', () => {
      expect(m.resolveEnv(container, 'DATABASE_URL')).toBe(databaseKey ? `secret:crm-database-users/${databaseKey}` : undefined);
    });

    it('probes /healthz (startup, liveness) and /readyz (readiness) on its container port', () => {
      const probes = { startup: container.startupProbe, liveness: container.livenessProbe, readiness: container.readinessProbe };
      expect({ startup: probePath(probes.startup), liveness: probePath(probes.liveness), readiness: probePath(probes.readiness) }).toEqual({
        startup: '/healthz',
        liveness: '/healthz',
        readiness: '/readyz',
      });
      for (const [kind, probe] of Object.entries(probes))
        expect({ kind, port: findPort([container], probe!.httpGet!.port)?.containerPort }).toEqual({ kind, port });
      // Time to wait for the migration Job before listening.
      const startup = probes.startup!;
      expect((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)).toBeGreaterThanOrEqual(300);
    });

    it(`is scraped by Prometheus on /metrics of its own METRICS_PORT (${metricsPort})`, () => {
      expect(named(deployments, app)!.spec!.template.metadata?.annotations ?? {}).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': '/metrics',
      });
      expect(findPort([container], 'metrics')?.containerPort).toBe(metricsPort);
      expect(m.resolveEnv(container, 'METRICS_PORT')).toBe(String(metricsPort));
    });

    it(
      app === 'auth-server' ? `serves the operator API on OPERATOR_PORT ${OPERATOR_PORT}, a port of its own` : 'has no operator port',
      () => {
        expect(m.resolveEnv(container, 'OPERATOR_PORT')).toBe(app === 'auth-server' ? String(OPERATOR_PORT) : undefined);
        expect(findPort([container], 'operator')?.containerPort).toBe(app === 'auth-server' ? OPERATOR_PORT : undefined);
      },
    );

    it('runs non-root, read-only, without capabilities or privilege escalation, with requests and limits', () => {
      expect(spec.securityContext?.runAsNonRoot).toBe(true);
      expect(spec.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      for (const c of allContainers(spec)) {
        expect({ container: c.name, ...c.securityContext }).toMatchObject({
          container: c.name,
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts?.some((v) => v.mountPath === '/tmp' && spec.volumes?.some((x) => x.name === v.name && x.emptyDir))).toBe(
          true,
        );
        expect({
          requests: Object.keys(c.resources?.requests ?? {}).sort(),
          limits: Object.keys(c.resources?.limits ?? {}).sort(),
        }).toEqual({
          requests: ['cpu', 'memory'],
          limits: ['cpu', 'memory'],
        });
      }
    });

    it('gives a graceful stop more time than SHUTDOWN_TIMEOUT_MS (+2 s, + the preStop sleep)', () => {
      const needed = Number(m.resolveEnv(container, 'SHUTDOWN_TIMEOUT_MS') ?? 10000) + 2000 + preStopSeconds(container) * 1000;
      expect((spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(needed);
    });

    it('gets the shared configuration through envFrom, and no whole Secret (each key it reads by secretKeyRef)', () => {
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'crm-config' } }]);
      expect(spec.enableServiceLinks).toBe(false);
    });
  });

  describe('NATS', () => {
    const nats = named(statefulSets, 'nats')!;
    const pod = nats.spec!.template.spec!;
    const server = pod.containers.find((c) => c.name === 'nats')!;
    const conf = named(configMaps, 'nats-server')!.data!['nats-server.conf']!;

    it('is a three-node JetStream cluster: 3 replicas, routes to each through the headless Service, file storage on a PVC each', () => {
      expect(nats.spec!.replicas).toBe(3);
      expect(nats.spec!.podManagementPolicy).toBe('Parallel');
      const headless = named(services, nats.spec!.serviceName!)!;
      expect(headless.spec!.clusterIP).toBe('None');
      expect(headless.spec!.publishNotReadyAddresses).toBe(true);
      const routes = [...conf.matchAll(/"nats:\/\/([a-z0-9-]+)\.([a-z0-9-]+):(\d+)"/g)].map((r) => [r[1], r[2], Number(r[3])]);
      expect(routes).toEqual([0, 1, 2].map((i) => [`nats-${i}`, headless.metadata!.name, findPort([server], 'cluster')!.containerPort]));
      const lines = conf.split('\n').map((line) => line.trim());
      expect(lines[lines.indexOf('jetstream {') + 1]).toBe('store_dir: "/data"');
      expect(conf).toMatch(/^server_name: \$SERVER_NAME$/m);
      expect(server.env?.find((e) => e.name === 'SERVER_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
      const mount = server.volumeMounts?.find((v) => v.mountPath === '/data');
      expect((nats.spec!.volumeClaimTemplates ?? []).map((c) => c.metadata?.name)).toContain(mount!.name);
      expect(server.args).toEqual(['--config', '/etc/nats/nats-server.conf']);
    });

    it('includes the generated users (nats-config) next to the server configuration', () => {
      expect(conf.split('\n').map((line) => line.trim())).toContain('include ./nats.conf');
      const config = pod.volumes!.find((v) => v.name === server.volumeMounts!.find((x) => x.mountPath === '/etc/nats')!.name)!;
      expect(config.projected!.sources!.map((s) => s.configMap!.name)).toEqual(['nats-server', 'nats-config']);
    });

    it('runs the prometheus-nats-exporter sidecar against the monitor port, scraped by Prometheus', () => {
      const exporter = pod.containers.find((c) => c.name === 'prom-exporter')!;
      expect(exporter.image).toMatch(/^natsio\/prometheus-nats-exporter:/);
      expect(exporter.args).toEqual(
        expect.arrayContaining(['-jsz=all', '-routez', '-varz', `http://localhost:${findPort([server], 'monitor')!.containerPort}/`]),
      );
      const port = findPort([exporter], 'prom-metrics')!.containerPort;
      expect(nats.spec!.template.metadata!.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
      });
    });

    it('shuts down in lame-duck mode within its grace period', () => {
      expect(server.lifecycle?.preStop?.exec?.command).toEqual(['/nats-server', '-sl=ldm=/var/run/nats/nats.pid']);
      expect(conf).toMatch(/^pid_file: "\/var\/run\/nats\/nats\.pid"$/m);
      const lameDuck = Number(/^lame_duck_duration: (\d+)s$/m.exec(conf)![1]);
      expect(pod.terminationGracePeriodSeconds!).toBeGreaterThan(lameDuck);
    });

    it('is what NATS_URL points at: the client Service on the client port', () => {
      const url = new URL(named(configMaps, 'crm-config')!.data!.NATS_URL!);
      const service = named(services, url.hostname)!;
      const client = service.spec!.ports!.find((p) => p.port === Number(url.port || 4222))!;
      expect(findPort([server], client.targetPort ?? client.port)?.name).toBe('client');
    });
  });
});

// ---- docker-compose.yml -------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes?: Record<string, unknown>;
  };
  const svc = (name: string): ComposeService => {
    const s = compose.services[name];
    if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
    return s;
  };
  const published = (s: ComposeService) => (s.ports ?? []).map((p) => Number(String(p).split(':').at(-2)));

  it('runs PostgreSQL 15, Redis 7 and NATS 2.10 with JetStream on a volume, each with a healthcheck', () => {
    expect(svc('postgres').image).toMatch(/^postgres:15(\b|$)/);
    expect(svc('redis').image).toMatch(/^redis:7(\b|$)/);
    const nats = svc('nats');
    expect(nats.image).toMatch(/^nats:2\.10(\b|$)/);
    expect(nats.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    const natsVolume = (nats.volumes ?? []).find((v) => v.endsWith(':/data'));
    expect(natsVolume).toBeDefined();
    expect(compose.volumes).toHaveProperty(natsVolume!.split(':')[0]!);
    for (const name of ['postgres', 'redis', 'nats']) {
      expect({ name, healthcheck: !!svc(name).healthcheck }).toEqual({ name, healthcheck: true });
      // `docker compose up -d postgres redis nats` starts the infrastructure alone.
      expect({ name, depends_on: svc(name).depends_on }).toEqual({ name, depends_on: undefined });
    }
    expect(published(svc('postgres'))).toContain(5432);
    expect(published(svc('redis'))).toContain(6379);
    expect(published(svc('nats'))).toContain(4222);
  });

  it('migrates each context once, in order, after PostgreSQL is healthy', () => {
    MIGRATION_ORDER.forEach((app, i) => {
      const migrate = svc(`${app}-migrate`);
      expect(migrate.command).toEqual(['migrate']);
      expect(migrate.environment?.APP).toBe(app);
      expect(migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
      if (i > 0) expect(migrate.depends_on?.[`${MIGRATION_ORDER[i - 1]}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
    });
  });

  it.each(APP_NAMES)('runs %s from the shared image, after its migrations, with a /readyz healthcheck on its port', (app) => {
    const s = svc(app);
    const { port, portVar, databaseKey } = APPS[app];
    const migrates = databaseKey !== undefined;
    expect(s.build ?? s.image).toBeDefined();
    expect(s.environment?.APP).toBe(app);
    expect(s.environment?.[portVar]).toBe(String(port));
    expect(s.healthcheck?.test.join(' ')).toContain(`:${port}/readyz`);
    expect(s.depends_on?.nats).toEqual({ condition: 'service_healthy' });
    if (migrates) expect(s.depends_on?.[`${app}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
  });

  it("gives the request signing key to the gateway and the auth-server only, and each consumer its own key, derived from the default's", () => {
    /** `${VARIABLE:-default}` -> [VARIABLE, default]. */
    const interpolated = (value: string | undefined) => /^\$\{(\w+):-(.+)\}$/.exec(value ?? '')?.slice(1) ?? [];
    const [signingVariable, signingKey] = interpolated(svc('api-gateway').environment?.CALLER_SIGNING_KEY);
    expect(signingVariable).toBe('CALLER_SIGNING_KEY');
    for (const app of APP_NAMES) {
      const env = svc(app).environment ?? {};
      expect({ app, signs: env.CALLER_SIGNING_KEY !== undefined }).toEqual({ app, signs: app === 'api-gateway' || app === 'auth-server' });
      if (env.CALLER_SIGNING_KEY !== undefined) expect(interpolated(env.CALLER_SIGNING_KEY)).toEqual([signingVariable, signingKey]);
      if (app === 'api-gateway') expect(env.CALLER_VERIFY_KEYS).toBeUndefined();
      else expect(interpolated(env.CALLER_VERIFY_KEYS)).toEqual([verifyKeysVariableOf(app), deriveConsumerKey(signingKey!, app)]);
    }
  });

  it('publishes the gateway on 3000 and the auth-server on 3001, and runs two crm-core replicas', () => {
    expect(published(svc('api-gateway'))).toContain(3000);
    expect(published(svc('auth-server'))).toContain(3001);
    expect(svc('crm-core').deploy?.replicas).toBeGreaterThanOrEqual(2);
    // Replicas cannot share a published host port.
    expect(svc('crm-core').ports).toBeUndefined();
  });
});

// ---- Dockerfile ---------------------------------------------------------------------------------

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

  it('builds one non-root Node 22 image that runs the service named by APP', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \S+ AS \w+$/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci \|\| npm install --no-save/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(dockerfile).toMatch(/^ENV APP=\$\{APP\}$/m);
    const user = dockerfile.match(/^USER (\S+)$/m)?.[1];
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).toMatch(/^[1-9]\d*$/);
    expect(dockerfile).toMatch(/exec node [^\n]*dist\/apps\/\$\{APP/);
  });
});
