// The environment each container of a rendered overlay would get, computed the way the kubelet
// does, so tests can run a service's own configuration check (deploy/config.spec.ts) or start a
// service with exactly the production overlay's settings on loopback. Also generates valid values
// for every Secret key, to stand in for the REPLACE_ME placeholders.
import { randomBytes } from 'node:crypto';
import { deriveConsumerKey, generateCallerKeys, RPC_CONSUMERS, type RpcConsumer } from '@crm/messaging';
import type { IDeployment, IStatefulSet } from 'kubernetes-models/apps/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IConfigMap, IContainer, IPodTemplateSpec, ISecret } from 'kubernetes-models/v1';
import { renderOverlay, type Overlay } from './render';

/** The services the image runs (its APP variable). */
export const SERVICES = ['api-gateway', 'auth-server', 'crm-core', 'webhook-dispatcher'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface WorkloadEnvironment {
  kind: 'Deployment' | 'Job' | 'StatefulSet';
  /** The workload's metadata.name (crm-core, crm-migrate, nats, ...). */
  name: string;
  /** The container's name (init containers included, in the pod's order: init containers first). */
  container: string;
  /**
   * The app this container runs: its APP variable (api-gateway | auth-server | crm-core |
   * webhook-dispatcher), or "migrate" for a container running tools/migrate.mjs. The migration
   * Job's containers run `main.js migrate` of one app each (args ["migrate"]): their service is that
   * app and `migrate` is true. Undefined for containers not running our image (nats, its exporter).
   */
  service: string | undefined;
  /** True when the container runs the migrations of `service` (args ["migrate"]) rather than the service. */
  migrate: boolean;
  /** The container's args after $(VAR) expansion (kubelet expands them with the final environment). */
  args: string[];
  /**
   * The environment the container would get: envFrom sources in order (ConfigMap data, Secret
   * values; a later source overrides an earlier one), then `env` in order (overriding envFrom and
   * earlier entries), each literal value with $(VAR) expanded from the variables defined before it
   * ($$ is a literal $, an unknown reference stays as written). An optional secretKeyRef to a
   * missing key sets nothing; a required one throws, as the kubelet refuses to start the container.
   * fieldRef: metadata.name is `<workload>-0`, metadata.namespace the namespace, status.podIP and
   * status.hostIP 127.0.0.1, spec.nodeName `node-0`.
   */
  env: Record<string, string>;
  /**
   * Every Secret key the container receives, as the variable `as` (envFrom secretRef: every key of
   * that Secret, with the source's prefix; env secretKeyRef: that key, as the env entry's name).
   * Includes keys whose value is then overridden by a later entry. An optional reference to a key
   * the Secret lacks is not listed.
   */
  secretKeys: Array<{ secret: string; key: string; as: string }>;
  /** The secretKeyRefs marked optional: true (listed or not in secretKeys), as secret/key. */
  optionalSecretKeys: string[];
  /** For each variable whose value expanded $(OTHER) references: the variables it took (NATS_URL: [NATS_PASSWORD]). */
  references: Record<string, string[]>;
}

interface Workload {
  kind: WorkloadEnvironment['kind'];
  name: string;
  namespace: string;
  template: IPodTemplateSpec;
}

/** A Secret's values as strings: stringData over base64 data (as the API server merges them). */
function secretData(secret: ISecret): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {})) values[key] = Buffer.from(value, 'base64').toString('utf8');
  for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = value;
  return values;
}

/** kubelet's expansion of $(VAR) in a value: $$ -> $, $(NAME) -> its value when defined, else kept. */
export function expandReferences(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (name === undefined) return '$';
    return Object.prototype.hasOwnProperty.call(vars, name) ? vars[name]! : match;
  });
}

