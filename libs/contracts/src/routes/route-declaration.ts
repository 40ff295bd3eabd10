import type { ClassConstructor } from 'class-transformer';
import type { Subject } from '../rpc/subjects';
import type { ReplyName } from './reply-types';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * An API v3 endpoint, declared once beside its NATS subject and request class. The gateway
 * registers routes, validates input and builds OpenAPI from these; the handling service
 * subscribes to the same subject.
 */
export interface RouteDeclaration {
  /** Stable operation id, also the OpenAPI operationId. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path relative to /api/v3 with `{name}` parameters, without the optional `.json` suffix. */
  readonly path: string;
  readonly subject: Subject;
  /** `read` needs crm.readonly, crm or mcp; `write` needs crm (or mcp where `mcpWrite`). */
  readonly access: 'read' | 'write';
  readonly mcpWrite?: boolean;
  /**
   * Only account administrators may call it: checked by the gateway before validation
   * (authorization comes first), with this message when it is a string, and again by the service.
   */
  readonly adminOnly?: true | string;
  /**
   * Administrators only, unless this path parameter names the caller's own user (PUT
   * /users/{user_id}): checked by the gateway before validation, and again by the service.
   */
  readonly adminUnlessOwn?: string;
  /**
   * The success reply carries a secret (an API key, a signing secret): it is never stored, so a
   * repeated Idempotency-Key cannot replay it (409 instead).
   */
  readonly replyCarriesSecret?: boolean;
  /**
   * Endpoints not available for OAuth applications (API key only): `unauthorized` answers a
   * bearer token 401 invalid_auth_token, `forbidden` 403 (decisions.md's table).
   */
  readonly apiKeyOnly?: 'unauthorized' | 'forbidden';
  /**
   * Validated request: path parameters, body fields and query parameters merged into one
   * object (path parameters win over body fields, body fields over query parameters).
   */
  readonly request: ClassConstructor<object>;
  /** The success envelope's `data`: an entry of {@link ReplyTypes} (the OpenAPI response schema). */
  readonly reply: ReplyName;
  /** The envelope also carries the five summary blocks beside `data` (SummaryBlocksDto). */
  readonly replySummary?: true;
  /**
   * The route takes a file (decisions.md "Attachments"): besides JSON, the gateway accepts a
   * multipart/form-data body whose file part it streams to storage, sending the service only the
   * stored key. `attachment`: any accepted file type; `image`: photos and logos (JSON `image` in
   * base64, as OnePageCRM sends it, is stored the same way).
   */
  readonly upload?: 'attachment' | 'image';
  /**
   * A list OnePageCRM answers as a bare array (docs/decisions.md "Lists: paged by default,
   * OnePageCRM's bare arrays on request"): its `data` is the spec's paged object, or that array when
   * the account's `list_format` setting or the request's X-List-Format header (list-format.ts)
   * says `onepagecrm`. The gateway validates the header and sends the choice as
   * RpcRequest.list_format.
   */
  readonly listFormat?: true;
  readonly successStatus: 200 | 201;
  readonly summary: string;
  readonly tag: string;
}
