import { openSealedValue, sealValue } from '@crm/common';
import { IsString, MaxLength } from 'class-validator';
import type { Role } from '../rpc/caller';

export type BillingStatus = 'active' | 'trial_expired' | 'subscription_canceled';

/**
 * What the gateway needs to authenticate an API key, as cached in Redis by the auth-server and
 * returned by auth.credentials.resolve.v1. `found: false` marks an unknown (or not yet usable)
 * user id, cached briefly so unknown ids do not reach the auth-server on every request.
 */
export type CredentialRecord =
  | {
      found: true;
      user_id: string;
      account_id: string;
      role: Role;
      /** Keyed SHA-256 of the current API key; null when the user has no key. */
      api_key_hash: string | null;
      billing_status: BillingStatus;
      /** See {@link CredentialRecordVersion}. */
      version?: CredentialRecordVersion;
    }
  | { found: false; user_id: string; version?: CredentialRecordVersion };

/**
 * Version of a credential record, taken from a database sequence on every change of the user or
 * of the account's status or billing (0: no such user). The Redis mirror never replaces a record
 * with an older version, so a refill that read the database before a change cannot undo it.
 */
export type CredentialRecordVersion = number;

const recordContext = (userId: string) => `credential-record:${userId}`;

/**
 * A credential record as the auth-server writes it to Redis: sealed with an HMAC keyed by
 * API_KEY_PEPPER for this user id (libs/common `sealValue`), so whoever can write Redis but lacks
 * the pepper can neither mint a record nor move one to another user.
 */
export function sealCredentialRecord(pepper: string, record: CredentialRecord): string {
  return sealValue(pepper, recordContext(record.user_id), JSON.stringify(record));
}

/**
 * The record read from Redis if the auth-server sealed it for this user; null for anything else (a
 * forged or moved record, or one written before records were sealed): a cache miss.
 */
export function openCredentialRecord(pepper: string, userId: string, raw: string): CredentialRecord | null {
  const payload = openSealedValue(pepper, recordContext(userId), raw);
  if (payload === null) return null;
  const record = JSON.parse(payload) as CredentialRecord;
  return record.user_id === userId ? record : null;
}

export class ResolveCredentialsRequest {
  @IsString() @MaxLength(64) user_id: string;
}

export class TokenStatusRequest {
  @IsString() @MaxLength(64) user_id: string;
  @IsString() @MaxLength(200) grant_id: string;
}

/** The user's credential record and whether the token's grant (family) was revoked. */
export interface TokenStatusReply {
  record: CredentialRecord;
  revoked: boolean;
}

export interface ChangeAuthKeyReply {
  auth_key: string;
}
