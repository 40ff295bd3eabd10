import { isId } from '@crm/common';
import { ApiError, ErrorName } from '@crm/contracts';

/** True when the error is PostgreSQL's unique violation on the given constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown; driverError?: { code?: unknown; constraint?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  return code === '23505' && name === constraint;
}

/**
 * Runs `fn`; PostgreSQL's unique violation on `constraint` becomes 400 duplicated_entity saying
 * that `field` already names a `what` of the account (e.g. 'status', 'a status').
 */
export async function uniqueName<T>(constraint: string, what: string, field: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isUniqueViolation(error, constraint))
      throw new ApiError(ErrorName.DuplicatedEntity, `${capitalized(what)} with this name already exists`, {
        [field]: `is already the name of ${what} of the account`,
      });
    throw error;
  }
}

/** The record a lookup found, or 404 `message` (a path id that is not an id finds nothing). */
export async function foundOr404<T>(rawId: string, load: (id: string) => Promise<T | undefined>, message: string): Promise<T> {
  const id = rawId.toLowerCase();
  const row = isId(id) ? await load(id) : undefined;
  if (!row) throw ApiError.notFound(message);
  return row;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
