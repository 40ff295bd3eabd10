import { ValidateBy } from 'class-validator';
import { parseSigningKey, parseVerifyKeys } from './rpc-signature';

const CALLER_KEYS_HOW = '`npm start` generates a pair in .local/secrets.env';

function problemOf(parse: () => unknown): string | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * CALLER_SIGNING_KEY: an Ed25519 private key as base64 of its 32 bytes or a PKCS#8 PEM. Checked
 * here when set; required to start the service in every environment (decisions.md "NATS trust
 * boundary"), though not for `main.js migrate`, which sends no request.
 */
export const IsCallerSigningKey = () =>
  ValidateBy({
    name: 'isCallerSigningKey',
    validator: {
      validate: (value: unknown) => value === '' || (typeof value === 'string' && problemOf(() => parseSigningKey(value)) === undefined),
      defaultMessage: (args) =>
        `${args?.property} is not a valid Ed25519 private key (${problemOf(() => parseSigningKey(String(args?.value)))}; ${CALLER_KEYS_HOW})`,
    },
  });

/**
 * CALLER_VERIFY_KEYS: the Ed25519 public keys (comma-separated, two during a rotation) whose
 * signatures this service accepts on NATS requests. Checked here when set; required to start the
 * service (not for `main.js migrate`).
 */
export const AreCallerVerifyKeys = () =>
  ValidateBy({
    name: 'areCallerVerifyKeys',
    validator: {
      validate: (value: unknown) => value === '' || (typeof value === 'string' && problemOf(() => parseVerifyKeys(value)) === undefined),
      defaultMessage: (args) =>
        `${args?.property} is not a list of Ed25519 public keys (${problemOf(() => parseVerifyKeys(String(args?.value)))}; ${CALLER_KEYS_HOW})`,
    },
  });
