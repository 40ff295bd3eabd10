import { ValidateBy } from 'class-validator';
import { CALLER_KEYS_HOW, parseSigningKey, parseVerifyKeys } from './rpc-signature';

function problemOf(parse: () => unknown): string | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * CALLER_SIGNING_KEY: a 32-byte secret as base64 or base64url. Checked here when set; required to
 * start the service in every environment (decisions.md "NATS trust boundary"), though not for
 * `main.js migrate`, which sends no request.
 */
export const IsCallerSigningKey = () =>
  ValidateBy({
    name: 'isCallerSigningKey',
    validator: {
      validate: (value: unknown) => value === '' || (typeof value === 'string' && problemOf(() => parseSigningKey(value)) === undefined),
      defaultMessage: (args) =>
        `${args?.property} is not a valid signing key (${problemOf(() => parseSigningKey(String(args?.value)))}; ${CALLER_KEYS_HOW})`,
    },
  });

/**
 * CALLER_VERIFY_KEYS: this service's own keys, derived from the signing key for it
 * (comma-separated, two during a rotation), that requests to it are signed with. Checked here
 * when set; required to start the service (not for `main.js migrate`).
 */
export const AreCallerVerifyKeys = () =>
  ValidateBy({
    name: 'areCallerVerifyKeys',
    validator: {
      validate: (value: unknown) => value === '' || (typeof value === 'string' && problemOf(() => parseVerifyKeys(value)) === undefined),
      defaultMessage: (args) =>
        `${args?.property} is not a list of verify keys (${problemOf(() => parseVerifyKeys(String(args?.value)))}; ${CALLER_KEYS_HOW})`,
    },
  });
