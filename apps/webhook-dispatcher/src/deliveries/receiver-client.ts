import http from 'node:http';
import { isIP } from 'node:net';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { WebhookDeliveryErrors, type WebhookDeliveryError } from '@crm/contracts';
import { guardedLookup, PrivateAddressError, refusedLiteralAddress } from '../webhooks/address-guard';
import { parseRetryAfter } from './retry-schedule';

export interface PostResult {
  /** HTTP status of the answer; null when there was none. */
  responseCode: number | null;
  /** Retry-After of a 429 or 503 answer, in ms. */
  retryAfterMs: number | null;
  durationMs: number;
  /**
   * Why there is no 2xx (null on 2xx): `HTTP <status>`, or a category of {@link WebhookDeliveryErrors}
   * without addresses or ports (it is shown in the delivery log).
   */
  error: string | null;
  /** The underlying error's code and message, for this service's own logs only (never stored). */
  detail?: string;
  /** timeout, network, refused_address or http_status (non-2xx); null on 2xx. */
  failure: 'timeout' | 'network' | 'refused_address' | 'http_status' | null;
}

export interface ReceiverClientOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  userAgent: string;
}

/** Bytes of an answer's body read (and thrown away) before the connection is dropped instead. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Origins whose keep-alive pools are kept; the least recently used beyond this are closed. */
const MAX_POOLS = 2000;

/**
 * POSTs deliveries to receivers: one keep-alive pool per origin (connections are reused across
 * deliveries), a hard deadline per attempt (connect, send and answer), names resolved through the
 * SSRF guard with the socket connected to exactly the address that was checked, no redirects
 * followed. The 2xx is taken from the status line; the body is drained in the background so the
 * connection can be reused.
 */
export class ReceiverClient {
  private readonly pools = new Map<string, http.Agent>();
  private readonly targets = new Map<string, Target>();
  private readonly lookup: ReturnType<typeof guardedLookup>;

  constructor(private readonly options: ReceiverClientOptions) {
    this.lookup = guardedLookup(options.allowPrivate);
  }

  async post(hookUrl: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    const target = this.target(hookUrl);
    if ('error' in target) return { responseCode: null, retryAfterMs: null, durationMs: 0, error: target.error, failure: target.failure };
    let result = await this.once(target, headers, body, started);
    // A pooled connection the receiver closed just as we reused it: one immediate retry on a new one.
    if (
      result.reused &&
      result.failure === 'network' &&
      result.errorCode === 'ECONNRESET' &&
      performance.now() - started < this.options.timeoutMs / 2
    ) {
      result = await this.once(target, headers, body, started);
    }
    const { reused: _reused, errorCode: _code, ...post } = result;
    return post;
  }