function fieldValue(path: string, workload: Workload): string {
  switch (path) {
    case 'metadata.name':
      return `${workload.name}-0`;
    case 'metadata.namespace':
      return workload.namespace;
    case 'status.podIP':
    case 'status.hostIP':
      return '127.0.0.1';
    case 'spec.nodeName':
      return 'node-0';
    default:
      throw new Error(`${workload.kind} ${workload.name}: fieldRef ${path} is not modelled by deploy/environment.ts`);
  }
}

function workloadsOf(overlay: Overlay): Workload[] {
  const docs = renderOverlay(overlay);
  const ofKind = <T>(kind: string) => docs.filter((d) => d.kind === kind) as unknown as T[];
  const entry = (
    kind: Workload['kind'],
    o: { metadata?: { name?: string; namespace?: string } },
    template: IPodTemplateSpec,
  ): Workload => ({
    kind,
    name: o.metadata!.name!,
    namespace: o.metadata!.namespace ?? 'default',
    template,
  });
  return [
    ...ofKind<IDeployment>('Deployment').map((d) => entry('Deployment', d, d.spec!.template)),
    ...ofKind<IStatefulSet>('StatefulSet').map((s) => entry('StatefulSet', s, s.spec!.template)),
    ...ofKind<IJob>('Job').map((j) => entry('Job', j, j.spec!.template)),
  ];
}

/** The Secrets of an overlay as name -> key -> value, secretValues replacing whole Secrets it names. */
function secretsOf(overlay: Overlay, secretValues?: Record<string, Record<string, string>>): Map<string, Record<string, string>> {
  const secrets = new Map<string, Record<string, string>>();
  for (const doc of renderOverlay(overlay).filter((d) => d.kind === 'Secret')) {
    const secret = doc as unknown as ISecret;
    secrets.set(secret.metadata!.name!, secretData(secret));
  }
  for (const [name, values] of Object.entries(secretValues ?? {})) {
    if (!secrets.has(name)) throw new Error(`secretValues names Secret ${name}, which overlay ${overlay} does not define`);
    secrets.set(name, { ...values });
  }
  return secrets;
}

function containerEnvironment(
  workload: Workload,
  container: IContainer,
  configMaps: Map<string, Record<string, string>>,
  secrets: Map<string, Record<string, string>>,
): WorkloadEnvironment {
  const where = `${workload.kind} ${workload.name}, container ${container.name}`;
  const env: Record<string, string> = {};
  const secretKeys: WorkloadEnvironment['secretKeys'] = [];
  const optionalSecretKeys: string[] = [];
  const references: Record<string, string[]> = {};
  for (const source of container.envFrom ?? []) {
    const prefix = source.prefix ?? '';
    if (source.configMapRef) {
      const data = configMaps.get(source.configMapRef.name!);
      if (!data) {
        if (source.configMapRef.optional) continue;
        throw new Error(`${where}: envFrom ConfigMap ${source.configMapRef.name} does not exist`);
      }
      for (const [key, value] of Object.entries(data)) env[prefix + key] = value;
    }
    if (source.secretRef) {
      const name = source.secretRef.name!;
      const data = secrets.get(name);
      if (!data) {
        if (source.secretRef.optional) continue;
        throw new Error(`${where}: envFrom Secret ${name} does not exist`);
      }
      for (const [key, value] of Object.entries(data)) {
        env[prefix + key] = value;
        secretKeys.push({ secret: name, key, as: prefix + key });
      }
    }
  }
  for (const entry of container.env ?? []) {
    const from = entry.valueFrom;
    if (!from) {
      const value = entry.value ?? '';
      const used = [...value.matchAll(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g)].flatMap((m) =>
        m[1] !== undefined && m[1] in env ? [m[1]] : [],
      );
      if (used.length > 0) references[entry.name] = used;
      env[entry.name] = expandReferences(value, env);
    } else if (from.secretKeyRef) {
      const { name, key, optional } = from.secretKeyRef as { name: string; key: string; optional?: boolean };
      if (optional) optionalSecretKeys.push(`${name}/${key}`);
      const value = secrets.get(name)?.[key];
      if (value === undefined) {
        if (optional) continue;
        throw new Error(
          `${where}: ${entry.name} refers to key ${key} of Secret ${name}, which ${secrets.has(name) ? 'has no such key' : 'does not exist'}`,
        );
      }
      env[entry.name] = value;
      secretKeys.push({ secret: name, key, as: entry.name });
    } else if (from.configMapKeyRef) {
      const { name, key, optional } = from.configMapKeyRef as { name: string; key: string; optional?: boolean };
      const value = configMaps.get(name)?.[key];
      if (value === undefined) {
        if (optional) continue;
        throw new Error(`${where}: ${entry.name} refers to key ${key} of ConfigMap ${name}, which is missing`);
      }
      env[entry.name] = value;
    } else if (from.fieldRef) {
      env[entry.name] = fieldValue(from.fieldRef.fieldPath, workload);
    } else {
      throw new Error(`${where}: ${entry.name} has a valueFrom deploy/environment.ts does not model`);
    }
  }
  const args = [...(container.command ?? []), ...(container.args ?? [])].map((a) => expandReferences(a, env));
  const usesMigrateScript = args.some((a) => a.endsWith('tools/migrate.mjs'));
  const service = usesMigrateScript ? 'migrate' : env.APP;
  return {
    kind: workload.kind,
    name: workload.name,
    container: container.name,
    service,
    migrate: usesMigrateScript || (container.args ?? [])[0] === 'migrate',
    args: (container.args ?? []).map((a) => expandReferences(a, env)),
    env,
    secretKeys,
    optionalSecretKeys,
    references,
  };
}

