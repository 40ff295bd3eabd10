import createClient, { type Client, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** The API's schemas by name (`Schemas['DealDto']`), generated from the OpenAPI document. */
export type Schemas = components['schemas'];

/** Stable machine identifier of an API error: branch on it, never on the message. */
export type ErrorName = Schemas['ErrorName'];

export type CrmAuth =
  /** An API key: HTTP Basic with the user id as the username and the key as the password. */
  | { type: 'basic'; userId: string; apiKey: string }
  /** An OAuth access token; a function is asked before every request (refresh it there). */
  | { type: 'bearer'; token: string | (() => string | Promise<string>) };

export interface CrmClientOptions {
  /** The CRM's origin (`https://crm.example.com`) or its API base URL (`…/api/v3`). */
  baseUrl: string;
  auth: CrmAuth;
  /** A fetch of your own (tests, proxies); the global fetch by default. */
  fetch?: (input: Request) => Promise<Response>;
}

/** An answer that is not a success: the error envelope's fields, the HTTP status and the request id. */
export class CrmApiError extends Error {
  override readonly name = 'CrmApiError';

  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    /** `error_name` of the envelope; undefined for the plain-text 403 `Rate Limit Exceeded` and 429. */
    readonly errorName: ErrorName | undefined,
    message: string,
    /** For invalid request data: each field and the first rule it broke. */
    readonly errors: Record<string, string>,
    /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
    readonly requestId: string | null,
    /** The answer's body as received. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathsWith<M extends HttpMethod> = { [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never }[keyof paths];
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The request options of a path and method: required when the path has parameters or a required body. */
type Init<I> = RequiredKeys<I> extends never ? [I?] : [I];
/** The JSON of an operation's success (200 or 201). */
type SuccessBody<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 ? (R[S] extends { content: { 'application/json': infer J } } ? J : never) : never }[keyof R]
  : never;
/** What a call resolves to: the envelope's `data`, typed per operation. */
export type Reply<P extends keyof paths, M extends keyof paths[P]> = SuccessBody<paths[P][M]> extends { data: infer D } ? D : never;

type Method<M extends HttpMethod> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: Init<I>
) => Promise<Reply<P, M & keyof paths[P]>>;

export interface CrmClient {
  GET: Method<'get'>;
  POST: Method<'post'>;
  PUT: Method<'put'>;
  PATCH: Method<'patch'>;
  DELETE: Method<'delete'>;
  /** The underlying openapi-fetch client: whole envelopes (summary blocks), headers, no throwing. */
  raw: Client<paths>;
}

const API_PATH = '/api/v3';

function apiBaseUrl(baseUrl: string): string {
  let trimmed = baseUrl;
  while (trimmed.endsWith('/')) trimmed = trimmed.slice(0, -1);
  return trimmed.endsWith(API_PATH) ? trimmed : `${trimmed}${API_PATH}`;
}

function authorization(auth: CrmAuth): Middleware {
  return {
    async onRequest({ request }) {
      if (auth.type === 'basic') {
        const credentials = new TextEncoder().encode(`${auth.userId}:${auth.apiKey}`);
        request.headers.set('Authorization', `Basic ${btoa(String.fromCharCode(...credentials))}`);
      } else {
        const token = typeof auth.token === 'function' ? await auth.token() : auth.token;
        request.headers.set('Authorization', `Bearer ${token}`);
      }
      return request;
    },
  };
}

function apiError(response: Response, body: unknown): CrmApiError {
  const requestId = response.headers.get('x-request-id');
  if (body && typeof body === 'object' && 'error_name' in body) {
    const envelope = body as Schemas['ErrorEnvelope'];
    return new CrmApiError(response.status, envelope.error_name, envelope.error_message, envelope.errors ?? {}, requestId, body);
  }
  const text = typeof body === 'string' && body ? body : `HTTP ${response.status}`;
  return new CrmApiError(response.status, undefined, text, {}, requestId, body);
}

/**
 * A typed client of the CRM API: `await crm.GET('/contacts/{contact_id}', { params: { path: { contact_id } } })`
 * resolves to the envelope's `data` (typed from the OpenAPI document) and rejects with a
 * {@link CrmApiError} carrying `errorName` for any other answer.
 */
export function createCrmClient(options: CrmClientOptions): CrmClient {
  const raw = createClient<paths>({ baseUrl: apiBaseUrl(options.baseUrl), ...(options.fetch ? { fetch: options.fetch } : {}) });
  raw.use(authorization(options.auth));
  const call =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    async (path: string, init?: object): Promise<never> => {
      const send = raw[method] as (path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await send(path, init);
      if (!response.ok || error !== undefined) throw apiError(response, error);
      return (data as { data: never }).data;
    };
  return {
    GET: call('GET') as Method<'get'>,
    POST: call('POST') as Method<'post'>,
    PUT: call('PUT') as Method<'put'>,
    PATCH: call('PATCH') as Method<'patch'>,
    DELETE: call('DELETE') as Method<'delete'>,
    raw,
  };
}
