import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Errors in the delivery log are categories without addresses or ports (decisions.md "Event
 * pipeline and fan-out bounds"). Attempts written before held the raw network error ("connect
 * ECONNREFUSED 10.0.0.5:8080", "x resolves to 10.0.0.5..."): they are rewritten to the same
 * categories the dispatcher now writes.
 *
 * The statement that rewrites `table.column` (exported for its test).
 */
export function categorizeDeliveryErrors(table: string, column: string): string {
  return `
    UPDATE ${table} SET ${column} = CASE
        WHEN ${column} LIKE '% resolves to %' THEN 'blocked: private address'
        WHEN ${column} LIKE 'no answer within %' THEN 'timeout'
        WHEN ${column} ~ '^(ENOTFOUND|EAI_[A-Z]+|ENODATA|ESERVFAIL|ENOTIMP|EREFUSED):' THEN 'DNS lookup failed'
        WHEN ${column} LIKE 'ECONNREFUSED:%' THEN 'connection refused'
        WHEN ${column} ~ '^(ECONNRESET|EPIPE|ECONNABORTED):' THEN 'connection reset'
        WHEN ${column} ~ '^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL):' THEN 'host unreachable'
        WHEN ${column} ~ '^(ETIMEDOUT|ESOCKETTIMEDOUT):' THEN 'timeout'
        WHEN ${column} ~ '^(ERR_TLS|ERR_SSL|ERR_OSSL|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_CERT)' THEN 'TLS error'
        WHEN ${column} ~ '^HPE_' THEN 'invalid HTTP response'
        ELSE 'network error'
      END
    WHERE ${column} IS NOT NULL
      AND ${column} !~ '^(HTTP [0-9]{3}|timeout|DNS lookup failed|connection refused|connection reset|host unreachable|TLS error|blocked: private address|invalid HTTP response|invalid receiver URL|network error|webhook switched off)$'
      AND ${column} NOT LIKE 'webhook disabled:%'`;
}

/** Rewrites the delivery log's stored errors to categories (see {@link categorizeDeliveryErrors}). */
export class DeliveryErrorCategories1764300000000 implements MigrationInterface {
  name = 'DeliveryErrorCategories1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(categorizeDeliveryErrors('webhooks.deliveries', 'last_error'));
    await q.query(categorizeDeliveryErrors('webhooks.delivery_attempts', 'error'));
  }

  async down(): Promise<void> {
    // The raw errors are gone; nothing to restore.
  }
}
