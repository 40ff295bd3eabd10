import { ERROR_CATALOG, ErrorName, isErrorName } from './error-name';

/** Field name to message, for validation failures. */
export type FieldErrors = Record<string, string>;

/** The error as data: what crosses NATS and what the gateway renders into the envelope. */
export interface ErrorData {
  error_name: ErrorName;
  error_message: string;
  errors: FieldErrors;
}

/**
 * The one exception type of the platform. Services throw it; it travels over NATS as
 * {@link ErrorData} (never a stack trace) and the gateway renders it with {@link ERROR_CATALOG}.
 */
export class ApiError extends Error {
  readonly errors: FieldErrors;
  /** Response headers an HTTP service adds to the envelope (a 401's WWW-Authenticate); never sent over NATS. */
  readonly headers: Record<string, string> = {};

  constructor(
    readonly errorName: ErrorName,
    errorMessage?: string,
    errors: FieldErrors = {},
  ) {
    super(errorMessage ?? ERROR_CATALOG[errorName].errorMessage);
    this.name = 'ApiError';
    this.errors = errors;
  }

  get http(): number {
    return ERROR_CATALOG[this.errorName].http;
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  toData(): ErrorData {
    return { error_name: this.errorName, error_message: this.message, errors: { ...this.errors } };
  }

  static fromData(data: unknown): ApiError {
    const value = (data ?? {}) as Partial<ErrorData>;
    if (!isErrorName(value.error_name)) return new ApiError(ErrorName.InternalServerError);
    const errors = value.errors && typeof value.errors === 'object' ? value.errors : {};
    return new ApiError(value.error_name, typeof value.error_message === 'string' ? value.error_message : undefined, errors);
  }

  static invalid(errors: FieldErrors, message = 'The request data is invalid'): ApiError {
    return new ApiError(ErrorName.InvalidRequestData, message, errors);
  }

  static notFound(message?: string): ApiError {
    return new ApiError(ErrorName.ResourceNotFound, message);
  }
}
