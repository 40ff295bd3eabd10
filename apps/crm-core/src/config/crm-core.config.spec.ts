import { type ConfigError, loadConfig } from '@crm/config';
import { CrmCoreConfig } from './crm-core.config';

/** The replica variables (decisions.md "Reads from a replica"): optional, validated, with sound defaults. */
describe('CrmCoreConfig: reads from a replica', () => {
  const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig(CrmCoreConfig, env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('has no replica unless DATABASE_REPLICA_URL is set, a 1 s lag bound and a 50 ms poll', () => {
    const config = loadConfig(CrmCoreConfig, {});
    expect(config.DATABASE_REPLICA_URL).toBeUndefined();
    expect([config.REPLICA_MAX_LAG_MS, config.REPLICA_POLL_MS, config.REPLICA_TIMEOUT_MS]).toEqual([1000, 50, 1000]);
    const withReplica = loadConfig(CrmCoreConfig, { DATABASE_REPLICA_URL: 'postgres://crm@replica:5432/crm', REPLICA_MAX_LAG_MS: '2500' });
    expect([withReplica.DATABASE_REPLICA_URL, withReplica.REPLICA_MAX_LAG_MS]).toEqual(['postgres://crm@replica:5432/crm', 2500]);
  });

  it('refuses a malformed replica URL, a lag bound over 30 s, and a poll slower than half the bound', () => {
    expect(problemsOf({ DATABASE_REPLICA_URL: 'mysql://replica' })).toEqual([
      'DATABASE_REPLICA_URL: DATABASE_REPLICA_URL must look like postgres://user@host:5432/db',
    ]);
    expect(problemsOf({ REPLICA_MAX_LAG_MS: '60000' })[0]).toMatch(/^REPLICA_MAX_LAG_MS: /);
    expect(problemsOf({ DATABASE_REPLICA_URL: 'postgres://crm@replica/crm', REPLICA_MAX_LAG_MS: '100', REPLICA_POLL_MS: '60' })).toEqual([
      expect.stringMatching(/^REPLICA_POLL_MS \(60\) must be at most half of REPLICA_MAX_LAG_MS \(100\)/),
    ]);
  });
});
