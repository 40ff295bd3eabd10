import { ConfigError, loadConfig } from '@crm/config';
import { AuthServerConfig } from './auth-server.config';

describe('AuthServerConfig in production', () => {
  const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://crm_migrator@db:5432/crm' };
  const argv = process.argv;
  afterEach(() => {
    process.argv = argv;
  });

  it('refuses the development API-key pepper to start the service', () => {
    process.argv = [argv[0]!, 'main.js'];
    expect(() => loadConfig(AuthServerConfig, production)).toThrow(/API_KEY_PEPPER: must be set to a secret value in production/);
    expect(() => loadConfig(AuthServerConfig, production)).toThrow(ConfigError);
  });

  it('does not ask the migration Job (`main.js migrate`) for the pepper: migrations hash nothing', () => {
    process.argv = [argv[0]!, 'main.js', 'migrate'];
    expect(loadConfig(AuthServerConfig, production).databaseUrl).toBe(production.DATABASE_URL);
  });

  it('serves the operator API on OPERATOR_PORT, 9470 unless set', () => {
    expect(loadConfig(AuthServerConfig, {}).OPERATOR_PORT).toBe(9470);
    expect(loadConfig(AuthServerConfig, { OPERATOR_PORT: '0' }).OPERATOR_PORT).toBe(0);
    expect(() => loadConfig(AuthServerConfig, { OPERATOR_PORT: '70000' })).toThrow(ConfigError);
  });
});
