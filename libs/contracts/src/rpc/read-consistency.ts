/**
 * Reads from a PostgreSQL replica without reading older data than one's own writes
 * (docs/decisions.md "Reads from a replica"). WAL positions cross NATS as PostgreSQL prints them
 * (`pg_lsn` text, `16/B374D848`).
 *
 * - A crm-core write reply carries `commit_lsn` (RpcSuccess): the primary's WAL position after the
 *   write's COMMIT.
 * - The gateway keeps the highest such position per user and per account (Redis, about a minute)
 *   and sends the larger of the two with every read as `read_after` (RpcRequest): crm-core reads
 *   from its replica only once the replica has replayed up to it, else from the primary.
 *   {@link READ_FROM_PRIMARY} asks for the primary outright (the gateway could not look the
 *   positions up); a request without `read_after` reads from the primary too.
 */
export const READ_AFTER_FIELD = 'read_after';

/** The RpcSuccess field with the primary's WAL position after a write's commit. */
export const COMMIT_LSN_FIELD = 'commit_lsn';

/** `read_after` value: read from the primary, whatever the replica has replayed. */
export const READ_FROM_PRIMARY = 'primary';

/** `read_after` value: no write of the user or account is recent enough to matter (any replayed position will do). */
export const READ_AFTER_NOTHING = '0/0';

/** A `pg_lsn` as PostgreSQL prints it: two hexadecimal numbers of up to 8 digits. */
export const PG_LSN_PATTERN = /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/;

/** A `pg_lsn` text as a 64-bit number (undefined when it is not one): positions compare as numbers. */
export function parsePgLsn(text: unknown): bigint | undefined {
  if (typeof text !== 'string' || !PG_LSN_PATTERN.test(text)) return undefined;
  const slash = text.indexOf('/');
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`);
}

/** A 64-bit WAL position as PostgreSQL prints it. */
export function formatPgLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
