// Static checks of the deployment files: every Kubernetes manifest in deploy/k8s is schema-valid
// (kubernetes-models) and consistent with the others and with the services (ports, probes, config
// variables), and docker-compose.yml runs the same topology.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Deployment, StatefulSet, type IDeployment, type IStatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
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
import { parse, parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
const K8S_DIR = path.join(__dirname, 'k8s');
const NAMESPACE = 'crm';
const IMAGE = 'crm-platform';

/** The four services: how each is told its HTTP port, the port, its METRICS_PORT, and whether it owns a schema. */
const APPS = {
  'api-gateway': { portVar: 'PORT', port: 3000, metricsPort: 9460, migrates: false, autoscaled: true },
  'auth-server': { portVar: 'AUTH_PORT', port: 3001, metricsPort: 9461, migrates: true, autoscaled: false },
  'crm-core': { portVar: 'HTTP_PORT', port: 3002, metricsPort: 9462, migrates: true, autoscaled: true },
  'webhook-dispatcher': { portVar: 'HTTP_PORT', port: 3003, metricsPort: 9463, migrates: true, autoscaled: true },
} as const;
type AppName = keyof typeof APPS;
const APP_NAMES = Object.keys(APPS) as AppName[];
/** Deployment order of the migrations (tools/migrate.mjs). */
const MIGRATION_ORDER: AppName[] = ['auth-server', 'crm-core', 'webhook-dispatcher'];

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

interface Manifest {
  file: string;
  doc: K8sObject;
}

// ---- loading ----------------------------------------------------------------------------------

function yamlFiles(): string[] {
  return readdirSync(K8S_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

function parseYamlStream(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [];
  const problems = list.flatMap((d) => [...d.errors, ...d.warnings].map((e) => `${path.basename(file)}: ${e.message}`));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return list.map((d) => d.toJS() as unknown).filter((d) => d !== null && d !== undefined);
}

function loadManifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of yamlFiles()) {
    if (file === 'kustomization.yaml') continue;
    for (const doc of parseYamlStream(path.join(K8S_DIR, file))) out.push({ file, doc: doc as K8sObject });
  }
  return out;
}

const manifests = loadManifests();
const ofKind = <T>(kind: string): T[] => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc as unknown as T);
const named = <T extends { metadata?: { name?: string } }>(list: T[], name: string): T | undefined =>
  list.find((o) => o.metadata?.name === name);

const deployments = ofKind<IDeployment>('Deployment');
const statefulSets = ofKind<IStatefulSet>('StatefulSet');
const services = ofKind<IService>('Service');
const configMaps = ofKind<IConfigMap>('ConfigMap');
const secrets = ofKind<ISecret>('Secret');
const hpas = ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
const pdbs = ofKind<IPodDisruptionBudget>('PodDisruptionBudget');
const workloads: { kind: string; name: string; template: IPodTemplateSpec }[] = [
  ...deployments.map((d) => ({ kind: 'Deployment', name: d.metadata!.name!, template: d.spec!.template })),
  ...statefulSets.map((s) => ({ kind: 'StatefulSet', name: s.metadata!.name!, template: s.spec!.template })),
];

/** apiVersion/kind -> schema validation with kubernetes-models (throws on the first problem). */
const VALIDATORS: Record<string, (doc: K8sObject) => void> = {
  'v1/Namespace': (d) => new Namespace(d as unknown as INamespace).validate(),
  'v1/ConfigMap': (d) => new ConfigMap(d as unknown as IConfigMap).validate(),
  'v1/Secret': (d) => new Secret(d as unknown as ISecret).validate(),
  'v1/Service': (d) => new Service(d as unknown as IService).validate(),
  'apps/v1/Deployment': (d) => new Deployment(d as unknown as IDeployment).validate(),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d as unknown as IStatefulSet).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d as unknown as IHorizontalPodAutoscaler).validate(),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d as unknown as IPodDisruptionBudget).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as unknown as INetworkPolicy).validate(),
};

// ---- helpers ----------------------------------------------------------------------------------

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
const allContainers = (spec: IPodSpec): IContainer[] => [...(spec.initContainers ?? []), ...spec.containers];
const isSubset = (sub: Record<string, string> | undefined, sup: Record<string, string> | undefined): boolean =>
  sub !== undefined && Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);

