import { plainToInstance, Transform, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSet the variables above (see README "Configuration") and start again.`,
    );
    this.name = 'ConfigError';
  }
}

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((e) => Object.values(e.constraints ?? {}).map((m) => `${e.property}: ${m}`));
}

/**
 * Reads a config class from the environment: property names are the variable names, property
 * initialisers are the local defaults, class-validator decorators the rules. Empty variables count
 * as unset. Fails fast with every problem listed at once.
 */
export function loadConfig<T extends object>(cls: ClassConstructor<T>, env: NodeJS.ProcessEnv = process.env): T {
  const raw: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') raw[key] = value;
  const config = plainToInstance(cls, raw, { exposeDefaultValues: true, excludeExtraneousValues: false });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: false });
  const problems = [
    ...describe(errors),
    ...(typeof (config as { check?: () => string[] }).check === 'function' ? (config as { check: () => string[] }).check() : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Parses an integer variable ("3000" -> 3000); anything else is left for validation to reject. */
export const IntEnv = () => Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));

/** Parses a boolean variable: true/false in any case, 1/0. */
export const BoolEnv = () =>
  Transform(({ value }) => {
    if (typeof value !== 'string') return value;
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return value;
  });
