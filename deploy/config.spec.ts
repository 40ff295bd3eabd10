// The configuration the deployed services accept: every container of both overlays, with the
// environment the kubelet would give it (deploy/environment.ts) and generated values for the
// Secrets' placeholders, passes its own service's configuration check (the config class and
// loadConfig the service's main.ts uses), and holds no Secret key its service does not read.
import { ConfigError, loadConfig } from '@crm/config';
import type { ClassConstructor } from 'class-transformer';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { GatewayConfig } from '../apps/api-gateway/src/config/gateway.config';
import { AuthServerConfig } from '../apps/auth-server/src/config/auth-server.config';
import { CrmCoreConfig } from '../apps/crm-core/src/config/crm-core.config';
import { DispatcherConfig } from '../apps/webhook-dispatcher/src/config/dispatcher.config';
import { generateSecretValues, SERVICES, workloadEnvironments, type ServiceName, type WorkloadEnvironment } from './environment';
import { OVERLAYS } from './render';

/** The config class each service's main.ts loads (loadConfig(...) in apps/<service>/src/main.ts). */
const CONFIG_CLASSES: Record<ServiceName, ClassConstructor<object>> = {
  'api-gateway': GatewayConfig,
  'auth-server': AuthServerConfig,
  'crm-core': CrmCoreConfig,
  'webhook-dispatcher': DispatcherConfig,
};

const validations = (cls: ClassConstructor<object>) => getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);

/** The variables a config class reads: its properties, with a default (initialiser) or a validation rule. */
function variablesOf(cls: ClassConstructor<object>): Set<string> {
  const withDefaults = Object.keys(plainToInstance(cls, {}, { exposeDefaultValues: true }));
  return new Set([...withDefaults, ...validations(cls).map((v) => v.propertyName)].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name)));
}

/**
 * Variables a service needs to start though loadConfig accepts them empty, because `main.js migrate`
 * runs without them: the NATS request keys (libs/messaging caller-keys.validators.ts; RpcSigner
 * and RpcVerifier refuse an empty key when the service starts). Found by their validators.
 */
function requiredToStart(cls: ClassConstructor<object>): string[] {
  return [
    ...new Set(
      validations(cls)
        .filter((v) => v.name === 'isCallerSigningKey' || v.name === 'areCallerVerifyKeys')
        .map((v) => v.propertyName),
    ),
  ];
}

/**
 * What the service would say of this environment when started as the container is (`main.js` or
 * `main.js migrate`): loadConfig's problems ("VARIABLE: message"), then the keys needed to start.
 */