/**
 * Every container (init containers first) of every Deployment, StatefulSet and Job of an overlay,
 * with the environment it would get. `secretValues` maps Secret name -> key -> value: each Secret
 * it names is replaced whole by that map (a key left out is a key the Secret lacks: an optional
 * reference then sets nothing, a required one throws); Secrets it does not name keep the rendered
 * values (the REPLACE_ME placeholders).
 */
export function workloadEnvironments(overlay: Overlay, secretValues?: Record<string, Record<string, string>>): WorkloadEnvironment[] {
  const docs = renderOverlay(overlay);
  const configMaps = new Map(
    docs.filter((d) => d.kind === 'ConfigMap').map((d) => [d.metadata.name, { ...((d as unknown as IConfigMap).data ?? {}) }] as const),
  );
  const secrets = secretsOf(overlay, secretValues);
  return workloadsOf(overlay).flatMap((workload) =>
    [...(workload.template.spec!.initContainers ?? []), ...workload.template.spec!.containers].map((c) =>
      containerEnvironment(workload, c, configMaps, secrets),
    ),
  );
}

/** The environment of one container, found by workload name and container name (throws when absent). */
export function environmentOf(
  overlay: Overlay,
  workload: string,
  container: string = workload,
  secretValues?: Record<string, Record<string, string>>,
): WorkloadEnvironment {
  const found = workloadEnvironments(overlay, secretValues).find((w) => w.name === workload && w.container === container);
  if (!found) throw new Error(`overlay ${overlay} has no container ${container} in a workload ${workload}`);
  return found;
}

/**
 * Every key of every Secret of the overlay, and whether it is optional: referenced, and only by
 * secretKeyRefs marked `optional: true` (no envFrom of its Secret).
 */
export function secretKeysOf(overlay: Overlay): Array<{ secret: string; key: string; optional: boolean }> {
  const required = new Set<string>();
  const optional = new Set<string>();
  for (const { template } of workloadsOf(overlay))
    for (const c of [...(template.spec!.initContainers ?? []), ...template.spec!.containers]) {
      for (const source of c.envFrom ?? []) if (source.secretRef) required.add(`${source.secretRef.name}/*`);
      for (const entry of c.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref) (ref.optional ? optional : required).add(`${ref.name}/${ref.key}`);
      }
    }
  return [...secretsOf(overlay)].flatMap(([secret, data]) =>
    Object.keys(data).map((key) => ({
      secret,
      key,
      optional: optional.has(`${secret}/${key}`) && !required.has(`${secret}/${key}`) && !required.has(`${secret}/*`),
    })),
  );
}

