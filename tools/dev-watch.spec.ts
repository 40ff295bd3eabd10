// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isBuildSource, outputOf, servicesFor } = require('./dev-watch.cjs') as {
  isBuildSource: (rel: string) => boolean;
  outputOf: (rel: string) => string;
  servicesFor: (changed: string[], apps: string[]) => string[];
};

const APPS = ['api-gateway', 'auth-server', 'crm-core', 'webhook-dispatcher'];

describe('npm run dev: what a changed file rebuilds and restarts', () => {
  it('restarts only the app whose file changed', () => {
    expect(servicesFor(['apps/crm-core/src/contacts/contact.service.ts'], APPS)).toEqual(['crm-core']);
    expect(servicesFor(['apps/webhook-dispatcher/src/main.ts', 'apps/api-gateway/src/app.module.ts'], APPS)).toEqual([
      'api-gateway',
      'webhook-dispatcher',
    ]);
  });

  it('restarts every app when a library changed', () => {
    expect(servicesFor(['apps/crm-core/src/main.ts', 'libs/contracts/src/index.ts'], APPS)).toEqual(APPS);
  });

  it('restarts nothing for files outside apps/ and libs/ or for an app that is not running', () => {
    expect(servicesFor(['test/e2e/helpers.ts', 'tools/dev-run.mjs'], APPS)).toEqual([]);
    expect(servicesFor(['apps/crm-core/src/main.ts'], ['api-gateway'])).toEqual([]);
  });

  it('compiles what the build compiles: sources, not tests or declarations', () => {
    expect(isBuildSource('apps/crm-core/src/main.ts')).toBe(true);
    expect(isBuildSource('libs/testing/src/services.spec-helpers.ts')).toBe(true);
    for (const rel of [
      'apps/crm-core/src/main.spec.ts',
      'apps/crm-core/src/contacts/contact.repository.medium-spec.ts',
      'libs/messaging/src/nats.int-spec.ts',
      'apps/api-gateway/src/openapi/class-transformer-storage.d.ts',
      'apps/crm-core/src/data.json',
      'test/e2e/foundation.e2e-spec.ts',
    ])
      expect({ rel, compiled: isBuildSource(rel) }).toEqual({ rel, compiled: false });
    expect(outputOf('apps/crm-core/src/main.ts')).toBe('dist/apps/crm-core/src/main.js');
  });
});