function problemsOf(service: ServiceName, env: Record<string, string>, migrate: boolean): string[] {
  const cls = CONFIG_CLASSES[service];
  const argv = process.argv;
  const problems: string[] = [];
  // The config classes check `process.argv[2] === 'migrate'` (what the migration Job runs needs less).
  process.argv = [argv[0]!, argv[1]!, ...(migrate ? ['migrate'] : [])];
  try {
    loadConfig(cls, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  } finally {
    process.argv = argv;
  }
  if (!migrate)
    problems.push(
      ...requiredToStart(cls)
        .filter((name) => !env[name])
        .map((name) => `${name}: required to start ${service}`),
    );
  return problems;
}

const isService = (name: string | undefined): name is ServiceName => SERVICES.includes(name as ServiceName);

describe.each(OVERLAYS)('deploy/: the configuration of overlay %s', (overlay) => {
  const secrets = generateSecretValues(overlay);
  const containers = workloadEnvironments(overlay, secrets).filter((w) => w.kind !== 'StatefulSet');
  const label = (w: WorkloadEnvironment) => `${w.service} (${w.kind} ${w.name}, container ${w.container}${w.migrate ? ', migrate' : ''})`;

  it('runs one of the four services in every container of the Deployments and the Job', () => {
    expect(containers.filter((w) => !isService(w.service)).map(label)).toEqual([]);
    expect(new Set(containers.filter((w) => w.kind === 'Deployment').map((w) => w.service))).toEqual(new Set(SERVICES));
    expect(containers.filter((w) => w.kind === 'Job').every((w) => w.migrate)).toBe(true);
  });

  it("passes each service's own configuration check", () => {
    const problems = containers.map((w) => ({ container: label(w), problems: problemsOf(w.service as ServiceName, w.env, w.migrate) }));
    expect(problems).toEqual(containers.map((w) => ({ container: label(w), problems: [] })));
  });

  it('fails that check without any variable its service requires, naming it', () => {
    const tried: string[] = [];
    for (const w of containers) {
      const service = w.service as ServiceName;
      // Required: the variables whose default (the local one) the check refuses in production, and
      // the keys needed to start; derived from the class, not listed here.
      const required = new Set([
        ...problemsOf(service, { NODE_ENV: 'production' }, w.migrate).map((p) => p.split(':', 1)[0]!),
        ...(w.migrate ? [] : requiredToStart(CONFIG_CLASSES[service])),
      ]);
      for (const name of required) {
        const { [name]: _dropped, ...without } = w.env;
        const problems = problemsOf(service, without, w.migrate);
        expect({ container: label(w), without: name, named: problems.some((p) => p.startsWith(`${name}:`)) }).toEqual({
          container: label(w),
          without: name,
          named: true,
        });
        tried.push(`${service}${w.migrate ? ' migrate' : ''} ${name}`);
      }
    }
    // What the derivation finds for the services (so this test cannot pass by finding nothing).
    expect(tried).toEqual(
      expect.arrayContaining([
        'api-gateway STORAGE_SECRET',
        'api-gateway API_KEY_PEPPER',
        'api-gateway CALLER_SIGNING_KEY',
        'auth-server API_KEY_PEPPER',
        'auth-server CALLER_SIGNING_KEY',
        'auth-server CALLER_VERIFY_KEYS',
        'crm-core STORAGE_SECRET',
        'crm-core CALLER_VERIFY_KEYS',
        'webhook-dispatcher CALLER_VERIFY_KEYS',
      ]),
    );
  });

  it('refuses a malformed secret, naming it', () => {
    const core = containers.find((w) => w.kind === 'Deployment' && w.service === 'crm-core')!;
    expect(problemsOf('crm-core', { ...core.env, DATABASE_URL: 'REPLACE_ME', STORAGE_SECRET: 'short' }, false)).toEqual([
      expect.stringMatching(/^DATABASE_URL: /),
      expect.stringMatching(/^STORAGE_SECRET: /),
    ]);
  });

  it('gives no container a Secret key its service does not read', () => {
    const unread = containers.flatMap((w) => {
      const service = w.service as ServiceName;
      const reads = new Set(variablesOf(CONFIG_CLASSES[service]));
      // A key given only to be expanded into a variable the service reads (NATS_PASSWORD in NATS_URL) is read.
      const expandedIntoRead = (name: string) =>
        Object.entries(w.references).some(([into, used]) => reads.has(into) && used.includes(name));
      return w.secretKeys
        .filter((k) => !reads.has(k.as) && !expandedIntoRead(k.as))
        .map((k) => `${label(w)}: ${k.secret}/${k.key} as ${k.as}`);
    });
    expect(unread).toEqual([]);
  });
});

describe('deploy/config.spec.ts: the variables a config class reads', () => {
  it('are its properties, with or without a default', () => {
    const core = variablesOf(CrmCoreConfig);
    for (const name of ['DATABASE_URL', 'STORAGE_SECRET', 'CALLER_VERIFY_KEYS', 'CRM_DATABASE_URL', 'S3_ENDPOINT', 'NODE_ENV'])
      expect({ name, read: core.has(name) }).toEqual({ name, read: true });
    expect(core.has('API_KEY_PEPPER')).toBe(false);
    expect(core.has('databaseUrl')).toBe(false);
    expect(variablesOf(AuthServerConfig).has('OPERATOR_TOKEN')).toBe(true);
    expect(variablesOf(GatewayConfig).has('OPERATOR_TOKEN')).toBe(false);
  });
});
