import { randomBytes } from 'node:crypto';
import { DEV_STORAGE_SECRET as STORAGE_DEFAULT } from '@crm/storage';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DEV_STORAGE_SECRET, PRODUCTION_VARIABLES, productionProblems, describeProblems } = require('./production-env.cjs') as {
  DEV_STORAGE_SECRET: string;
  PRODUCTION_VARIABLES: Array<{ name: string }>;
  productionProblems: (env: Record<string, string | undefined>) => Array<{ name: string; problem: string }>;
  describeProblems: (problems: Array<{ name: string; problem: string }>) => { message: string; hints: string[] };
};

const valid = {
  DATABASE_URL: 'postgres://crm:pw@db.internal:5432/crm',
  REDIS_URL: 'rediss://:pw@redis.internal:6379',
  NATS_URL: 'nats://nats.internal:4222',
  API_KEY_PEPPER: randomBytes(36).toString('base64'),
  STORAGE_SECRET: randomBytes(36).toString('base64'),
  CALLER_SIGNING_KEY: randomBytes(32).toString('base64'),
  OPERATOR_TOKEN: randomBytes(36).toString('base64'),
};

describe('NODE_ENV=production npm start: the variables it needs (tools/production-env.cjs)', () => {
  it('names every missing variable at once, and nothing when all are valid', () => {
    expect(productionProblems({ NODE_ENV: 'production' }).map((p) => p.name)).toEqual(PRODUCTION_VARIABLES.map((v) => v.name));
    expect(productionProblems(valid)).toEqual([]);
    const { message, hints } = describeProblems(productionProblems({}));
    for (const { name } of PRODUCTION_VARIABLES) {
      expect(message).toContain(name);
      expect(hints.some((h) => h.startsWith(`${name} `))).toBe(true);
    }
  });

  it('refuses short or malformed values and the development storage secret, naming each', () => {
    const problems = productionProblems({
      ...valid,
      API_KEY_PEPPER: 'short',
      STORAGE_SECRET: DEV_STORAGE_SECRET,
      CALLER_SIGNING_KEY: randomBytes(16).toString('base64'),
      OPERATOR_TOKEN: 'x'.repeat(31),
      DATABASE_URL: 'mysql://db',
    });
    expect(problems.map((p) => p.name)).toEqual([
      'DATABASE_URL',
      'API_KEY_PEPPER',
      'STORAGE_SECRET',
      'CALLER_SIGNING_KEY',
      'OPERATOR_TOKEN',
    ]);
    // base64url is accepted as the services accept it.
    expect(productionProblems({ ...valid, CALLER_SIGNING_KEY: randomBytes(32).toString('base64url') })).toEqual([]);
  });

  it("knows the storage settings' development default", () => {
    expect(DEV_STORAGE_SECRET).toBe(STORAGE_DEFAULT);
  });
});
