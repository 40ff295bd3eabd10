#!/usr/bin/env node
// The keys of the NATS request signatures (decisions.md "NATS trust boundary"), for operators.
//
//   node scripts/caller-keys.mjs            a new CALLER_SIGNING_KEY and each consumer's key
//   node scripts/caller-keys.mjs --derive   each consumer's key of the CALLER_SIGNING_KEY read
//                                           from stdin (e.g. the one deployed, during a rotation)
//
// Prints env-file lines, the names the Kubernetes Secrets use (deploy/k8s/base/secrets.yaml):
// CALLER_SIGNING_KEY (Secret crm-caller-signing-key: api-gateway and auth-server) and
// CALLER_VERIFY_KEYS_AUTH_SERVER, _CRM_CORE, _WEBHOOK_DISPATCHER (Secret crm-caller-verify-keys:
// each given to its own service only, as CALLER_VERIFY_KEYS). A consumer's key is
// HMAC-SHA256(signing key, "crm-rpc-consumer-v2\n" + service): it verifies requests to that service
// and cannot sign any other's. Needs `npm run build` first (reads libs/messaging from dist/).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const messaging = path.join(root, 'dist', 'libs', 'messaging', 'src');
if (!existsSync(path.join(messaging, 'rpc-signature.js'))) {
  console.error('[caller-keys] dist/libs/messaging not found: run npm run build first');
  process.exit(2);
}
const { deriveConsumerKey, generateCallerKeys, parseSigningKey, verifyKeysVariableOf } = require(path.join(messaging, 'rpc-signature.js'));
const { RPC_CONSUMERS } = require(path.join(messaging, 'rpc-consumers.js'));

const args = process.argv.slice(2);
if (args.some((arg) => arg !== '--derive')) {
  console.error('usage: node scripts/caller-keys.mjs [--derive < signing-key]');
  process.exit(2);
}

let signingKey;
if (args.includes('--derive')) {
  if (process.stdin.isTTY) console.error('[caller-keys] reading CALLER_SIGNING_KEY from stdin (end with Ctrl-D)');
  signingKey = readFileSync(0, 'utf8').trim();
  try {
    parseSigningKey(signingKey);
  } catch (error) {
    console.error(`[caller-keys] CALLER_SIGNING_KEY is not valid: ${error.message}`);
    process.exit(1);
  }
} else {
  signingKey = generateCallerKeys().signingKey;
  console.log(`CALLER_SIGNING_KEY=${signingKey}`);
}
for (const service of RPC_CONSUMERS) console.log(`${verifyKeysVariableOf(service)}=${deriveConsumerKey(signingKey, service)}`);