/** The value a container sees for `name`: its own env wins over envFrom (ConfigMaps, then Secrets in order). */
function resolveEnv(container: IContainer, name: string): string | undefined {
  const own = container.env?.find((e) => e.name === name);
  if (own) return own.value;
  let value: string | undefined;
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) value = named(configMaps, source.configMapRef.name!)?.data?.[name] ?? value;
    if (source.secretRef) value = named(secrets, source.secretRef.name!)?.stringData?.[name] ?? value;
  }
  return value;
}

/** The containerPort a probe or Service targetPort points at (by name or number), if any. */
const findPort = (containers: IContainer[], port: string | number | undefined) =>
  containers.flatMap((c) => c.ports ?? []).find((p) => (typeof port === 'string' ? p.name === port : p.containerPort === port));

function probePath(probe: IProbe | undefined): string | undefined {
  return probe?.httpGet?.path;
}

/** Every variable the services read: the property names of their config classes. */
function configVariables(): Set<string> {
  const files = [
    path.join(ROOT, 'libs/config/src/base.config.ts'),
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
    for (const m of readFileSync(file, 'utf8').matchAll(/^[ \t]+([A-Z][A-Z0-9_]*)\??[ \t]*[:=]/gm)) names.add(m[1]!);
  return names;
}

function shutdownTimeoutMs(container: IContainer): number {
  return Number(resolveEnv(container, 'SHUTDOWN_TIMEOUT_MS') ?? 10000);
}

function preStopSeconds(container: IContainer): number {
  const command = container.lifecycle?.preStop?.exec?.command;
  if (!command) return 0;
  expect(command[0]).toBe('sleep');
  return Number(command[1]);
}

// ---- Kubernetes -------------------------------------------------------------------------------

describe('deploy/k8s manifests', () => {
  it('parse as YAML, and every document is a Kubernetes object', () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const { file, doc } of manifests) {
      expect({ file, apiVersion: typeof doc.apiVersion, kind: typeof doc.kind, name: typeof doc.metadata?.name }).toEqual({
        file,
        apiVersion: 'string',
        kind: 'string',
        name: 'string',
      });
    }
  });

  it.each(manifests.map((m) => [`${m.file}: ${m.doc.kind}/${m.doc.metadata.name}`, m] as const))(
    '%s is valid against the Kubernetes schema',
    (_, { doc }) => {
      const validate = VALIDATORS[`${doc.apiVersion}/${doc.kind}`];
      if (!validate) throw new Error(`no validator for ${doc.apiVersion} ${doc.kind}: add it to VALIDATORS (or fix the apiVersion)`);
      expect(() => validate(doc)).not.toThrow();
    },
  );

  it('names every object once per kind', () => {
    const keys = manifests.map((m) => `${m.doc.kind}/${m.doc.metadata.name}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it('puts everything in namespace crm, which is defined', () => {
    expect(named(ofKind<INamespace>('Namespace'), NAMESPACE)).toBeDefined();
    for (const { file, doc } of manifests) {
      if (doc.kind === 'Namespace') continue;
      expect({ file, object: `${doc.kind}/${doc.metadata.name}`, namespace: doc.metadata.namespace }).toEqual({
        file,
        object: `${doc.kind}/${doc.metadata.name}`,
        namespace: NAMESPACE,
      });
    }
  });

  it('lists exactly the files of deploy/k8s in kustomization.yaml', () => {
    const kustomization = parse(readFileSync(path.join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as {
      apiVersion: string;
      kind: string;
      namespace?: string;
      resources: string[];
    };
    expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.namespace).toBe(NAMESPACE);
    expect([...kustomization.resources].sort()).toEqual(yamlFiles().filter((f) => f !== 'kustomization.yaml'));
    // The Namespace must exist before anything is created in it.
    expect(kustomization.resources[0]).toBe('namespace.yaml');
  });

  it('has a Deployment, a Service and a PodDisruptionBudget for each of the four services', () => {
    for (const app of APP_NAMES) {
      expect({ app, deployment: !!named(deployments, app), service: !!named(services, app), pdb: !!named(pdbs, app) }).toEqual({
        app,
        deployment: true,
        service: true,
        pdb: true,
      });
    }
  });

  it('autoscales api-gateway, crm-core and webhook-dispatcher, and leaves their replica count to the HPA', () => {
    for (const app of APP_NAMES) {
      const hpa = hpas.find((h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === app);
      const replicas = named(deployments, app)!.spec!.replicas;
      if (APPS[app].autoscaled) {
        expect({ app, hpa: !!hpa }).toEqual({ app, hpa: true });
        expect(hpa!.spec!.scaleTargetRef.apiVersion).toBe('apps/v1');
        expect(hpa!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
        expect(hpa!.spec!.maxReplicas).toBeGreaterThan(hpa!.spec!.minReplicas!);
        // A replicas field would be reset by every `kubectl apply`, fighting the autoscaler.
        expect({ app, replicas }).toEqual({ app, replicas: undefined });
      } else {
        expect({ app, hpa: !!hpa }).toEqual({ app, hpa: false });
        expect(replicas).toBeGreaterThanOrEqual(2);
      }
    }
    for (const hpa of hpas) expect(named(deployments, hpa.spec!.scaleTargetRef.name)).toBeDefined();
  });

  it('points every PodDisruptionBudget at the pods of one workload, and keeps one of at least two pods', () => {
    for (const pdb of pdbs) {
      const targets = workloads.filter((w) => isSubset(pdb.spec!.selector?.matchLabels, w.template.metadata?.labels));
      expect({ pdb: pdb.metadata!.name, targets: targets.map((t) => t.name) }).toEqual({
        pdb: pdb.metadata!.name,
        targets: [pdb.metadata!.name],
      });
      expect(pdb.spec!.minAvailable).toBe(1);
    }
  });

  it('selects each Service to exactly one workload, whose containers have every target port', () => {
    for (const service of services) {
      const name = service.metadata!.name!;
      const targets = workloads.filter((w) => isSubset(service.spec!.selector, w.template.metadata?.labels));
      expect({ service: name, targets: targets.map((t) => `${t.kind}/${t.name}`) }).toEqual({
        service: name,
        targets: [expect.stringMatching(new RegExp(`/${name}$`))],
      });
      const containers = targets[0]!.template.spec!.containers;
      for (const port of service.spec!.ports ?? []) {
        const target = port.targetPort ?? port.port;
        expect({ service: name, port: port.name, target, found: !!findPort(containers, target) }).toEqual({
          service: name,
          port: port.name,
          target,
          found: true,
        });
      }
    }
  });

  it('matches every workload selector to its own pod template labels', () => {
    for (const w of [...deployments, ...statefulSets]) {
      expect({ name: w.metadata!.name, matches: isSubset(w.spec!.selector.matchLabels, w.spec!.template.metadata?.labels) }).toEqual({
        name: w.metadata!.name,
        matches: true,
      });
    }
  });

  it('defines every ConfigMap and Secret that a container reads', () => {
    const pods = workloads.map((w) => ({ name: w.name, spec: w.template.spec! }));
    for (const { name, spec } of pods) {
      for (const c of allContainers(spec)) {
        for (const source of c.envFrom ?? []) {
          if (source.configMapRef)
            expect({
              container: `${name}/${c.name}`,
              configMap: source.configMapRef.name,
              defined: !!named(configMaps, source.configMapRef.name!),
            }).toEqual({ container: `${name}/${c.name}`, configMap: source.configMapRef.name, defined: true });
          if (source.secretRef)
            expect({
              container: `${name}/${c.name}`,
              secret: source.secretRef.name,
              defined: !!named(secrets, source.secretRef.name!),
            }).toEqual({ container: `${name}/${c.name}`, secret: source.secretRef.name, defined: true });
        }
        for (const e of c.env ?? []) {
          const cm = e.valueFrom?.configMapKeyRef;
          const sec = e.valueFrom?.secretKeyRef;
          if (cm) expect(named(configMaps, cm.name!)?.data?.[cm.key]).toBeDefined();
          if (sec) expect(named(secrets, sec.name!)?.stringData?.[sec.key] ?? named(secrets, sec.name!)?.data?.[sec.key]).toBeDefined();
        }
      }
    }
  });

  it('configures only variables the services read', () => {
    const known = configVariables();
    // Sanity check of the extraction itself.
    expect([...known]).toEqual(
      expect.arrayContaining([
        'NATS_URL',
        'DATABASE_URL',
        'PORT',
        'AUTH_PORT',
        'HTTP_PORT',
        'API_KEY_PEPPER',
        'OPERATOR_TOKEN',
        'REGION_BASE_URLS',
      ]),
    );
    // The ConfigMaps and Secrets a service loads whole (envFrom); the others are read key by key
    // (secretKeyRef) or are files (nats.conf), see deploy/security.spec.ts.
    const loaded = APP_NAMES.flatMap((app) => (mainContainer(app).envFrom ?? []).map((f) => f.configMapRef?.name ?? f.secretRef?.name));
    const keys = [
      ...configMaps
        .filter((c) => loaded.includes(c.metadata!.name))
        .flatMap((c) => Object.keys(c.data ?? {}).map((k) => `ConfigMap ${c.metadata!.name}: ${k}`)),
      ...secrets
        .filter((s) => loaded.includes(s.metadata!.name))
        .flatMap((s) => Object.keys({ ...s.data, ...s.stringData }).map((k) => `Secret ${s.metadata!.name}: ${k}`)),
      // APP picks the service in the image's entrypoint; NODE_OPTIONS is Node's own; NATS_PASSWORD is
      // only expanded into NATS_URL (deploy/security.spec.ts).
      ...APP_NAMES.flatMap((app) =>
        allContainers(podSpecOf(app)).flatMap((c) =>
          (c.env ?? []).filter((e) => !['APP', 'NODE_OPTIONS', 'NATS_PASSWORD'].includes(e.name)).map((e) => `${app}/${c.name}: ${e.name}`),
        ),
      ),
    ];
    expect(keys.filter((k) => !known.has(k.split(': ')[1]!))).toEqual([]);
  });

  it('ships only placeholder secrets', () => {
    const secret = named(secrets, 'crm-secrets');
    expect(secret).toBeDefined();
    expect(secret!.data).toBeUndefined();
    const values = secret!.stringData ?? {};
    expect(Object.keys(values)).toEqual(expect.arrayContaining(['API_KEY_PEPPER', 'OPERATOR_TOKEN', 'DATABASE_URL']));
    // Also the Secrets given key by key to the pods that need them (REDIS_URL, NATS passwords, the signing key).
    for (const [key, value] of secrets.flatMap((s) => Object.entries(s.stringData ?? {})))
      expect({ key, value }).toEqual({ key, value: expect.stringContaining('REPLACE_ME') });
    for (const s of secrets) expect({ secret: s.metadata!.name, data: s.data }).toEqual({ secret: s.metadata!.name, data: undefined });
  });

  describe.each(APP_NAMES)('Deployment %s', (app) => {
    const spec = podSpecOf(app);
    const container = mainContainer(app);
    const { port, portVar, metricsPort } = APPS[app];

    it('runs the shared image with APP set to the service', () => {
      for (const c of allContainers(spec)) {
        expect(c.image).toMatch(new RegExp(`^${IMAGE}:`));
        expect(c.env?.find((e) => e.name === 'APP')?.value).toBe(app);
      }
    });

    it(`listens on the container port it declares (${portVar}=${port})`, () => {
      expect(findPort([container], 'http')?.containerPort).toBe(port);
      expect(resolveEnv(container, portVar)).toBe(String(port));
    });

    it('probes /healthz (startup, liveness) and /readyz (readiness) on its container port', () => {
      const probes = { startup: container.startupProbe, liveness: container.livenessProbe, readiness: container.readinessProbe };
      expect({ startup: probePath(probes.startup), liveness: probePath(probes.liveness), readiness: probePath(probes.readiness) }).toEqual({
        startup: '/healthz',
        liveness: '/healthz',
        readiness: '/readyz',
      });
      for (const [kind, probe] of Object.entries(probes)) {
        expect({ kind, port: findPort([container], probe!.httpGet!.port)?.containerPort }).toEqual({ kind, port });
      }
    });

    it(`is scraped by Prometheus on /metrics of its own METRICS_PORT (${metricsPort}), which no Service publishes`, () => {
      const annotations = named(deployments, app)!.spec!.template.metadata?.annotations ?? {};
      expect(annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': '/metrics',
      });
      expect(findPort([container], 'metrics')?.containerPort).toBe(metricsPort);
      expect(resolveEnv(container, 'METRICS_PORT')).toBe(String(metricsPort));
      for (const service of services)
        for (const published of service.spec!.ports ?? []) {
          const target = published.targetPort ?? published.port;
          expect({ service: service.metadata!.name, target }).not.toEqual({ service: app, target: 'metrics' });
          expect({ service: service.metadata!.name, target }).not.toEqual({ service: app, target: metricsPort });
        }
    });

    it('runs non-root, read-only, without capabilities or privilege escalation', () => {
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
        // Writable scratch space on a read-only root.
        expect(c.volumeMounts?.some((m) => m.mountPath === '/tmp' && spec.volumes?.some((v) => v.name === m.name && v.emptyDir))).toBe(
          true,
        );
      }
    });

    it('sets CPU and memory requests and limits on every container', () => {
      for (const c of allContainers(spec)) {
        expect({
          container: c.name,
          requests: Object.keys(c.resources?.requests ?? {}).sort(),
          limits: Object.keys(c.resources?.limits ?? {}).sort(),
        }).toEqual({
          container: c.name,
          requests: ['cpu', 'memory'],
          limits: ['cpu', 'memory'],
        });
      }
    });

    it('gives a graceful stop more time than SHUTDOWN_TIMEOUT_MS (+2 s, + the preStop sleep)', () => {
      const needed = shutdownTimeoutMs(container) + 2000 + preStopSeconds(container) * 1000;
      expect((spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(needed);
    });

    it(APPS[app].migrates ? 'migrates its schema in an init container' : 'has no init container (no database)', () => {
      const init = spec.initContainers ?? [];
      if (!APPS[app].migrates) {
        expect(init).toEqual([]);
        return;
      }
      expect(init).toHaveLength(1);
      expect(init[0]!.args).toEqual(['migrate']);
      expect(init[0]!.command).toBeUndefined();
      expect(init[0]!.image).toBe(container.image);
      // The same configuration as the service itself (database URLs, namespace).
      expect(init[0]!.envFrom).toEqual(container.envFrom);
    });

    it('gets the shared configuration and secrets through envFrom', () => {
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'crm-config' } }, { secretRef: { name: 'crm-secrets' } }]);
      expect(spec.enableServiceLinks).toBe(false);
    });
  });

  describe('NATS', () => {
    const nats = named(statefulSets, 'nats');

    it('is a JetStream StatefulSet storing on a PersistentVolumeClaim', () => {
      expect(nats).toBeDefined();
      const container = nats!.spec!.template.spec!.containers[0]!;
      expect(container.image).toMatch(/^nats:2\.10(\.\d+)?(-[a-z0-9]+)?$/);
      expect(container.args).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
      expect(container.args![container.args!.indexOf('-sd') + 1]).toBe('/data');
      const claims = nats!.spec!.volumeClaimTemplates ?? [];
      const mount = container.volumeMounts?.find((m) => m.mountPath === '/data');
      expect(mount).toBeDefined();
      expect(claims.map((c) => c.metadata?.name)).toContain(mount!.name);
    });

    it('has a headless governing Service that NATS_URL points at', () => {
      const service = named(services, nats!.spec!.serviceName!);
      expect(service?.spec?.clusterIP).toBe('None');
      const url = new URL(named(configMaps, 'crm-config')!.data!.NATS_URL!);
      expect(url.hostname.split('.')[0]).toBe(service!.metadata!.name);
      const client = service!.spec!.ports!.find((p) => p.port === Number(url.port || 4222));
      expect(client).toBeDefined();
      expect(findPort(nats!.spec!.template.spec!.containers, client!.targetPort ?? client!.port)).toBeDefined();
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
    const { port, portVar, migrates } = APPS[app];
    expect(s.build ?? s.image).toBeDefined();
    expect(s.environment?.APP).toBe(app);
    expect(s.environment?.[portVar]).toBe(String(port));
    expect(s.healthcheck?.test.join(' ')).toContain(`:${port}/readyz`);
    expect(s.depends_on?.nats).toEqual({ condition: 'service_healthy' });
    if (migrates) expect(s.depends_on?.[`${app}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
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