  /** Closes every pooled connection. */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
    this.targets.clear();
  }

  /** Request options of a receiver URL, parsed once (its pool, its guarded lookup), or why it cannot be reached. */
  private target(hookUrl: string): Target | { error: string; failure: 'network' | 'refused_address' } {
    const known = this.targets.get(hookUrl);
    if (known) return known;
    let url: URL;
    try {
      url = new URL(hookUrl);
    } catch {
      return { error: WebhookDeliveryErrors.badUrl, failure: 'network' };
    }
    const refused = refusedLiteralAddress(url.hostname, this.options.allowPrivate);
    if (refused) return { error: WebhookDeliveryErrors.blocked, failure: 'refused_address' };
    const secure = url.protocol === 'https:';
    const target: Target = {
      secure,
      options: {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: this.pool(url, secure),
        lookup: this.lookup as never,
        // SNI carries names only (RFC 6066), never a literal address.
        servername: secure && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 ? url.hostname : undefined,
      },
    };
    if (this.targets.size >= MAX_POOLS * 4) this.targets.clear();
    this.targets.set(hookUrl, target);
    return target;
  }

  private once(
    target: Target,
    headers: Record<string, string>,
    body: string,
    started: number,
  ): Promise<PostResult & { reused: boolean; errorCode?: string }> {
    return new Promise((resolve) => {
      let settled = false;
      let reused = false;
      const finish = (r: Omit<PostResult, 'durationMs'> & { errorCode?: string }) => {
        if (settled) return;
        settled = true;
        resolve({ ...r, durationMs: Math.max(0, Math.round(performance.now() - started)), reused });
      };
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
      headers['user-agent'] = this.options.userAgent;
      const request = (target.secure ? https : http).request({ ...target.options, headers }, (res) => {
        const code = res.statusCode ?? 0;
        const ok = code >= 200 && code < 300;
        const retryAfter = code === 429 || code === 503 ? parseRetryAfter(headerValue(res.headers['retry-after'])) : null;
        finish({ responseCode: code, retryAfterMs: retryAfter, error: ok ? null : `HTTP ${code}`, failure: ok ? null : 'http_status' });
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('close', () => clearTimeout(deadline));
      });
      request.on('socket', () => (reused = request.reusedSocket));
      const deadline = setTimeout(() => {
        finish({
          responseCode: null,
          retryAfterMs: null,
          error: WebhookDeliveryErrors.timeout,
          failure: 'timeout',
          detail: `no answer within ${this.options.timeoutMs} ms`,
        });
        request.destroy();
      }, this.options.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(deadline);
        if (error instanceof PrivateAddressError)
          finish({
            responseCode: null,
            retryAfterMs: null,
            error: WebhookDeliveryErrors.blocked,
            failure: 'refused_address',
            detail: error.message,
          });
        else
          finish({
            responseCode: null,
            retryAfterMs: null,
            error: deliveryErrorOf(error),
            failure: 'network',
            errorCode: error.code,
            detail: describe(error),
          });
      });
      request.end(body);
    });
  }

  private pool(url: URL, secure: boolean): http.Agent {
    const key = url.origin;
    let agent = this.pools.get(key);
    if (agent) {
      // Most recently used last, so the first entry is the one to close when there are too many.
      this.pools.delete(key);
      this.pools.set(key, agent);
      return agent;
    }
    // Concurrency is capped per webhook by the sender, not here: a queue in the pool would eat the deadline.
    const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: Infinity, maxFreeSockets: 256, scheduling: 'lifo' as const };
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    this.pools.set(key, agent);
    if (this.pools.size > MAX_POOLS) {
      const [oldest] = this.pools.keys();
      this.pools.get(oldest)?.destroy();
      this.pools.delete(oldest);
    }
    return agent;
  }
}

interface Target {
  secure: boolean;
  options: http.RequestOptions & { servername?: string };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ENODATA',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const TLS_PREFIXES = [
  'ERR_TLS',
  'ERR_SSL',
  'ERR_OSSL',
  'CERT_',
  'UNABLE_TO_',
  'DEPTH_ZERO_',
  'SELF_SIGNED_',
  'HOSTNAME_MISMATCH',
  'ERR_CERT',
];

/**
 * The category of a network error as the delivery log shows it (decisions.md "Event pipeline and
 * fan-out bounds"): the error's message names the address and port it tried, so it stays in the logs.
 */
export function deliveryErrorOf(error: NodeJS.ErrnoException): WebhookDeliveryError {
  const code = error.code ?? '';
  if (DNS_CODES.has(code) || error.syscall === 'getaddrinfo') return WebhookDeliveryErrors.dns;
  if (code === 'ECONNREFUSED') return WebhookDeliveryErrors.refused;
  if (RESET_CODES.has(code)) return WebhookDeliveryErrors.reset;
  if (UNREACHABLE_CODES.has(code)) return WebhookDeliveryErrors.unreachable;
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return WebhookDeliveryErrors.timeout;
  if (TLS_PREFIXES.some((p) => code.startsWith(p)) || /certificate|ssl|tls/i.test(error.message)) return WebhookDeliveryErrors.tls;
  if (code.startsWith('HPE_')) return WebhookDeliveryErrors.badResponse;
  return WebhookDeliveryErrors.network;
}

function describe(error: NodeJS.ErrnoException): string {
  const code = error.code ? `${error.code}: ` : '';
  return `${code}${error.message}`.slice(0, 300);
}
