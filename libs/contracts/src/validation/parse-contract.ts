import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ApiError, type FieldErrors } from '../errors/api-error';

function collect(errors: ValidationError[], prefix: string, out: FieldErrors): void {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0 && !out[field]) out[field] = messages[0];
    if (error.children?.length) collect(error.children, field, out);
  }
}

/**
 * Parses untrusted input into a contract class and validates it: the gateway does this for HTTP
 * input, consumers do it again for NATS payloads before use. Failure: 400 invalid_request_data
 * with `errors` keyed by field.
 */
export function parseContract<T extends object>(cls: ClassConstructor<T>, input: unknown): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw ApiError.invalid({ body: 'must be a JSON object' });
  }
  const instance = plainToInstance(cls, input, { exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false, value: false } });
  if (errors.length > 0) {
    const fields: FieldErrors = {};
    collect(errors, '', fields);
    throw ApiError.invalid(fields);
  }
  return instance;
}
