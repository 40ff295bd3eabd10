/**
 * Stable machine identifiers of API errors (spec "Errors", decisions.md "Envelopes and
 * authentication errors"). Clients branch on these: never rename one.
 */
export enum ErrorName {
  InvalidRequestData = 'invalid_request_data',
  DuplicatedEntity = 'duplicated_entity',
  ResourceAlreadyExists = 'resource_already_exists',
  InvalidAuthToken = 'invalid_auth_token',
  InvalidAccessToken = 'invalid_access_token',
  InvalidLogin = 'invalid_login',
  AuthorizationDataNotFound = 'authorization_data_not_found',
  TrialExpired = 'trial_expired',
  SubscriptionCanceled = 'subscription_canceled',
  NoPermission = 'no_permission_to_complete_action',
  ResourceNotFound = 'resource_not_found',
  MethodNotAllowed = 'method_not_allowed',
  Conflict = 'conflict',
  UnsupportedMediaType = 'unsupported_media_type',
  /** A file or upload over the size limit (decisions.md "Attachments"): HTTP 413. */
  RequestTooLarge = 'request_too_large',
  InternalServerError = 'internal_server_error',
  ServiceUnavailable = 'service_unavailable',
}

interface ErrorSpec {
  /** HTTP status of the response. */
  readonly http: number;
  /** `status` in the body: the HTTP status, except 400 for bad credentials. */
  readonly bodyStatus: number;
  /** Short summary, the envelope's `message`. */
  readonly message: string;
  /** Default human text, the envelope's `error_message`. */
  readonly errorMessage: string;
}

export const ERROR_CATALOG: Readonly<Record<ErrorName, ErrorSpec>> = {
  [ErrorName.InvalidRequestData]: {
    http: 400,
    bodyStatus: 400,
    message: 'Invalid request data',
    errorMessage: 'The request data is invalid or incomplete',
  },
  [ErrorName.DuplicatedEntity]: {
    http: 400,
    bodyStatus: 400,
    message: 'Duplicated entity',
    errorMessage: 'An entity with this name already exists',
  },
  [ErrorName.ResourceAlreadyExists]: {
    http: 400,
    bodyStatus: 400,
    message: 'Resource already exists',
    errorMessage: 'The resource already exists',
  },
  [ErrorName.InvalidAuthToken]: {
    http: 401,
    bodyStatus: 400,
    message: 'Invalid auth token',
    errorMessage: 'The API key is invalid or has been revoked',
  },
  [ErrorName.InvalidAccessToken]: {
    http: 401,
    bodyStatus: 400,
    message: 'Invalid access token',
    errorMessage: 'The access token is invalid, expired or revoked',
  },
  [ErrorName.InvalidLogin]: { http: 401, bodyStatus: 400, message: 'Invalid login', errorMessage: 'Unknown user id' },
  [ErrorName.AuthorizationDataNotFound]: {
    http: 401,
    bodyStatus: 401,
    message: 'Unauthorized',
    errorMessage: 'No authorization data was sent: use HTTP Basic (user_id:api_key) or a Bearer token',
  },
  [ErrorName.TrialExpired]: {
    http: 402,
    bodyStatus: 402,
    message: 'Payment required',
    errorMessage: 'The trial of this account has expired',
  },
  [ErrorName.SubscriptionCanceled]: {
    http: 402,
    bodyStatus: 402,
    message: 'Payment required',
    errorMessage: 'The subscription of this account has been canceled',
  },
  [ErrorName.NoPermission]: {
    http: 403,
    bodyStatus: 403,
    message: 'Forbidden',
    errorMessage: 'You do not have permission to complete this action',
  },
  [ErrorName.ResourceNotFound]: { http: 404, bodyStatus: 404, message: 'Not found', errorMessage: 'The requested resource was not found' },
  [ErrorName.MethodNotAllowed]: {
    http: 405,
    bodyStatus: 405,
    message: 'Method not allowed',
    errorMessage: 'This method is not allowed on this resource',
  },
  [ErrorName.UnsupportedMediaType]: {
    http: 415,
    bodyStatus: 415,
    message: 'Unsupported media type',
    errorMessage: 'Send the request body as JSON with Content-Type: application/json',
  },
  [ErrorName.RequestTooLarge]: {
    http: 413,
    bodyStatus: 413,
    message: 'Request too large',
    errorMessage: 'The file is larger than the API accepts',
  },
  [ErrorName.Conflict]: {
    http: 409,
    bodyStatus: 409,
    message: 'Conflict',
    errorMessage: 'The request conflicts with the current state of the resource',
  },
  [ErrorName.InternalServerError]: {
    http: 500,
    bodyStatus: 500,
    message: 'Internal server error',
    errorMessage: 'An internal error occurred; it has been logged',
  },
  [ErrorName.ServiceUnavailable]: {
    http: 503,
    bodyStatus: 503,
    message: 'Service unavailable',
    errorMessage: 'The service is temporarily unavailable; retry shortly',
  },
};

export function isErrorName(value: unknown): value is ErrorName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, value);
}
