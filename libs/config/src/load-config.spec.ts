import { IsInt, Min } from 'class-validator';
import { BaseConfig } from './base.config';
import { BoolEnv, ConfigError, IntEnv, loadConfig } from './load-config';

class SampleConfig extends BaseConfig {
  @IntEnv()
  @IsInt()
  @Min(1)
  PORT = 3000;

  @BoolEnv()
  FLAG = false;
}

describe('loadConfig', () => {
  it('uses local defaults when nothing is set', () => {
    const config = loadConfig(SampleConfig, {});
    expect(config.PORT).toBe(3000);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(config.CRM_NAMESPACE).toBe('crm');
    expect(config.FLAG).toBe(false);
  });

  it('converts numbers and booleans from the environment', () => {
    const config = loadConfig(SampleConfig, { PORT: '8080', FLAG: 'TRUE' });
    expect(config.PORT).toBe(8080);
    expect(config.FLAG).toBe(true);
    expect(loadConfig(SampleConfig, { FLAG: '0' }).FLAG).toBe(false);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig(SampleConfig, { PORT: '' }).PORT).toBe(3000);
  });

  it('lists every problem at once', () => {
    let error: unknown;
    try {
      loadConfig(SampleConfig, { PORT: 'abc', NATS_URL: 'http://x', CRM_NAMESPACE: 'Bad Name' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems } = error as ConfigError;
    expect(problems.some((p) => p.startsWith('PORT'))).toBe(true);
    expect(problems.some((p) => p.startsWith('NATS_URL'))).toBe(true);
    expect(problems.some((p) => p.startsWith('CRM_NAMESPACE'))).toBe(true);
  });
});