export interface GenerateSecretOptions {
  /**
   * Values for the URL keys (database and Redis URLs), by key name (`CRM_DATABASE_URL`) or, to
   * tell apart keys of the same name, by `secret/key` (`crm-migrator/DATABASE_URL`, which wins).
   * A required URL key not given gets a well-formed URL on an unresolvable host (`*.invalid`): good
   * for configuration checks, not for connecting. An optional key (every reference to it is
   * `optional: true`, e.g. CRM_DATABASE_REPLICA_URL) is left out unless given: the variable is unset.
   */
  urls?: Record<string, string>;
}

const secretString = () => randomBytes(36).toString('base64url');

/**
 * Valid, random values for every key of every Secret of the overlay, as `workloadEnvironments`
 * takes them (Secret name -> key -> value):
 * - NATS_PASSWORD_*: `p` + 64 hex digits (starts with a letter: nats-server parses the value);
 * - CALLER_SIGNING_KEY: a fresh key (generateCallerKeys); CALLER_VERIFY_KEYS_<SERVICE>: derived
 *   from it for that service, as `node scripts/caller-keys.mjs` does;
 * - API_KEY_PEPPER, OPERATOR_TOKEN, STORAGE_SECRET: 48 random base64url characters;
 * - *_URL keys: from `options.urls` (see GenerateSecretOptions), postgres:// for database keys,
 *   redis:// for REDIS_URL_* keys.
 * A key of another shape throws, naming it: add its format here when adding a Secret key.
 */
export function generateSecretValues(overlay: Overlay, options: GenerateSecretOptions = {}): Record<string, Record<string, string>> {
  const urls = options.urls ?? {};
  const caller = generateCallerKeys();
  const consumers = new Map<string, RpcConsumer>(RPC_CONSUMERS.map((s) => [s.toUpperCase().replace(/-/g, '_'), s]));
  const values: Record<string, Record<string, string>> = {};
  for (const { secret, key, optional } of secretKeysOf(overlay)) {
    const given = urls[`${secret}/${key}`] ?? urls[key];
    let value: string | undefined;
    if (/^NATS_PASSWORD_/.test(key)) value = `p${randomBytes(32).toString('hex')}`;
    else if (key === 'CALLER_SIGNING_KEY') value = caller.signingKey;
    else if (key.startsWith('CALLER_VERIFY_KEYS_')) {
      const consumer = consumers.get(key.slice('CALLER_VERIFY_KEYS_'.length));
      if (!consumer) throw new Error(`generateSecretValues: ${secret}/${key} names no RPC consumer (${RPC_CONSUMERS.join(', ')})`);
      value = deriveConsumerKey(caller.signingKey, consumer);
    } else if (['API_KEY_PEPPER', 'OPERATOR_TOKEN', 'STORAGE_SECRET'].includes(key)) value = secretString();
    else if (/DATABASE(_[A-Z]+)?_URL$/.test(key))
      value =
        given ??
        (optional
          ? undefined
          : `postgres://${key.toLowerCase().replace(/_url$/, '')}:${randomBytes(16).toString('hex')}@db.invalid:5432/crm`);
    else if (/^REDIS_URL(_|$)/.test(key))
      value =
        given ??
        (optional ? undefined : `redis://${key.toLowerCase().replace(/_/g, '-')}:${randomBytes(16).toString('hex')}@redis.invalid:6379`);
    else throw new Error(`generateSecretValues: no format known for key ${key} of Secret ${secret} (add it in deploy/environment.ts)`);
    values[secret] ??= {};
    if (value !== undefined) values[secret]![key] = value;
  }
  return values;
}
